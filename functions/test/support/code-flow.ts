/**
 * The authorization code flow as a relying party runs it against the provider's own app in the
 * test's process: the authorise step for the person of a session cookie, then the code's
 * redemption with the client's Basic credentials. What the token endpoint answers.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Express } from "express";
import request from "supertest";

export interface FlowClient {
  clientId: string;
  clientSecret: string;
}

export async function codeFlowTokens(
  app: Express,
  cookie: string,
  client: FlowClient,
  { scope = "openid", redirectUri, resource }: { scope?: string; redirectUri: string; resource?: string },
): Promise<{ id_token: string; access_token: string; refresh_token?: string }> {
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({
    client_id: client.clientId,
    redirect_uri: redirectUri,
    response_type: "code",
    scope,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    // RFC 8707: a token for one resource, asked for at the authorise step and again at redemption.
    ...(resource === undefined ? {} : { resource }),
  });
  const authorized = await request(app).get(`/auth/oidc/authorize?${query}`).set("Cookie", cookie);
  const code = new URL(authorized.headers.location as string).searchParams.get("code") as string;
  const res = await request(app)
    .post("/auth/oidc/token")
    .type("form")
    .auth(client.clientId, client.clientSecret)
    .send({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      ...(resource === undefined ? {} : { resource }),
    });
  expect(res.status).toBe(200);
  return res.body as { id_token: string; access_token: string; refresh_token?: string };
}
