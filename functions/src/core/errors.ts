/**
 * The refusals the service gives, by name. Code throws `new AppError(code)` or
 * `ensure(cond, code)`; how each is answered (status, body) is the presenters' business
 * (http/errors.ts), and a code without a row there does not compile.
 */
export type ErrorCode =
  // request shape (shared by every JSON endpoint)
  | "malformed_json"
  | "malformed_request"
  | "body_too_large"
  | "unsupported_media_type"
  | "origin_not_allowed"
  | "not_found"
  | "method_not_allowed"
  | "internal"
  | "service_unavailable"

  // sessions
  | "verify_fields_required"
  | "invalid_token"
  | "sign_in_too_old"
  | "phone_not_linked"
  | "missing_params"
  | "session_not_found"

  // exchange codes
  | "code_required"
  | "invalid_code"
  | "code_used"
  | "code_expired"
  | "exchange_person_not_found"
  | "exchange_pending"
  | "exchange_rejected"
  | "exchange_verifier_invalid"

  // hand-off to an app outside the parent domain
  | "handoff_fields_required"
  | "handoff_unknown_app"
  | "handoff_redirect_not_registered"
  | "handoff_pkce_required"

  // gated endpoints
  | "unauthorized"
  | "forbidden"
  | "forbidden_pending"
  | "forbidden_rejected"
  | "authorization_unavailable"

  // start page
  | "invalid_notification"
  | "invalid_query"

  // email codes (checkErrors, the verify endpoint's presenter, adds `valid: false` to its 400s)
  | "email_invalid"
  | "otp_purpose_invalid"
  | "otp_resend_too_soon"
  | "otp_hourly_limit"
  | "otp_client_budget"
  | "otp_service_budget"
  | "otp_domain_budget"
  | "otp_address_locked"
  | "email_not_configured"
  | "otp_fields_required"
  | "request_details_invalid"
  | "email_code_invalid"
  | "email_code_malformed"
  | "unknown_field"
  | "email_code_expired"
  | "email_code_exhausted"
  | "signin_fields_required"
  | "signin_no_account"
  | "signin_pending"
  | "signin_rejected"
  | "signin_failed"

  // OpenID Connect provider: `message` is the error_description
  | "oauth_invalid_client"
  | "oauth_client_throttled"
  | "oauth_invalid_request"
  | "oauth_unknown_client"
  | "oauth_redirect_not_registered"
  | "oauth_pkce_required"
  | "oauth_invalid_scope"
  | "oauth_request_not_supported"
  | "oauth_request_uri_not_supported"
  | "oauth_unsupported_response_type"
  | "oauth_unsupported_grant_type"
  | "oauth_invalid_grant"
  | "oauth_invalid_token"
  | "oauth_server_error"

  // bridges (HTML pages)
  | "bridge_unknown_provider"
  | "bridge_disabled"
  | "bridge_redirect_not_allowed"
  | "bridge_idp_invalid"
  | "bridge_state_invalid"
  | "bridge_not_confirmed"
  | "bridge_no_account_id"
  | "bridge_provider_failed"
  | "bridge_failed"

  // the identity provider's claims callback
  | "idp_not_configured"
  | "idp_signature_missing"
  | "idp_signature_stale"
  | "idp_signature_invalid"
  | "idp_claims_fields"

  // security notices
  | "notice_choice_invalid"

  // passkeys
  | "passkey_fields_required"
  | "passkey_name_invalid"
  | "passkey_sign_in_too_old"
  | "passkey_challenge_invalid"
  | "passkey_registration_failed"
  | "passkey_exists"
  | "passkey_limit"
  | "passkey_not_accepted"
  | "passkey_not_found"

  // people administration
  | "person_not_found"
  | "invalid_person_change"
  | "invalid_people_query"
  | "person_conflict"
  | "last_admin"
  | "step_up_required"
  | "admin_exists"

  // OpenID Connect clients, as the operator registers them
  | "client_exists"
  | "client_not_found";

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
