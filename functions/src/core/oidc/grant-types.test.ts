import { AppError } from "../errors";
import type { OidcClient } from "../model/oidc-client";
import fc from "fast-check";
import { GRANT_TYPE_NAMES, grantTypesOf, registeredFor, tokenExchange } from "./grant-types";

const client = (over: Partial<OidcClient> = {}) =>
  ({ clientId: "app", pkce: "required", refreshTokens: false, project: null, ...over }) as OidcClient;

/** The refusal a token request gets before any code or token is looked up, or null. */
async function refusal(of: OidcClient, form: Record<string, string>) {
  // Nothing is read before the form is judged: no dependency is reached.
  const exchange = tokenExchange({} as never);
  try {
    await exchange(of, form);
    return null;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return [err.code, err.detail];
  }
}

describe("the token endpoint's grant types", () => {
  it("are authorization_code for every client, and refresh_token for one registered for it", () => {
    expect(GRANT_TYPE_NAMES).toEqual(["authorization_code", "refresh_token"]);
    expect(grantTypesOf(client())).toEqual(["authorization_code"]);
    expect(grantTypesOf(client({ refreshTokens: true }))).toEqual(["authorization_code", "refresh_token"]);
  });

  it("asks for a grant_type, and takes none the client is not registered for", async () => {
    expect(await refusal(client(), {})).toEqual(["oauth_invalid_request", "grant_type is required"]);
    expect(await refusal(client(), { grant_type: "refresh_token", refresh_token: "t" })).toEqual([
      "oauth_unsupported_grant_type",
      undefined,
    ]);
    for (const grant of ["password", "client_credentials", "toString", "__proto__"])
      expect(await refusal(client({ refreshTokens: true }), { grant_type: grant })).toEqual([
        "oauth_unsupported_grant_type",
        "Only grant_type authorization_code and refresh_token are supported",
      ]);
  });

  it("asks authorization_code for the code, the redirect URI and the verifier, which PKCE optional may leave out", async () => {
    const required = ["oauth_invalid_request", "code, redirect_uri and code_verifier are required"];
    const form = { grant_type: "authorization_code", code: "c", redirect_uri: "https://app.test/cb" };
    expect(await refusal(client(), form)).toEqual(required);
    expect(await refusal(client(), { ...form, code: "" })).toEqual(required);
    expect(await refusal(client({ pkce: "optional" }), { ...form, redirect_uri: "" })).toEqual(required);
    expect(await refusal(client({ pkce: "optional" }), { ...form, code_verifier: "short" })).toEqual([
      "oauth_invalid_request",
      "code_verifier must be 43 to 128 unreserved characters",
    ]);
  });

  it("asks refresh_token for the refresh token", async () => {
    expect(await refusal(client({ refreshTokens: true }), { grant_type: "refresh_token" })).toEqual([
      "oauth_invalid_request",
      "refresh_token is required",
    ]);
  });
});

describe("registeredFor: a client's grant types, checked when it is registered", () => {
  it("registers authorization_code alone, and refresh_token where it is named", () => {
    expect(registeredFor([])).toEqual({ refreshTokens: false });
    expect(registeredFor(["authorization_code"])).toEqual({ refreshTokens: false });
    expect(registeredFor(["authorization_code", "refresh_token"])).toEqual({ refreshTokens: true });
  });

  it("refuses a grant type the token endpoint does not take, naming it and those it takes", () => {
    for (const name of ["password", "client_credentials", "implicit", "toString", "__proto__", ""]) {
      const refused = (() => {
        try {
          registeredFor(["authorization_code", name]);
          return null;
        } catch (err) {
          return err;
        }
      })();
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({
        code: "client_grant_type_unknown",
        detail: `The token endpoint takes no grant type "${name}": it takes authorization_code and refresh_token`,
      });
    }
  });

  it("makes a client that may use every grant type it was registered for", () => {
    fc.assert(
      fc.property(fc.subarray(GRANT_TYPE_NAMES), (named) => {
        const allowed = grantTypesOf(registeredFor(named));
        for (const name of named) expect(allowed).toContain(name);
      }),
    );
  });
});
