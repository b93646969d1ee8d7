/**
 * Odd input to the endpoints of invitations, address changes and the OpenID Connect provider's
 * lifecycle (refresh, revocation, introspection, logout, the apps a person let in): each field of a good request
 * set in turn to a value of the wrong type, size or shape, odd ids in the path, odd queries, and
 * files that are not CSV. Every answer is the contract's: below 500, never a stack trace, and a
 * refusal in JSON carries an `error` string (the logout endpoint's refusals are pages). On a
 * project of this file's own.
 */
import request from "supertest";
import { transactionRunner } from "../../src/store/db";
import { registerClient } from "../../src/core/oidc/clients";
import * as oidc from "../../src/routes/oidc/oidc";
import * as otp from "../../src/routes/otp/otp";
import * as peopleRoutes from "../../src/routes/people/people";
import { signedUp } from "../support/auth";
import { appFor, testDeps, unique } from "../support/deps";
import { freshProject } from "../support/operator-cli";
import { personFor, sessionCookieFor } from "../support/people";

jest.setTimeout(300_000);

const { db } = freshProject();
const deps = testDeps({ store: db, transaction: transactionRunner(db) });
const peopleApp = appFor(peopleRoutes, deps);
const otpApp = appFor(otp, deps);
const oidcApp = appFor(oidc, deps);

/** Values of the wrong type, size or shape, and a few that look like something they are not. */
const ODD: unknown[] = [
  null,
  true,
  0,
  -1,
  3.5,
  "",
  " ",
  "x".repeat(5000),
  [],
  ["a", 1],
  {},
  { a: 1 },
  "a@b",
  "😀@x.test",
  "a\u0000b@x.test",
  "__proto__",
  "constructor",
  ["*"],
  [""],
  ["x".repeat(300)],
  "14",
  91,
  "admin",
];
const FIELDS = ["address", "name", "projects", "groups", "role", "note", "days", "email", "otp"];
const address = () => `${unique("odd")}@example.test`;
const shown = (v: unknown) => (JSON.stringify(v) ?? String(v)).slice(0, 40);

describe("odd input to invitations and address changes", () => {
  let cookie: string;
  const answers: string[] = [];
  /** What is wrong with an answer, or nothing. */
  const judge = (what: string, res: request.Response) => {
    const json = /json/.test(String(res.headers["content-type"]));
    if (res.status >= 500) answers.push(`${what}: ${res.status}`);
    else if (res.status >= 400 && json && typeof res.body?.error !== "string")
      answers.push(`${what}: ${res.status} no error`);
    else if (/\n\s+at .+[:(]/.test(res.text)) answers.push(`${what}: a stack trace`);
  };

  beforeAll(async () => {
    const account = await signedUp();
    const person = await personFor(account, { role: "admin", projects: ["*"], name: "Odd" }, db);
    cookie = await sessionCookieFor(deps, account.uid, person.id);
  });
  beforeEach(() => answers.splice(0));

  it("answers every odd field in a body with the contract's refusal, or takes it", async () => {
    // Sent as JSON text, so a body that is not an object goes as itself.
    const ask = (app: typeof peopleApp, path: string, body: unknown) =>
      request(app).post(path).set("Cookie", cookie).set("content-type", "application/json").send(JSON.stringify(body));
    for (const field of FIELDS)
      for (const value of ODD) {
        const at = `${field}=${shown(value)}`;
        judge(`invite ${at}`, await ask(peopleApp, "/auth/invitations", { address: address(), [field]: value }));
        judge(`add ${at}`, await ask(otpApp, "/auth/account/addresses", { email: address(), [field]: value }));
        judge(
          `confirm ${at}`,
          await ask(otpApp, "/auth/account/addresses/verify", { email: address(), otp: "123456", [field]: value }),
        );
        judge(
          `primary ${at}`,
          await ask(otpApp, "/auth/account/addresses/primary", { email: address(), [field]: value }),
        );
      }
    for (const body of [[], "text", 7, null])
      for (const path of ["/auth/invitations", "/auth/account/addresses", "/auth/account/addresses/verify"])
        judge(
          `${path} ${shown(body)}`,
          await ask(path.startsWith("/auth/invitations") ? peopleApp : otpApp, path, body),
        );
    expect(answers).toEqual([]);
  });

  it("answers odd ids, queries and files with the contract's refusal", async () => {
    for (const value of ODD) {
      const raw = typeof value === "string" ? value : JSON.stringify(value);
      const id = encodeURIComponent(raw);
      const as = (r: request.Test) => r.set("Cookie", cookie);
      judge(
        `list ${shown(raw)}`,
        await as(request(peopleApp).get("/auth/invitations").query({ cursor: raw, limit: raw })),
      );
      judge(`get ${shown(raw)}`, await as(request(peopleApp).get(`/auth/invitations/${id}`)));
      judge(`resend ${shown(raw)}`, await as(request(peopleApp).post(`/auth/invitations/${id}/resend`)));
      judge(`revoke ${shown(raw)}`, await as(request(peopleApp).delete(`/auth/invitations/${id}`)));
      judge(`remove ${shown(raw)}`, await as(request(otpApp).delete(`/auth/account/addresses/${id}`)));
      judge(
        `file row ${shown(raw)}`,
        await as(request(peopleApp).post(`/auth/invitations/file?dryRun=${id}`))
          .set("content-type", "text/csv")
          .send(`address,projects\n${raw},calendar\n`),
      );
    }
    const files = [
      "",
      "\uFEFF",
      "address\n",
      "a,b,c\n1,2,3",
      '"',
      'address,projects\n"unterminated,calendar\n',
      `address,projects\n${"x@y.test,calendar\n".repeat(6000)}`,
      'address,projects,name,groups\r\nq@y.test,"a;b","N""x",g\r\n',
    ];
    for (const file of files)
      judge(
        `file ${shown(file)}`,
        await request(peopleApp)
          .post("/auth/invitations/file?dryRun=true")
          .set("Cookie", cookie)
          .set("content-type", "text/csv")
          .send(file),
      );
    judge("file as JSON", await request(peopleApp).post("/auth/invitations/file").set("Cookie", cookie).send({ a: 1 }));
    expect(answers).toEqual([]);
  });

  it("answers odd parameters at the token, revocation, introspection and logout endpoints, and odd app ids", async () => {
    const clientId = unique("odd-client");
    const secret = "an-odd-input-client-secret-0123456789";
    await registerClient(deps, {
      clientId,
      clientSecret: secret,
      name: "Odd",
      redirectUris: ["https://odd.example.test/callback"],
      postLogoutRedirectUris: ["https://odd.example.test/bye"],
      grantTypes: ["authorization_code", "refresh_token"],
    });
    const basic = `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`;
    const form = (values: Record<string, unknown>) =>
      new URLSearchParams(
        Object.entries(values).map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)]),
      );
    const refresh = { grant_type: "refresh_token", refresh_token: "x".repeat(43), scope: "openid" };
    const revoke = { token: "x".repeat(43), token_type_hint: "refresh_token" };
    const logout = {
      client_id: clientId,
      post_logout_redirect_uri: "https://odd.example.test/bye",
      state: "s",
      id_token_hint: "a.b.c",
    };
    for (const value of ODD) {
      for (const field of Object.keys(refresh)) {
        const body = form({ ...refresh, [field]: value }).toString();
        judge(
          `token ${field}=${shown(value)}`,
          await request(oidcApp).post("/auth/oidc/token").set("Authorization", basic).type("form").send(body),
        );
      }
      for (const field of Object.keys(revoke)) {
        const body = form({ ...revoke, [field]: value }).toString();
        for (const path of ["/auth/oidc/revoke", "/auth/oidc/introspect"])
          judge(
            `${path} ${field}=${shown(value)}`,
            await request(oidcApp).post(path).set("Authorization", basic).type("form").send(body),
          );
      }
      for (const field of Object.keys(logout)) {
        const query = form({ ...logout, [field]: value });
        judge(`logout ${field}=${shown(value)}`, await request(oidcApp).get(`/auth/oidc/logout?${query}`));
        judge(
          `logout form ${field}=${shown(value)}`,
          await request(oidcApp).post("/auth/oidc/logout").set("Cookie", cookie).type("form").send(query.toString()),
        );
      }
      const raw = encodeURIComponent(typeof value === "string" ? value : JSON.stringify(value));
      judge(
        `disconnect ${shown(value)}`,
        await request(peopleApp).delete(`/auth/account/apps/${raw}`).set("Cookie", cookie),
      );
    }
    expect(answers).toEqual([]);
  });
});
