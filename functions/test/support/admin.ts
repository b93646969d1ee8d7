import request from "supertest";
import type { Express } from "express";
import { signInWithPassword } from "./auth";
import { cookieFrom } from "./people";

/** The seeded admin of emulator-data/seed.json, signed in through POST /auth/verify. */
export const SEED_ADMIN = { email: "admin@example.test", password: "admin-password" };

export async function adminCookie(sessionsApp: Express): Promise<string> {
  const idToken = await signInWithPassword(SEED_ADMIN.email, SEED_ADMIN.password);
  const res = await request(sessionsApp).post("/auth/verify").send({ idToken, project: "startpage" });
  const cookie = cookieFrom(res.headers["set-cookie"]);
  if (res.body.approved !== true || cookie === null)
    throw new Error(`the seeded admin did not sign in: ${JSON.stringify(res.body)}`);
  return cookie;
}
