import fc from "fast-check";
import type { Person } from "../model/person";
import { ACCOUNT_PROJECT, accessTaken, decideAccess, ensureAccess, hasProject, takesAccessAway } from "./access";

describe("decideAccess", () => {
  it("refuses a pending or rejected person whatever their grants", () => {
    expect(decideAccess({ status: "pending", role: "admin", projects: ["*"] }, { project: "startpage" })).toBe(
      "pending",
    );
    expect(decideAccess({ status: "rejected", role: "admin", projects: ["*"] }, { project: "startpage" })).toBe(
      "rejected",
    );
  });

  it("lets an approved person in with the project, the wildcard or the admin role", () => {
    expect(
      decideAccess({ status: "approved", role: "user", projects: ["startpage"] }, { project: "startpage" }),
    ).toBeNull();
    expect(decideAccess({ status: "approved", role: "user", projects: ["*"] }, { project: "status" })).toBeNull();
    expect(decideAccess({ status: "approved", role: "admin", projects: [] }, { project: "status" })).toBeNull();
  });

  it("refuses an approved person without the grant", () => {
    expect(decideAccess({ status: "approved", role: "user", projects: ["status"] }, { project: "startpage" })).toBe(
      "no_project_access",
    );
    expect(decideAccess({ status: "approved", role: "user", projects: [] }, { project: "startpage" })).toBe(
      "no_project_access",
    );
  });

  it("opens the identity host's own project to every approved person, and to nobody else", () => {
    expect(decideAccess({ status: "approved", role: "user", projects: [] }, { project: ACCOUNT_PROJECT })).toBeNull();
    expect(decideAccess({ status: "pending", role: "user", projects: [] }, { project: ACCOUNT_PROJECT })).toBe(
      "pending",
    );
    expect(decideAccess({ status: "rejected", role: "user", projects: ["*"] }, { project: ACCOUNT_PROJECT })).toBe(
      "rejected",
    );
    // It is no grant: a gated endpoint asking for it would still find none.
    expect(hasProject({ role: "user", projects: [] }, ACCOUNT_PROJECT)).toBe(false);
  });

  it("refuses no person, then a status, then a missing grant, then a missing role, in that order", () => {
    expect(decideAccess(null, { project: "startpage", admin: true })).toBe("no_person");
    expect(decideAccess({ status: "pending", role: "user", projects: [] }, { admin: true })).toBe("pending");
    expect(decideAccess({ status: "approved", role: "user", projects: [] }, { project: "x", admin: true })).toBe(
      "no_project_access",
    );
    expect(decideAccess({ status: "approved", role: "user", projects: ["*"] }, { admin: true })).toBe("not_admin");
    expect(decideAccess({ status: "approved", role: "admin", projects: [] }, { admin: true })).toBeNull();
  });

  it.each([
    ["gate", null, "forbidden"],
    ["gate", { status: "pending" }, "forbidden_pending"],
    ["gate", { status: "rejected" }, "forbidden_rejected"],
    ["exchange", null, "exchange_person_not_found"],
    ["exchange", { status: "pending" }, "exchange_pending"],
    ["codeSignIn", null, "signin_no_account"],
    ["codeSignIn", { status: "rejected" }, "signin_rejected"],
  ] as const)("answers in the %s's words: %j is %s", (place, person, code) => {
    const who = person === null ? null : { role: "user" as const, projects: [], ...person };
    expect(() => ensureAccess(who, {}, place)).toThrow(expect.objectContaining({ code }));
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

describe("accessTaken: what a change takes away of a person's access", () => {
  type Access = Pick<Person, "status" | "role" | "projects" | "groups">;
  const ada: Access = { status: "approved", role: "user", projects: ["alpha", "beta"], groups: ["ops"] };
  const none = { status: false, role: false, projects: false, groups: false };

  it("names each thing taken: a status other than approved, the role, a project, a group", () => {
    expect(accessTaken(ada, { ...ada, status: "rejected" })).toEqual({ ...none, status: true });
    expect(accessTaken({ ...ada, status: "pending" }, { ...ada, status: "rejected" })).toEqual({
      ...none,
      status: true,
    });
    expect(accessTaken({ ...ada, role: "admin" }, ada)).toEqual({ ...none, role: true });
    expect(accessTaken(ada, { ...ada, projects: ["alpha"] })).toEqual({ ...none, projects: true });
    expect(accessTaken(ada, { ...ada, groups: [] })).toEqual({ ...none, groups: true });
  });

  it("takes nothing from a change that leaves the status be or approves", () => {
    expect(accessTaken({ ...ada, status: "pending" }, { ...ada, status: "pending" })).toEqual(none);
    expect(accessTaken({ ...ada, status: "pending" }, ada)).toEqual(none);
  });

  it("takes nothing away from a change that only widens access or reorders it", () => {
    const grants = fc.uniqueArray(fc.constantFrom("alpha", "beta", "gamma", "*"));
    const person = fc.record({
      status: fc.constantFrom<Person["status"]>("pending", "approved", "rejected"),
      role: fc.constantFrom<Person["role"]>("user", "admin"),
      projects: grants,
      groups: grants,
    });
    const widening = fc.record({ approve: fc.boolean(), promote: fc.boolean(), projects: grants, groups: grants });
    fc.assert(
      fc.property(person, widening, (before, more) => {
        const after: Access = {
          status: more.approve ? "approved" : before.status,
          role: more.promote ? "admin" : before.role,
          projects: [...more.projects, ...before.projects].reverse(),
          groups: [...before.groups, ...more.groups],
        };
        expect(takesAccessAway(before, after)).toBe(false);
      }),
    );
  });
});
