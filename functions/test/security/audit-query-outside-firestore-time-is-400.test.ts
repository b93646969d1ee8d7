/**
 * "A malformed query, or a cursor this list did not give, is 400 invalid_people_query"
 * (docs/endpoints/people.md, The audit trail): never a 500. An ISO 8601 instant is not always one
 * Firestore can hold: its timestamps run from 0001-01-01 to 9999-12-31 UTC, and `since=0000-…`,
 * an offset that carries `0001-01-01T00:30+01:00` back into year 0 or `9999-12-31T23:59-01:00`
 * into year 10000, or a cursor forged around such an instant, each pass the query's checks and then
 * throw in the Firestore client ("unhandled error", 500).
 */
import request from "supertest";
import { transactionRunner } from "../../src/store/db";
import * as peopleRoutes from "../../src/routes/people/people";
import { signedUp } from "../support/auth";
import { appFor, testDeps } from "../support/deps";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";

const { db } = freshProject();
const deps = testDeps({ store: db, transaction: transactionRunner(db) });
const app = appFor(peopleRoutes, deps);

/** A cursor as the list makes one (http/cursor): where the page ended, for the `audit` list. */
const cursor = (k: string) => Buffer.from(JSON.stringify({ k, o: "audit" })).toString("base64url");

describe("GET /auth/audit with an instant outside Firestore's time", () => {
  it.each([
    "since=0000-01-01T00:00:00Z",
    "since=0001-01-01T00:30:00%2B01:00",
    "until=9999-12-31T23:59:59-01:00",
    `cursor=${cursor("0000-06-01T00:00:00.000Z~x")}`,
    `cursor=${cursor("+020000-01-01T00:00:00.000Z~x")}`,
  ])("%s is 400 invalid_people_query, not 500", async (query) => {
    const account = await signedUp();
    const person = await personFor(account, { role: "admin", projects: ["*"] }, db);
    const cookie = await sessionCookieFor(deps, account.uid, person.id);
    const res = await request(app).get(`/auth/audit?${query}`).set("Cookie", cookie);
    expect({ query, status: res.status }).toEqual({ query, status: 400 });
    expect(typeof res.body.error).toBe("string");
  });
});
