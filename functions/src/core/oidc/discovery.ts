import { ACR_VALUES_SUPPORTED } from "./acr";
import { PROMPTS } from "./authorize";
import { SCOPES } from "./scopes";
import { GRANT_TYPE_NAMES } from "./grant-types";
import type { RegistrationPolicy } from "../settings";

/**
 * The discovery document (OpenID Connect Discovery 1.0 §3). Where clients may register
 * themselves (OIDC_REGISTRATION not `closed`), it names the registration endpoint, says that a
 * client_id may be the URL of the client's metadata document (core/oidc/metadata-documents), and
 * lists the public clients' `none` among the ways to authenticate; where they may not, none of it.
 */
export function discovery(issuer: string, registration: RegistrationPolicy = "closed"): Record<string, unknown> {
  const open = registration !== "closed";
  const secretAuth = ["client_secret_basic", "client_secret_post"];
  const tokenAuth = open ? [...secretAuth, "none"] : secretAuth;
  return {
    issuer,
    authorization_endpoint: `${issuer}/auth/oidc/authorize`,
    token_endpoint: `${issuer}/auth/oidc/token`,
    ...(open ? { registration_endpoint: `${issuer}/auth/oidc/register` } : {}),
    client_id_metadata_document_supported: open,
    userinfo_endpoint: `${issuer}/auth/oidc/userinfo`,
    jwks_uri: `${issuer}/auth/oidc/jwks`,
    end_session_endpoint: `${issuer}/auth/oidc/logout`,
    // Logout tokens carry `sid` (and `sub`, unless the person was erased); ID tokens carry `sid`.
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    frontchannel_logout_supported: false,
    scopes_supported: SCOPES,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    // The token endpoint's table: authorization_code for every client, refresh_token for those registered for it.
    grant_types_supported: GRANT_TYPE_NAMES,
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256"],
    token_endpoint_auth_methods_supported: tokenAuth,
    revocation_endpoint: `${issuer}/auth/oidc/revoke`,
    revocation_endpoint_auth_methods_supported: tokenAuth,
    introspection_endpoint: `${issuer}/auth/oidc/introspect`,
    introspection_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    code_challenge_methods_supported: ["S256"],
    claims_supported: [
      "iss",
      "sub",
      "aud",
      "iat",
      "exp",
      "auth_time",
      "amr",
      "acr",
      "nonce",
      "sid",
      "email",
      "email_verified",
      "name",
    ],
    acr_values_supported: ACR_VALUES_SUPPORTED,
    prompt_values_supported: PROMPTS,
    authorization_response_iss_parameter_supported: true,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
  };
}
