/** The reviewers' digest as a reviewer reads it, with one person waiting and with several. */
import { digestMail } from "./review-notices";
import type { Person } from "../model/person";

const waiting = (name: string) =>
  ({ id: name, name, emails: [`${name}@example.test`], origin: { via: "email", address: "" } }) as unknown as Person;

describe("digestMail", () => {
  it("speaks of one person in the singular", () => {
    const mail = digestMail("rev@example.test", [waiting("ann")], 1, "https://id.example.test");
    expect(mail.subject).toBe("1 person waiting for review");
    expect(mail.text).toContain(
      "1 person asked for access since the last of these emails, and 1 person now waits for review:",
    );
  });

  it("speaks of several people in the plural, and counts those it does not name", () => {
    const mail = digestMail("rev@example.test", [waiting("ann"), waiting("ben")], 5, "https://id.example.test");
    expect(mail.subject).toBe("5 people waiting for review");
    expect(mail.text).toContain(
      "2 people asked for access since the last of these emails, and 5 people now wait for review:",
    );
    expect(mail.text).toContain("…and 3 more.");
  });
});
