/**
 * The service's one error catalogue. Code throws `new AppError(code)` or `ensure(cond, code)`;
 * the presenters (http/presenters.ts) and the operator CLI answer it with its row below, and a
 * code must have a row to exist at all.
 */
import { PAST_STEP_UP, STEP_UP_MINUTES } from "./model/step-up";

/**
 * How one refusal is answered: the contract's status and message, and what else its body carries.
 * `reason` is the machine-readable word beside the message: the contract's approval vocabulary
 * (`pending`, `rejected`, `no_project_access`, `phone_not_linked`), and for the email-code, verify
 * and hand-off refusals a word of their own (docs/endpoints/README.md), which clients and the
 * identity host's pages branch on. The message is for people, and may change.
 */
export interface ErrorRow {
  status: number;
  message: string;
  reason?: string;
  /** Further fields the contract puts in this refusal's body, e.g. `approved: false`. */
  fields?: Record<string, unknown>;
  /** The OAuth error code, for the OIDC provider's endpoints (RFC 6749 §5.2, RFC 6750 §3.1). */
  oauth?: string;
}

/**
 * Every refusal the service gives, by name, and how it is answered: one row per code. The code
 * names it (`ErrorCode`, the table's keys); the core throws it, the HTTP presenters and the
 * operator CLI answer with its row, and the identity host's pages branch on its `reason`.
 */
export const errorTable = {
  // request shape (shared by every JSON endpoint)
  unknown_field: { status: 400, message: "Unknown field in the body", reason: "unknown_field" },
  malformed_json: { status: 400, message: "Malformed JSON body" },
  malformed_request: { status: 400, message: "Malformed request" },
  body_too_large: { status: 413, message: "Request body too large" },
  unsupported_media_type: { status: 415, message: "Content-Type must be application/json" },
  origin_not_allowed: { status: 403, message: "Origin not allowed" },
  not_found: { status: 404, message: "Not found" },
  method_not_allowed: { status: 405, message: "Method not allowed" },
  internal: { status: 500, message: "Internal error" },
  service_unavailable: { status: 503, message: "Service unavailable" },

  // sessions
  verify_fields_required: { status: 400, message: "idToken and project required", reason: "fields_required" },
  invalid_token: { status: 401, message: "Invalid token", reason: "invalid_token" },
  sign_in_too_old: { status: 401, message: "Sign-in is too old; please sign in again", reason: "sign_in_too_old" },
  phone_not_linked: {
    status: 403,
    message: "That phone number is not on any account",
    reason: "phone_not_linked",
    fields: { approved: false },
  },
  missing_params: { status: 400, message: "missing params" },
  session_not_found: { status: 404, message: "Session not found" },
  app_not_found: { status: 404, message: "This app is not signed in to the account" },

  // exchange codes
  code_required: { status: 400, message: "code required" },
  invalid_code: { status: 401, message: "Invalid code" },
  code_used: { status: 401, message: "Code already used" },
  code_expired: { status: 401, message: "Code expired" },
  exchange_person_not_found: { status: 401, message: "Person not found" },
  exchange_pending: { status: 403, message: "Account not approved", reason: "pending" },
  exchange_rejected: { status: 403, message: "Account not approved", reason: "rejected" },
  exchange_verifier_invalid: { status: 400, message: "code_verifier must be 43 to 128 unreserved characters" },

  // hand-off to an app outside the parent domain
  handoff_fields_required: {
    status: 400,
    message: "app and redirect_uri required; state at most 512 characters",
    reason: "fields_required",
  },
  handoff_unknown_app: { status: 400, message: "Unknown app", reason: "unknown_app" },
  handoff_redirect_not_registered: {
    status: 400,
    message: "redirect_uri is not registered for this app",
    reason: "redirect_not_registered",
  },
  handoff_pkce_required: {
    status: 400,
    message: "code_challenge with code_challenge_method S256 is required",
    reason: "pkce_required",
  },

  // gated endpoints
  unauthorized: { status: 401, message: "Unauthorized" },
  forbidden: { status: 403, message: "Forbidden" },
  forbidden_pending: { status: 403, message: "Forbidden", reason: "pending" },
  forbidden_rejected: { status: 403, message: "Forbidden", reason: "rejected" },
  authorization_unavailable: { status: 503, message: "Authorization unavailable" },

  // start page
  invalid_notification: {
    status: 400,
    message: "title and body are required; link must be https; level info, warning or critical",
  },
  invalid_query: { status: 400, message: "Invalid request parameters" },

  // email codes (checkErrors, the verify endpoint's presenter, adds `valid: false` to its 400s)
  email_invalid: { status: 400, message: "A valid email is required", reason: "email_invalid" },
  email_code_purpose_invalid: {
    status: 400,
    message: "purpose must be signin or request-access",
    reason: "purpose_invalid",
  },
  email_code_resend_too_soon: {
    status: 429,
    message: "A code was just sent. Please wait a minute.",
    reason: "resend_too_soon",
  },
  email_code_hourly_limit: {
    status: 429,
    message: "Too many codes requested. Try again later.",
    reason: "hourly_limit",
  },
  email_code_client_budget: {
    status: 429,
    message: "Too many codes requested from this network. Try again later.",
    reason: "client_budget",
  },
  email_code_request_budget: {
    status: 429,
    message: "Too many requests for access from this network. Try again later.",
    reason: "request_budget",
  },
  email_code_service_budget: {
    status: 429,
    message: "Too many codes are being requested right now. Try again in a minute.",
    reason: "service_budget",
  },
  email_code_domain_budget: {
    status: 429,
    message: "Too many codes have been requested for addresses at this domain. Try again later.",
    reason: "domain_budget",
  },
  email_code_address_locked: {
    status: 429,
    message: "Too many failed attempts for this address. Try again later.",
    reason: "address_locked",
  },
  email_not_configured: { status: 503, message: "Email is not configured", reason: "email_not_configured" },
  email_code_fields_required: {
    status: 400,
    message: "email and otp required; purpose must be signin or request-access",
    reason: "fields_required",
  },
  request_details_invalid: {
    status: 400,
    message: "name (at most 100 characters) and note (at most 500) are text, and go with purpose request-access",
    reason: "details_invalid",
  },
  email_code_invalid: { status: 400, message: "Invalid code", reason: "code_invalid" },
  email_code_malformed: { status: 400, message: "A code is six digits", reason: "code_malformed" },
  email_code_expired: { status: 400, message: "That code expired. Request a new one.", reason: "code_expired" },
  email_code_exhausted: { status: 400, message: "Too many attempts. Request a new code.", reason: "code_exhausted" },
  signin_fields_required: { status: 400, message: "email and otp required", reason: "fields_required" },
  signin_no_account: { status: 403, message: "No account for that address", reason: "no_account" },
  signin_pending: { status: 403, message: "Your account is pending", reason: "pending" },
  signin_rejected: { status: 403, message: "Your account was not approved", reason: "rejected" },
  signin_failed: { status: 500, message: "Sign-in failed", reason: "signin_failed" },

  // OpenID Connect provider: `message` is the error_description
  oauth_invalid_client: { status: 401, message: "Client authentication failed", oauth: "invalid_client" },
  oauth_client_throttled: {
    status: 429,
    message: "Too many failed client authentications from this caller; try again later",
    oauth: "temporarily_unavailable",
  },
  oauth_invalid_request: {
    status: 400,
    message: "A required parameter is missing or malformed",
    oauth: "invalid_request",
  },
  oauth_unknown_client: { status: 400, message: "Unknown client", oauth: "invalid_client" },
  oauth_redirect_not_registered: {
    status: 400,
    message: "redirect_uri is not registered for this client",
    oauth: "invalid_request",
  },
  oauth_pkce_required: {
    status: 400,
    message: "code_challenge with code_challenge_method S256 is required",
    oauth: "invalid_request",
  },
  oauth_invalid_target: {
    status: 400,
    message: "resource names no resource registered with this provider, or not the one granted",
    oauth: "invalid_target",
  },
  oauth_invalid_scope: {
    status: 400,
    message: "scope holds a value that is not a scope token",
    oauth: "invalid_scope",
  },
  oauth_request_not_supported: {
    status: 400,
    message: "Request objects are not supported",
    oauth: "request_not_supported",
  },
  oauth_request_uri_not_supported: {
    status: 400,
    message: "request_uri is not supported",
    oauth: "request_uri_not_supported",
  },
  oauth_unsupported_response_type: {
    status: 400,
    message: "Only response_type code is supported",
    oauth: "unsupported_response_type",
  },
  oauth_unsupported_grant_type: {
    status: 400,
    message: "Only grant_type authorization_code is supported",
    oauth: "unsupported_grant_type",
  },
  oauth_invalid_grant: {
    status: 400,
    message: "The authorization code is invalid, expired, used, or was issued to another client or redirect URI",
    oauth: "invalid_grant",
  },
  oauth_invalid_refresh_token: {
    status: 400,
    message: "The refresh token is invalid, expired, revoked, or was issued to another client",
    oauth: "invalid_grant",
  },
  oidc_logout_invalid_hint: {
    status: 400,
    message: "id_token_hint is not an ID token this provider issued",
    oauth: "invalid_request",
  },
  oidc_logout_uri_not_registered: {
    status: 400,
    message: "post_logout_redirect_uri is not registered for this client",
    oauth: "invalid_request",
  },
  oauth_invalid_token: { status: 401, message: "The access token is unknown or expired", oauth: "invalid_token" },
  // Clients registering themselves (RFC 7591 §3.2.2), where the operator's policy lets them
  oauth_registration_closed: {
    status: 403,
    message: "Clients are registered by the operator; this provider takes no registrations",
    oauth: "access_denied",
  },
  oauth_invalid_client_metadata: {
    status: 400,
    message: "The client metadata is missing a field or holds a value this provider does not take",
    oauth: "invalid_client_metadata",
  },
  oauth_invalid_redirect_uri: {
    status: 400,
    message: "redirect_uris must hold 1 to 10 https URIs, or http URIs on 127.0.0.1 or [::1], without fragments",
    oauth: "invalid_redirect_uri",
  },
  oauth_client_document: {
    status: 400,
    message: "The app's metadata document could not be used",
    oauth: "invalid_client",
  },
  oauth_registration_budget: {
    status: 429,
    message: "Too many clients registered from here this hour; try again later",
    oauth: "temporarily_unavailable",
  },
  oauth_server_error: { status: 500, message: "Token signing failed", oauth: "server_error" },

  // bridges (HTML pages)
  bridge_unknown_provider: { status: 404, message: "There is no such sign-in provider" },
  bridge_disabled: { status: 503, message: "Sign-in with this provider is not available" },
  bridge_redirect_not_allowed: { status: 400, message: "The address to return to after sign-in is not allowed" },
  bridge_idp_invalid: { status: 400, message: "There is no such sign-in option" },
  bridge_state_invalid: {
    status: 400,
    message: "This sign-in has expired or was not started here. Please start again.",
  },
  bridge_not_confirmed: { status: 401, message: "The provider did not confirm the sign-in" },
  bridge_no_account_id: { status: 502, message: "The provider did not say which account signed in" },
  bridge_provider_failed: {
    status: 500,
    message: "Sign-in failed: the provider could not be reached. Please try again.",
  },
  bridge_failed: { status: 500, message: "Sign-in failed. Please try again." },

  // the identity provider's claims callback
  idp_not_configured: { status: 503, message: "The claims callback is not configured" },
  idp_signature_missing: { status: 401, message: "Missing or malformed Idp-Signature header" },
  idp_signature_stale: { status: 401, message: "Idp-Signature timestamp is outside the tolerance" },
  idp_signature_invalid: { status: 401, message: "Idp-Signature does not match" },
  idp_claims_fields: { status: 400, message: "uid is required; email must be a string and emailVerified a boolean" },

  // security notices
  notice_choice_invalid: { status: 400, message: "newBrowser must be true or false" },

  // passkeys
  passkey_fields_required: { status: 400, message: "credential required" },
  passkey_name_invalid: { status: 400, message: "name must be 1 to 60 characters" },
  // A valid session, too old for this: sign in again (the contract's 401 means a new credential).
  passkey_sign_in_too_old: {
    status: 401,
    message: `Sign in again to add a passkey: the sign-in must be from the last ${STEP_UP_MINUTES} minutes`,
    reason: "sign_in_too_old",
  },
  passkey_removal_too_old: {
    status: 401,
    message: `Sign in again to remove a passkey: the sign-in must be from the last ${STEP_UP_MINUTES} minutes`,
    reason: "sign_in_too_old",
  },
  passkey_challenge_invalid: {
    status: 400,
    message: "This passkey request has expired or was not started here. Please start again.",
  },
  passkey_registration_failed: { status: 400, message: "The passkey could not be added" },
  passkey_exists: { status: 409, message: "This passkey is already registered" },
  passkey_limit: { status: 409, message: "This account holds as many passkeys as it may; remove one first" },
  // Every refusal of an assertion alike: unknown, removed, suspect, another person's, or not verifying.
  passkey_not_accepted: { status: 401, message: "That passkey wasn't accepted" },
  passkey_not_found: { status: 404, message: "Passkey not found" },
  // recovery codes (core/passkeys/recovery-codes): every refusal of a wrong, used or unknown code alike
  recovery_code_invalid: { status: 400, message: "That recovery code wasn't accepted", reason: "code_invalid" },
  recovery_code_malformed: {
    status: 400,
    message: "A recovery code is ten letters and digits",
    reason: "code_malformed",
  },
  recovery_fields_required: { status: 400, message: "email and code required", reason: "fields_required" },
  recovery_code_budget: {
    status: 429,
    message: "Too many recovery codes were tried from this network. Try again later.",
    reason: "recovery_budget",
  },

  // people administration
  person_not_found: { status: 404, message: "Person not found" },
  invalid_person_change: { status: 400, message: "Invalid change" },
  invalid_people_query: { status: 400, message: "Invalid query" },
  person_conflict: { status: 409, message: "An email or phone number is already on another person" },
  last_admin: { status: 409, message: "The last approved administrator cannot be removed" },
  admin_exists: {
    status: 409,
    message: "an admin already exists: bootstrap-admin only makes the first one (use `people make-admin`)",
  },
  client_exists: {
    status: 409,
    message: "That OpenID Connect client is already registered (rotate its secret instead)",
  },
  client_not_found: { status: 404, message: "No such OpenID Connect client" },
  client_not_self_registered: {
    status: 409,
    message: "The operator's own clients are not reviewed: disable or enable them instead",
  },
  client_grant_type_unknown: { status: 400, message: "The token endpoint takes no such grant type" },
  resource_url_invalid: {
    status: 400,
    message: "A resource is an absolute https URL (http on a loopback host) with no query, fragment or credentials",
  },
  resource_name_invalid: { status: 400, message: "A resource's name is 1 to 100 characters" },
  resource_scope_invalid: { status: 400, message: "Invalid scope for a resource" },
  resource_exists: { status: 409, message: "That resource is already registered" },
  resource_not_found: { status: 404, message: "No such resource" },

  // a resource of the family's own gate on the provider's access tokens (the MCP server)
  resource_token_missing: { status: 401, message: "A bearer access token for this resource is required" },
  resource_token_invalid: {
    status: 401,
    message: "The access token is not one for this resource, or no longer stands",
    oauth: "invalid_token",
  },
  resource_scope_insufficient: {
    status: 403,
    message: "The access token lacks a scope this needs",
    oauth: "insufficient_scope",
  },
  notification_not_found: { status: 404, message: "No such notification" },
  hook_invalid: { status: 400, message: "Invalid subscription" },
  hook_exists: { status: 409, message: "That app already has a subscription (rotate its secret, or remove it first)" },
  hook_not_found: { status: 404, message: "No such subscription" },
  invalid_invitation: { status: 400, message: "Invalid invitation" },
  invalid_invitation_file: { status: 400, message: "The file has rows that cannot be invited", reason: "bad_rows" },
  invitation_not_found: { status: 404, message: "No such invitation" },
  address_held: {
    status: 409,
    message: "That address is already on a person: change their access instead",
    reason: "address_held",
  },
  already_invited: {
    status: 409,
    message: "That address has an invitation already (send it again, or revoke it first)",
    reason: "already_invited",
  },
  invitation_just_sent: { status: 429, message: "That invitation was just sent. Try again in a few minutes." },
  // a person's own addresses (core/account/addresses)
  address_fields_required: { status: 400, message: "email and otp required", reason: "fields_required" },
  address_already_yours: {
    status: 409,
    message: "That address is already on your account",
    reason: "address_already_yours",
  },
  address_not_found: { status: 404, message: "That address is not on your account", reason: "address_not_found" },
  last_address: {
    status: 409,
    message: "Your only address cannot be removed: add another first",
    reason: "last_address",
  },
  // a person's own provider accounts (core/account/linked-accounts)
  account_not_found: {
    status: 404,
    message: "That sign-in is not linked to your account",
    reason: "account_not_found",
  },
  last_way_in: {
    status: 409,
    message: "That is your only way in: add an email address first",
    reason: "last_way_in",
  },
  step_up_required: {
    status: 403,
    message: `Confirm it's you: sign in again first (your sign-in is ${PAST_STEP_UP} old)`,
    reason: "step_up_required",
  },
  // The passkey rule (core/people/acting): an administrator acts as one only from a passkey sign-in.
  passkey_required: {
    status: 403,
    message: "Administrators act only from a sign-in with a passkey: sign in with yours, or add one",
    reason: "passkey_required",
  },
} as const satisfies Record<string, ErrorRow>;

/** Every `reason` a refusal can carry: what a client may branch on. */
export type Reason = {
  [C in keyof typeof errorTable]: (typeof errorTable)[C] extends { reason: infer R } ? R : never;
}[keyof typeof errorTable];

export function rowFor(code: ErrorCode): ErrorRow {
  return errorTable[code] as ErrorRow;
}

/** A refusal's name: a row of the catalogue. */
export type ErrorCode = keyof typeof errorTable;

export class AppError extends Error {
  readonly code: ErrorCode;
  /** Overrides the presenter's message, e.g. to name the field a request got wrong. */
  readonly detail: string | undefined;
  /** For a limit: whole seconds until asking again can succeed. */
  retryAfterSeconds: number | undefined;

  /** `cause`: what went wrong underneath, for the log; never shown. */
  constructor(code: ErrorCode, detail?: string, cause?: unknown) {
    super(detail ?? code, cause === undefined ? undefined : { cause });
    this.name = "AppError";
    this.code = code;
    this.detail = detail;
  }
}

/** A refusal by a limit that lifts at `retryAt`; rounded up, so asking again then succeeds. */
export function limitReached(code: ErrorCode, now: Date, retryAt: Date): AppError {
  const error = new AppError(code);
  error.retryAfterSeconds = Math.max(1, Math.ceil((retryAt.getTime() - now.getTime()) / 1000));
  return error;
}

export function ensure(condition: unknown, code: ErrorCode, detail?: string): asserts condition {
  if (!condition) throw new AppError(code, detail);
}
