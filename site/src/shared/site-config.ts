/**
 * What the pages need to know of this deployment, written by site/build.ts as `/site-config.js`
 * from the same settings the functions read (functions/.env.<project>), and loaded before any of
 * the pages' code runs. Nothing in it is secret: the identity provider's web API key is public,
 * as in any web app.
 */
import config from "site:config";

export interface SiteConfig {
  /** The identity host's own origin ({id_url}). */
  idUrl: string;
  /** The seven origins a sign-in may return to: the bridges' `redirect` allowlist. */
  allowedOrigins: string[];
  /** The identity provider's sign-in API (its emulator locally), and the web API key it takes. */
  identityToolkit: string;
  apiKey: string;
}

export const siteConfig = config as SiteConfig;
