/**
 * How recent a sign-in must be for what a stolen or forgotten session must not do alone: widen
 * someone's access, take or erase a person's data, silence their notices, add a passkey, or open
 * a session from an ID token. Imports nothing: the pages word their requests to sign in again
 * from it.
 */
export const STEP_UP_MINUTES = 5;
export const STEP_UP_MS = STEP_UP_MINUTES * 60_000;
/** "more than 5 minutes", as the messages and the pages say it. */
export const PAST_STEP_UP = `more than ${STEP_UP_MINUTES} minutes`;
