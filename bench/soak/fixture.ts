/**
 * The people the load signs in as: Auth emulator accounts with verified addresses and known
 * passwords (so the load gets ID tokens over REST, as a browser does), each with a person record.
 * Mostly approved with the `startpage` grant; some approved without it, pending or rejected, so
 * every refusal of the gate and of sign-in is exercised too.
 */
import { auth, createPeople, missing, registerSoakClient, removeOtherHolders, type NewPerson } from "./store.ts";

export interface FixturePerson extends NewPerson {
  password: string;
}

function standing(i: number): Pick<NewPerson, "status" | "projects"> {
  const slot = i % 20;
  if (slot === 0) return { status: "rejected", projects: ["startpage"] };
  if (slot === 1 || slot === 2) return { status: "pending", projects: [] };
  if (slot === 3) return { status: "approved", projects: ["status"] };
  return { status: "approved", projects: ["startpage"] };
}

export function fixture(count: number): FixturePerson[] {
  return Array.from({ length: count }, (_, i) => ({
    personId: `soak-person-${i}`,
    uid: `soak-uid-${i}`,
    email: `soak-${i}@example.test`,
    password: `soak-password-${i}`,
    ...standing(i),
  }));
}

/** Accounts first (they live in the Auth emulator, which no fault touches), then the people. */
export async function createFixture(people: FixturePerson[]): Promise<void> {
  const queue = [...people];
  const worker = async () => {
    for (let p = queue.shift(); p; p = queue.shift()) {
      await auth().createUser({
        uid: p.uid,
        email: p.email,
        password: p.password,
        emailVerified: true,
        displayName: "Soak Person",
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await createPeople(people);
  await registerSoakClient();
}

/**
 * After a Firestore restart its data is gone: the same people again, under the same ids, and the
 * relying party registered again. A
 * request the service was still working on may already have made a new pending person for a
 * fixture account in the empty store (where the real one would have been found); that person is
 * an artefact of the lost data, so it goes, and the runner reports each one.
 */
export async function reseed(people: FixturePerson[]): Promise<string[]> {
  const removed: string[] = [];
  // Such a late request may also land while re-seeding: then its commit or ours fails, and we go again.
  for (let attempt = 1; ; attempt++) {
    try {
      removed.push(...(await removeOtherHolders(people)));
      await createPeople(await missing(people));
      await registerSoakClient();
      return removed;
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
}
