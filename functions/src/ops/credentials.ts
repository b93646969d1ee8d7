/**
 * Application Default Credentials, checked before any call to a real project: without them the
 * client libraries fail later, outside any caller, with a stack trace.
 */
import { errorText } from "../logger";

/** What to run, in one sentence: the first thing deploy step 6 meets without credentials. */
export function noCredentials(projectId: string): string {
  return (
    `no Google Cloud credentials: run \`gcloud auth application-default login\` (and, if an API then asks for a ` +
    `quota project, \`gcloud auth application-default set-quota-project ${projectId}\`), or set ` +
    "GOOGLE_APPLICATION_CREDENTIALS to a service account's key file"
  );
}

/** An access token for Google's APIs (cloud-platform scope), from Application Default Credentials. */
export async function accessToken(): Promise<string> {
  // Loaded here: commands on the emulators never need the credential machinery.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { applicationDefault } = require("firebase-admin/app") as typeof import("firebase-admin/app");
  const token = await applicationDefault().getAccessToken();
  return token.access_token;
}

/** null when a token can be had; otherwise why not, with what to run. */
export async function checkCredentials(projectId: string): Promise<string | null> {
  try {
    await accessToken();
    return null;
  } catch (err) {
    const text = errorText(err);
    if (/Could not load the default credentials/i.test(text)) return noCredentials(projectId);
    if (/invalid_grant|invalid_rapt|reauth/i.test(text))
      return `the saved Google Cloud credentials no longer work (${text.split("\n")[0]}): run \`gcloud auth application-default login\` again`;
    return `could not get a Google Cloud access token: ${text.split("\n")[0]}`;
  }
}
