import fc from "fast-check";
import { ACCOUNT_PROJECT, decideAccess, hasProject } from "./access";

describe("decideAccess", () => {
  it("refuses a pending or rejected person whatever their grants", () => {
    expect(decideAccess({ status: "pending", role: "admin", projects: ["*"] }, "startpage")).toBe("pending");
    expect(decideAccess({ status: "rejected", role: "admin", projects: ["*"] }, "startpage")).toBe("rejected");
  });

  it("lets an approved person in with the project, the wildcard or the admin role", () => {
    expect(decideAccess({ status: "approved", role: "user", projects: ["startpage"] }, "startpage")).toBeNull();
    expect(decideAccess({ status: "approved", role: "user", projects: ["*"] }, "status")).toBeNull();
    expect(decideAccess({ status: "approved", role: "admin", projects: [] }, "status")).toBeNull();
  });

  it("refuses an approved person without the grant", () => {
    expect(decideAccess({ status: "approved", role: "user", projects: ["status"] }, "startpage")).toBe(
      "no_project_access",
    );
    expect(decideAccess({ status: "approved", role: "user", projects: [] }, "startpage")).toBe("no_project_access");
  });

  it("opens the identity host's own project to every approved person, and to nobody else", () => {
    expect(decideAccess({ status: "approved", role: "user", projects: [] }, ACCOUNT_PROJECT)).toBeNull();
    expect(decideAccess({ status: "pending", role: "user", projects: [] }, ACCOUNT_PROJECT)).toBe("pending");
    expect(decideAccess({ status: "rejected", role: "user", projects: ["*"] }, ACCOUNT_PROJECT)).toBe("rejected");
    // It is no grant: a gated endpoint asking for it would still find none.
    expect(hasProject({ role: "user", projects: [] }, ACCOUNT_PROJECT)).toBe(false);
  });

  it("never grants a user a project that is neither listed nor the wildcard", () => {
    fc.assert(
      fc.property(fc.array(fc.string()), fc.string(), (projects, project) => {
        fc.pre(!projects.includes(project) && !projects.includes("*"));
        expect(hasProject({ role: "user", projects }, project)).toBe(false);
      }),
    );
  });
});
