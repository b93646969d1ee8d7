/**
 * The provider's endpoints a person's browser is sent to by a relying party (served by the oidc
 * group): authorise (OpenID Connect Core §3.1.2) and RP-initiated logout. They answer with
 * redirects and pages, and refuse with a page (html presenter) where the client cannot be told.
 */
import { Router, type Request, type Response } from "express";
import { maySignInTo } from "../../core/people/access";
import { AppError, ensure } from "../../core/errors";
import {
  authorizeStep,
  authorizeTarget,
  checkAuthorizeRequest,
  issueAuthorizationCode,
  type AuthorizeRequest,
  type AuthorizeTarget,
} from "../../core/oidc/authorize";
import { checkLogoutRequest, hintIsThisSignIn } from "../../core/oidc/logout";
import { logoutConfirmation, logoutConfirmed, pepperRing, type PepperKey } from "../../core/pepper";
import { endSession, type Principal } from "../../core/sessions/sessions";
import { clearSessionCookie, readSessionCookie } from "../../http/cookies";
import { confirmLogoutPage, signedOutOnwardPage, signedOutPage } from "../../http/logout-pages";
import { confirmReconnectPage, onToAppPage } from "../../http/reconnect-pages";
import { reconnectStep } from "../../core/oidc/disconnects";
import { consentStep } from "../../core/oidc/consents";
import { firstParty, type OidcClient } from "../../core/model/oidc-client";
import type { Person } from "../../core/model/person";
import { askConsentPage, refusedUnverifiedPage, waitingForReviewPage } from "../../http/consent-pages";
import { recordTry } from "../../core/oidc/client-review";
import * as consents from "../../store/oidc-consents";
import { findResource, mayAskFor } from "../../core/oidc/resources";
import type { Deps } from "../../core/deps";
import { readForm } from "../../http/body";
import { cookieSession, unavailableGuard } from "../../http/gate";
import { callerOf, requestHost } from "../../http/caller";
import { htmlErrors, oauthFields, presentWith } from "../../http/presenters";

const AUTHORIZE = "/auth/oidc/authorize";
const LOGOUT = "/auth/oidc/logout";

/** One value per parameter: a repeated one is ambiguous, and refused (RFC 6749 §3.1). */
function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  ensure(typeof value === "string" && value.length <= 2048, "oauth_invalid_request", `${name} must be given once`);
  return value;
}

/**
 * Where the identity host sends the person back: this very request as a GET (a POSTed one too),
 * less `prompt` and `max_age`, which the trip there has answered (asked again, a fresh sign-in
 * would be sent round forever). It comes back on the identity host, which serves this endpoint
 * too: the session cookie that the sign-in has just set lives on the parent domain, which the
 * issuer's host need not be in (the local stack's issuer is a loopback address a relying party
 * can reach).
 */
function returnUrl(idOrigin: string, raw: Record<string, unknown>): string {
  return `${idOrigin}${AUTHORIZE}?${new URLSearchParams(requestFields(raw))}`;
}

/** The request's own parameters, less those the trip has answered and a confirmation it carried. */
function requestFields(raw: Record<string, unknown>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw))
    if (typeof value === "string" && !ANSWERED.has(key)) fields[key] = value;
  return fields;
}

/** The request's `max_age`, as a field of its own, where it has one. */
const maxAgeOf = (raw: Record<string, unknown>): Record<string, string> =>
  typeof raw.max_age === "string" ? { max_age: raw.max_age } : {};

/** What a trip to the identity host answers, and what its pages' forms post back: never passed on. */
const ANSWERED = new Set(["prompt", "max_age", "reconnect", "consent", "answer"]);

const ERROR_DESCRIPTIONS = {
  login_required: "The person must sign in",
  access_denied: "The account may not sign in to this app",
  consent_required: "The person disconnected this app and must let it in again",
} as const;
/** Said instead, to an app that registered itself (core/oidc/consents). */
const CONSENT_DESCRIPTIONS = {
  consent_required: "The person must let this app in, on a page",
  access_denied: "The person did not let this app in",
} as const;

/** The host of the metadata document a client's id is, where it is one. */
const documentHostOf = (client: OidcClient): string | null =>
  client.registeredBy === "document" ? new URL(client.clientId).host : null;

function redirectTo(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== null) url.searchParams.set(key, value);
  return url.toString();
}

export function browserRoutes(deps: Deps): Router {
  const router = Router();
  const issuer = deps.config.serviceUrl;

  /**
   * The request's parameters for a known client at its registered URI, each given once and
   * checked; a refusal from here on goes back to the client: the address to send it to. A
   * `resource` (RFC 8707) must be one the operator registered, exactly, for this client
   * (core/oidc/resources).
   */
  async function requestOf(
    target: AuthorizeTarget,
    raw: Record<string, unknown>,
  ): Promise<AuthorizeRequest | { refusal: string }> {
    try {
      const named = single(raw.resource, "resource");
      const resource = named === undefined ? null : await findResource(deps, named);
      ensure(named === undefined || mayAskFor(resource, target.client), "oauth_invalid_target");
      return checkAuthorizeRequest(
        target,
        {
          responseType: single(raw.response_type, "response_type"),
          scope: single(raw.scope, "scope"),
          state: single(raw.state, "state"),
          nonce: single(raw.nonce, "nonce"),
          codeChallenge: single(raw.code_challenge, "code_challenge"),
          codeChallengeMethod: single(raw.code_challenge_method, "code_challenge_method"),
          prompt: single(raw.prompt, "prompt"),
          maxAge: single(raw.max_age, "max_age"),
          acrValues: single(raw.acr_values, "acr_values"),
          request: single(raw.request, "request"),
          requestUri: single(raw.request_uri, "request_uri"),
        },
        resource,
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const state = typeof raw.state === "string" ? raw.state : null;
      return { refusal: redirectTo(target.redirectUri, { ...oauthFields(err.code, err.detail), state, iss: issuer }) };
    }
  }

  /** The browser's session, as the authorise step weighs it for `request`; null when it holds none. */
  async function sessionOf(req: Request, { client, resource }: Pick<AuthorizeRequest, "client" | "resource">) {
    const { principal, person } = await cookieSession(deps, req);
    if (principal === null || person === null) return null;
    const { authTime, amr } = principal;
    // Approved, and granted the client's project, and the resource's, where they name one.
    const approved = maySignInTo(person, client) && (resource === null || maySignInTo(person, resource));
    return { principal, person, authTime, amr, approved };
  }

  /**
   * A refusal the client is to hear at its redirect URI: sent there at once for the operator's own
   * clients, and for a client that registered itself once the person of this browser has let it
   * in. Until then its redirect URI is only its registrant's word: the identity host does not
   * bounce a browser there by itself (RFC 9700 §4.11.2), but says on a page what went wrong.
   */
  async function sendRefusal(req: Request, res: Response, target: AuthorizeTarget, to: string): Promise<void> {
    if (firstParty(target.client)) return void res.redirect(302, to);
    const { person } = await cookieSession(deps, req);
    const letIn =
      person !== null &&
      (await consents.ofPerson(deps.store, person.id)).some((c) => c.clientId === target.client.clientId);
    if (letIn) return void res.redirect(302, to);
    const said = new URL(to).searchParams;
    refusedUnverifiedPage(res, {
      app: target.client.name,
      redirectUri: target.redirectUri,
      error: said.get("error") ?? "invalid_request",
      description: said.get("error_description"),
    });
  }

  /**
   * The identity host's sign-in page, which signs the person in (afresh, when `prompt` says so;
   * with a passkey only, when the class asked for needs one) and sends them back to this request.
   */
  function signInPage(step: { prompt: string | null; passkey: boolean }, raw: Record<string, unknown>): string {
    const back = encodeURIComponent(returnUrl(new URL(deps.config.idUrl).origin, raw));
    const prompt = step.prompt === null ? "" : `&prompt=${encodeURIComponent(step.prompt)}`;
    return `${deps.config.idUrl}/?redirect=${back}${prompt}${step.passkey ? "&require=passkey" : ""}`;
  }

  /**
   * The authorise endpoint, by GET (query) or POST (form), as OpenID Connect Core §3.1.2.1 asks.
   * Refusals about the client or its redirect URI are a page; the rest go back to the client.
   */
  async function authorize(req: Request, res: Response, raw: Record<string, unknown>) {
    const target = await authorizeTarget(
      deps,
      single(raw.client_id, "client_id"),
      single(raw.redirect_uri, "redirect_uri"),
      callerOf(req, deps.config.clientAddressHops),
    );
    if (target.client.review === "waiting") return waitingForReview(req, res, target, raw);
    const request = await requestOf(target, raw);
    if ("refusal" in request) return sendRefusal(req, res, target, request.refusal);
    const step = authorizeStep(request, await sessionOf(req, request), deps.clock.now());
    if (step.kind === "sign-in") return void res.redirect(302, signInPage(step, raw));
    // A valid request the person may not complete (or, with prompt=none, not without a page): the client hears it, as OAuth says.
    const refuse = (error: keyof typeof ERROR_DESCRIPTIONS) =>
      sendRefusal(
        req,
        res,
        request,
        redirectTo(request.redirectUri, {
          error,
          error_description: ERROR_DESCRIPTIONS[error],
          state: request.state,
          iss: issuer,
        }),
      );
    if (step.kind === "error") return refuse(step.error);
    const { person, principal } = step.session;
    if (!firstParty(request.client)) return askedConsent(req, res, raw, request, step.session);
    // The person's press on the page below: a form post with the confirmation it carries.
    const pressed = req.method === "POST" ? (single(raw.reconnect, "reconnect") ?? null) : null;
    const reconnect = await reconnectStep(
      deps,
      { personId: person.id, sessionKey: principal.sessionKey ?? principal.uid },
      request.client.clientId,
      pressed,
    );
    if (reconnect.kind === "ask") {
      if (request.prompt.none) return refuse("consent_required");
      const idOrigin = new URL(deps.config.idUrl).origin;
      // Asked on the identity host alone, whose form-action lets the page's form post to it.
      if (requestHost(req) !== new URL(idOrigin).host) return void res.redirect(302, returnUrl(idOrigin, raw));
      return void confirmReconnectPage(res, {
        app: request.client.name,
        signedInAs: person.emails[0] ?? person.name,
        idUrl: deps.config.idUrl,
        action: AUTHORIZE,
        fields: { ...requestFields(raw), reconnect: reconnect.confirmation },
      });
    }
    const code = await issueAuthorizationCode(deps, request, person, principal);
    const to = redirectTo(request.redirectUri, { code, state: request.state, iss: issuer });
    // The press was a form post: a page of ours goes on (http/reconnect-pages), also for a second press.
    if (pressed !== null) return void onToAppPage(res, { app: request.client.name, to });
    res.redirect(302, to);
  }
  /**
   * A client that waits for a reviewer gets nothing, and its redirect URI is not used: the person
   * is signed in first (so that they can be told), recorded as one who tried it, and shown a page.
   */
  async function waitingForReview(req: Request, res: Response, target: AuthorizeTarget, raw: Record<string, unknown>) {
    const { person } = await cookieSession(deps, req);
    if (person === null) return void res.redirect(302, signInPage({ prompt: null, passkey: false }, raw));
    const signedInAs = person.emails[0] ?? null;
    // Promised a mail only when kept among those to tell: the list is bounded, and may be full.
    const told = signedInAs !== null && (await recordTry(deps, target.client.clientId, person.id));
    waitingForReviewPage(res, {
      app: target.client.name,
      documentHost: documentHostOf(target.client),
      signedInAs: signedInAs ?? person.name,
      told,
    });
  }

  /**
   * The rest of the authorise step for an app that registered itself: the person's consent
   * (core/oidc/consents), asked on the identity host alone, whose form-action lets the page's form
   * post to it; then the code. A yes or a no was a form post: a page of ours goes on to the app.
   */
  async function askedConsent(
    req: Request,
    res: Response,
    raw: Record<string, unknown>,
    request: AuthorizeRequest,
    { person, principal }: { person: Person; principal: Principal },
  ) {
    const posted = req.method === "POST" ? single(raw.consent, "consent") : undefined;
    const answer =
      posted === undefined ? null : { confirmation: posted, allow: single(raw.answer, "answer") === "allow" };
    const sessionKey = principal.sessionKey ?? principal.uid;
    const consent = await consentStep(
      deps,
      { personId: person.id, sessionKey, authTime: principal.authTime },
      { ...request, askAgain: request.prompt.consent },
      answer,
    );
    const back = (params: Record<string, string | null>) =>
      redirectTo(request.redirectUri, { ...params, state: request.state, iss: issuer });
    const refusal = (error: keyof typeof CONSENT_DESCRIPTIONS) =>
      back({ error, error_description: CONSENT_DESCRIPTIONS[error] });
    if (consent.kind === "refused")
      return void onToAppPage(res, { app: request.client.name, to: refusal("access_denied") });
    if (consent.kind === "step-up" || consent.kind === "ask") {
      if (request.prompt.none) return sendRefusal(req, res, request, refusal("consent_required"));
      // A yes to acting while the person is away is asked of a fresh sign-in.
      if (consent.kind === "step-up")
        return void res.redirect(302, signInPage({ prompt: "login", passkey: false }, raw));
      const idOrigin = new URL(deps.config.idUrl).origin;
      if (requestHost(req) !== new URL(idOrigin).host) return void res.redirect(302, returnUrl(idOrigin, raw));
      return void askConsentPage(res, {
        app: request.client.name,
        redirectUri: request.redirectUri,
        signedInAs: person.emails[0] ?? person.name,
        resource: request.resource,
        scopes: request.scopes,
        documentHost: documentHostOf(request.client),
        idUrl: deps.config.idUrl,
        action: AUTHORIZE,
        // max_age too: the yes may come long after the page, and the sign-in must still be recent enough.
        fields: { ...requestFields(raw), ...maxAgeOf(raw), consent: consent.confirmation },
      });
    }
    const code = await issueAuthorizationCode(deps, request, person, principal);
    const to = back({ code });
    if (consent.kind === "given") return void onToAppPage(res, { app: request.client.name, to });
    res.redirect(302, to);
  }

  router.get(AUTHORIZE, presentWith(htmlErrors), (req: Request, res: Response) => authorize(req, res, req.query));
  // A form post from the relying party's page. It carries no Lax cookie cross-site, so a person
  // signed in is sent through the identity host and back here by GET, where the cookie comes.
  router.post(AUTHORIZE, presentWith(htmlErrors), async (req: Request, res: Response) =>
    authorize(req, res, await readForm(req)),
  );

  /**
   * RP-initiated logout (core/oidc/logout), by GET or by a form POST, the confirmation page's
   * among them. The sign-in lives in the parent domain's cookie, which the issuer's host need not
   * receive: a request that brings none is sent once to the identity host (`via`), where it does;
   * one that still brings none has nothing to end, and goes on to where it asked to go.
   */
  async function endSessionHere(req: Request, res: Response, raw: Record<string, unknown>) {
    const params = {
      idTokenHint: single(raw.id_token_hint, "id_token_hint"),
      clientId: single(raw.client_id, "client_id"),
      postLogoutRedirectUri: single(raw.post_logout_redirect_uri, "post_logout_redirect_uri"),
      state: single(raw.state, "state"),
    };
    const request = await checkLogoutRequest(deps, params);
    const confirm = single(raw.confirm, "confirm");
    // The confirmation page's own post goes on by a page of ours (http/logout-pages): the host's
    // form-action would hold a redirect to the app.
    const fromOurForm = req.method === "POST" && confirm !== undefined;
    const onward = () =>
      request.returnTo === null
        ? signedOutPage(res, deps.config.idUrl)
        : fromOurForm
          ? signedOutOnwardPage(res, { app: request.client?.name ?? null, to: request.returnTo })
          : res.redirect(303, request.returnTo);
    const asked = Object.fromEntries(
      Object.entries({
        id_token_hint: params.idTokenHint,
        client_id: params.clientId,
        post_logout_redirect_uri: params.postLogoutRedirectUri,
        state: params.state,
      }).filter((e): e is [string, string] => e[1] !== undefined),
    );
    const { principal, person } = await cookieSession(deps, req);
    if (principal === null || person === null) {
      if (single(raw.via, "via") === undefined)
        return void res.redirect(
          303,
          `${deps.config.idUrl}${LOGOUT}?${new URLSearchParams({ ...asked, via: "issuer" })}`,
        );
      return void onward();
    }
    const sessionKey = principal.sessionKey ?? principal.uid;
    const confirmed = fromOurForm && logoutConfirmed(pepperRing(deps), sessionKey, confirm);
    // A hint issued from this very sign-in is the app's word that they asked; anything less, the person's.
    const hinted = hintIsThisSignIn(deps, request.hint, { personId: person.id, sessionKey: principal.sessionKey });
    if (!confirmed && !hinted)
      return void confirmLogoutPage(res, {
        app: request.client?.name ?? null,
        signedInAs: person.emails[0] ?? person.name,
        idUrl: deps.config.idUrl,
        action: LOGOUT,
        fields: { ...asked, via: "issuer", confirm: logoutConfirmation(pepperRing(deps)[0] as PepperKey, sessionKey) },
      });
    for (const cookie of readSessionCookie(req).all) await endSession(deps, cookie, unavailableGuard(deps));
    clearSessionCookie(res, deps.config.parentDomain);
    onward();
  }
  router.get(LOGOUT, presentWith(htmlErrors), (req: Request, res: Response) => endSessionHere(req, res, req.query));
  router.post(LOGOUT, presentWith(htmlErrors), async (req: Request, res: Response) =>
    endSessionHere(req, res, await readForm(req)),
  );

  return router;
}
