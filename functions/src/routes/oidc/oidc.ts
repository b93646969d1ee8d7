/**
 * The oidc group: the OpenID Connect provider's endpoints for relying parties (discovery, the
 * keys, registration, token, revocation, introspection, userinfo), which speak OAuth JSON; and, mounted beside
 * them, those a person's browser is sent to (browser.ts: authorise, logout).
 */
import { Router, type Request, type Response } from "express";
import { AppError, ensure } from "../../core/errors";
import { discovery } from "../../core/oidc/discovery";
import { tokenExchange } from "../../core/oidc/grant-types";
import { authenticateClient, authenticatePublicClient } from "../../core/oidc/clients";
import { ensureRegistrationOpen, registerSelf } from "../../core/oidc/registration";
import { revokeToken } from "../../core/oidc/refresh";
import { userinfo } from "../../core/oidc/userinfo";
import { introspect } from "../../core/oidc/introspection";
import type { Deps } from "../../core/deps";
import { basicCredentials } from "../../http/basic";
import { isForm, readForm, readJson } from "../../http/body";
import { bearerToken } from "../../http/gate";
import { callerOf } from "../../http/caller";
import { oauthErrors } from "../../http/presenters";
import { browserRoutes } from "./browser";

/** The provider's endpoints speak OAuth JSON; the browser's, pages, refuse with HTML (browser.ts). */
export const presenter = oauthErrors;

export function routes(deps: Deps): Router {
  const router = Router();
  const issuer = deps.config.serviceUrl;
  const registration = deps.config.oidcRegistration.policy;
  const exchange = tokenExchange(deps);
  router.use(browserRoutes(deps));

  // Public, and the same for everyone: relying parties may cache them. The OAuth 2.0 server
  // metadata (RFC 8414), which OAuth clients such as agents look for, is the same document.
  router.get("/.well-known/openid-configuration", function openidConfiguration(_req: Request, res: Response) {
    res.setHeader("Cache-Control", "public, max-age=3600");
    res.json(discovery(issuer, registration));
  });
  router.get("/.well-known/oauth-authorization-server", function serverMetadata(_req: Request, res: Response) {
    res.setHeader("Cache-Control", "public, max-age=3600");
    res.json(discovery(issuer, registration));
  });
  router.get("/auth/oidc/jwks", function jwks(_req: Request, res: Response) {
    // A key added to the ring reaches relying parties within five minutes (most also refetch on an unknown kid).
    res.setHeader("Cache-Control", "public, max-age=300");
    res.json(deps.tokens.publicJwks());
  });

  /**
   * The client a token, revocation or introspection request authenticates as: one method per
   * request (RFC 6749 §2.3). With no secret at all, a public client by its client_id alone where
   * `publicAllowed` (the token and revocation endpoints, RFC 6749 §4.1.3, RFC 7009 §2.1).
   */
  async function clientOf(req: Request, form: Record<string, string>, publicAllowed = false) {
    const basic = basicCredentials(req, "oauth_invalid_client");
    // A client_id beside Basic must agree.
    if (basic)
      ensure(
        form.client_secret === undefined && (form.client_id === undefined || form.client_id === basic.id),
        "oauth_invalid_request",
        "use one client authentication method",
      );
    const clientId = basic?.id ?? form.client_id;
    const secret = basic?.secret ?? form.client_secret;
    ensure(clientId, "oauth_invalid_client");
    if (secret === undefined && publicAllowed) return authenticatePublicClient(deps, clientId);
    ensure(secret, "oauth_invalid_client");
    const caller = callerOf(req, deps.config.clientAddressHops).client;
    return authenticateClient(deps, clientId, secret, caller);
  }

  // The grant types, and what each asks of the form, are core's (core/oidc/grant-types).
  router.post("/auth/oidc/token", async function token(req: Request, res: Response) {
    const form = await readForm(req);
    const client = await clientOf(req, form, true);
    const tokens = await exchange(client, form);
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Pragma", "no-cache");
    res.json(tokens);
  });

  // Token revocation (RFC 7009): the client authenticates as at the token endpoint. A token that
  // is unknown or already ended is answered 200 as one just revoked (§2.2); the hint is not needed.
  router.post("/auth/oidc/revoke", async function revoke(req: Request, res: Response) {
    const form = await readForm(req);
    const client = await clientOf(req, form, true);
    ensure(form.token, "oauth_invalid_request", "token is required");
    await revokeToken(deps, client, form.token);
    res.setHeader("Cache-Control", "no-store");
    res.status(200).end();
  });

  // Token introspection (RFC 7662): the client authenticates as at the token endpoint, and learns
  // of its own tokens alone; any other answers `{ "active": false }` (core/oidc/introspection).
  router.post("/auth/oidc/introspect", async function introspection(req: Request, res: Response) {
    const form = await readForm(req);
    const client = await clientOf(req, form);
    ensure(form.token, "oauth_invalid_request", "token is required");
    const answer = await introspect(deps, client, form.token);
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Pragma", "no-cache");
    res.json(answer);
  });

  // Dynamic client registration (RFC 7591), where the operator's policy lets clients register
  // (core/oidc/registration). The policy is asked first: a closed provider reads no body.
  router.post("/auth/oidc/register", async function register(req: Request, res: Response) {
    ensureRegistrationOpen(deps);
    const body = await readJson(req).catch((err: unknown) => {
      // A body that is no JSON object is metadata this provider cannot take, in RFC 7591's words.
      if (err instanceof AppError && err.code === "malformed_json")
        throw new AppError("oauth_invalid_client_metadata", "The body must be a JSON object");
      throw err;
    });
    const answer = await registerSelf(deps, body, callerOf(req, deps.config.clientAddressHops));
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Pragma", "no-cache");
    res.status(201).json(answer);
  });

  // The access token in the Authorization header, or in a POSTed form's `access_token`
  // (RFC 6750 §2.1, §2.2); never both, and never in the query (§2.3 is not offered).
  async function userinfoEndpoint(req: Request, res: Response) {
    const header = bearerToken(req);
    const form = req.method === "POST" && isForm(req) ? await readForm(req) : {};
    ensure(
      header === null || form.access_token === undefined,
      "oauth_invalid_request",
      "send the access token one way only",
    );
    const presented = header ?? form.access_token ?? null;
    ensure(presented, "oauth_invalid_token", "An access token is required");
    res.json(await userinfo(deps, presented));
  }
  router.get("/auth/oidc/userinfo", userinfoEndpoint);
  router.post("/auth/oidc/userinfo", userinfoEndpoint);

  return router;
}
