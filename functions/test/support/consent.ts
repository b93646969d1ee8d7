/**
 * The consent page of an app that registered itself (core/oidc/consents), as a test drives it: the
 * page's form fields, where the page that goes on to the app sends the browser, and the whole trip
 * from an authorise request on the identity host, through the person's yes, to the app's code.
 */
import type { Express } from "express";
import request from "supertest";
import { ID_URL } from "./deps";
import type { Deps } from "../../src/core/deps";
import type { OidcClient } from "../../src/core/model/oidc-client";
import { sha256 } from "../../src/core/secrets";
import * as clients from "../../src/store/oidc-clients";

export const ID_HOST = new URL(ID_URL).host;

/** The page's hidden form fields. */
export function formOf(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields[m[1] as string] = (m[2] as string).replace(/&amp;/g, "&").replace(/&quot;/g, '"');
  return fields;
}

/** Where a page of ours that goes on to the app (after a form post) sends the browser. */
export const onward = (html: string): URL => new URL((/url=([^"]+)"/.exec(html)?.[1] ?? "").replace(/&amp;/g, "&"));

/** The person's answer on the consent page: its form posted back to the authorise endpoint on the identity host. */
export const answerConsent = (app: Express, cookie: string, form: Record<string, string>) =>
  request(app)
    .post("/auth/oidc/authorize")
    .type("form")
    .set("Cookie", cookie)
    .set("X-Forwarded-Host", ID_HOST)
    .send(form);

/**
 * The authorise request `query` on the identity host for the person of `cookie`, let in on the
 * consent page if it is asked: the URL the browser ends at, the app's redirect URI with its code.
 */
export async function authorizedWithConsent(app: Express, cookie: string, query: URLSearchParams): Promise<URL> {
  const asked = await request(app)
    .get(`/auth/oidc/authorize?${query}`)
    .set("Cookie", cookie)
    .set("X-Forwarded-Host", ID_HOST);
  if (asked.status === 302) return new URL(asked.headers.location as string);
  expect(asked.status).toBe(200);
  const yes = await answerConsent(app, cookie, { ...formOf(asked.text), answer: "allow" });
  expect(yes.status).toBe(200);
  return onward(yes.text);
}

/**
 * Stores a client as one that registered itself is stored (core/oidc/registration), with a secret
 * of `secret` (Basic at the token endpoint): for tests of what such a client gets, apart from how
 * it registered. `fields` override the rest.
 */
export async function selfRegisteredClient(
  deps: Pick<Deps, "store" | "clock">,
  clientId: string,
  { secret, ...fields }: Partial<OidcClient> & { secret?: string } = {},
): Promise<void> {
  const now = deps.clock.now();
  await clients.save(deps.store, {
    clientId,
    name: "Agent",
    secrets: secret === undefined ? [] : [{ hash: sha256(secret), createdAt: now, expiresAt: null }],
    redirectUris: ["https://agent.example.test/callback"],
    postLogoutRedirectUris: [],
    backchannelLogoutUri: null,
    pkce: "required",
    refreshTokens: true,
    project: null,
    disabled: false,
    registeredBy: "self",
    tokenAuth: secret === undefined ? "none" : "client_secret_basic",
    triedBy: [],
    document: null,
    review: "approved",
    clientUri: null,
    logoUri: null,
    createdAt: now,
    ...fields,
  });
}

/**
 * A public client (PKCE, no secret) registered at `POST /auth/oidc/register` of `app`, as an
 * agent registers itself, named `name`, sending people to `redirectUri`, with refresh tokens: its
 * client_id. The registration must be taken (201).
 */
export async function registeredPublicClient(app: Express, redirectUri: string, name = "Notes"): Promise<string> {
  const res = await request(app)
    .post("/auth/oidc/register")
    .set("Content-Type", "application/json")
    .send(
      JSON.stringify({
        client_name: name,
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
      }),
    );
  expect(res.status).toBe(201);
  return res.body.client_id as string;
}
