/** The two ways a command says no, each with a message to act on and never a stack. */

/** Bad arguments: the usage is printed and the exit code is 2. */
export class UsageError extends Error {}

/** Refused or failed for a reason the operator can act on: the exit code is 1. */
export class Refusal extends Error {}
