import { randomBytes, randomInt } from "node:crypto";

/** The only source of randomness; secrets come from the CSPRNG, never Math.random. */
export interface Random {
  /** Unbiased integer in [min, max). */
  int(min: number, max: number): number;
  /** URL-safe token carrying `bytes` bytes of entropy. */
  token(bytes?: number): string;
  /**
   * Identifier for stored records: 20 URL-safe characters (120 bits), never beginning with "-",
   * which a command line would read as an option (the operator CLI takes ids as arguments).
   */
  id(): string;
}

export const cryptoRandom: Random = {
  int: (min, max) => randomInt(min, max),
  token: (bytes = 32) => randomBytes(bytes).toString("base64url"),
  id: () => {
    for (;;) {
      const id = randomBytes(15).toString("base64url");
      if (!id.startsWith("-")) return id;
    }
  },
};
