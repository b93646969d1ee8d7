/**
 * Data expiry: every collection the store writes is declared in store/collections.ts, each
 * short-lived one has a TTL policy in firestore.indexes.json on the field its store module
 * writes, and that field is stored as a timestamp (a TTL policy ignores any other type).
 */
import { initializeApp } from "firebase-admin/app";
import { getFirestore, Timestamp, type Firestore } from "firebase-admin/firestore";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cryptoRandom } from "../../src/random";
import * as bridgeStates from "../../src/store/bridge-states";
import { COLLECTIONS, type Collection } from "../../src/store/collections";
import * as emailCodeLimits from "../../src/store/email-code-limits";
import * as emailCodes from "../../src/store/email-codes";
import * as exchangeCodes from "../../src/store/exchange-codes";
import * as oidcCodes from "../../src/store/oidc-codes";
import * as oidcClients from "../../src/store/oidc-clients";
import * as oidcTokens from "../../src/store/oidc-tokens";
import * as oidcGrants from "../../src/store/oidc-grants";
import * as oidcSignIns from "../../src/store/oidc-sign-ins";
import * as clientThrottles from "../../src/store/client-throttles";
import * as registrationBudgets from "../../src/store/registration-budgets";
import * as outbox from "../../src/store/outbox";
import * as sessionRecords from "../../src/store/sessions";
import * as passkeyChallenges from "../../src/store/passkey-challenges";
import * as sends from "../../src/store/sends";
import * as sendClaims from "../../src/store/send-claims";
import * as personalData from "../../src/store/personal-data";
import * as noticeWindows from "../../src/store/notice-windows";
import * as auditTrail from "../../src/store/audit-trail";
import * as healthCounts from "../../src/store/health-counts";
import * as projectAccess from "../../src/store/project-access";
import * as invitations from "../../src/store/invitations";
import { firestore } from "../support/deps";

const repo = join(__dirname, "..", "..", "..");
const storeDir = join(__dirname, "..", "..", "src", "store");
const config = JSON.parse(readFileSync(join(repo, "firebase.json"), "utf8")) as {
  firestore: { rules: string; indexes: string };
};
const indexes = JSON.parse(readFileSync(join(repo, config.firestore.indexes), "utf8")) as {
  fieldOverrides: Array<{ collectionGroup: string; fieldPath: string; ttl?: boolean }>;
};

const shortLived = (Object.entries(COLLECTIONS) as Array<[Collection, string | null]>).filter(
  (e): e is [Collection, string] => e[1] !== null,
);
const ttlPolicies = indexes.fieldOverrides.filter((o) => o.ttl === true);

/** Each collection a store module names in `.collection(...)`, with the module that names it. */
function collectionsWritten(): Array<{ module: string; name: string }> {
  const found: Array<{ module: string; name: string }> = [];
  for (const file of readdirSync(storeDir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))) {
    const source = readFileSync(join(storeDir, file), "utf8");
    const constants = new Map([...source.matchAll(/const (\w+)(?:: \w+)? = "([^"]+)"/g)].map((m) => [m[1], m[2]]));
    for (const m of source.matchAll(/\.collection\(\s*([^)]*?)\s*\)/g)) {
      const argument = m[1] as string;
      const literal = /^["'`]([^"'`$]+)["'`]$/.exec(argument)?.[1];
      // An argument that is neither a literal nor a constant of the module cannot be checked.
      found.push({ module: file, name: literal ?? constants.get(argument) ?? `unresolved: ${argument}` });
    }
  }
  return found;
}

describe("data expiry", () => {
  it("declares every collection a store module writes, and none it does not", () => {
    const written = collectionsWritten();
    expect(written.length).toBeGreaterThan(0);
    const unknown = written.filter((w) => !(w.name in COLLECTIONS));
    // A new collection needs a row in store/collections.ts: its TTL field, or null if it is kept.
    expect(unknown).toEqual([]);
    expect([...new Set(written.map((w) => w.name))].sort()).toEqual(Object.keys(COLLECTIONS).sort());
  });

  it("has firebase.json deploy the indexes file beside the rules", () => {
    expect(config.firestore).toEqual({ rules: "firestore.rules", indexes: "firestore.indexes.json" });
  });

  it("has a TTL policy on the expiry field of every short-lived collection, and on no other", () => {
    const policies = ttlPolicies.map((o) => [o.collectionGroup, o.fieldPath]).sort();
    expect(policies).toEqual(shortLived.map(([name, field]) => [name, field]).sort());
    // One policy per collection: Firestore allows a single TTL field per collection group.
    expect(new Set(ttlPolicies.map((o) => o.collectionGroup)).size).toBe(ttlPolicies.length);
  });

  describe("the stored TTL field", () => {
    const project = process.env.GCLOUD_PROJECT ?? "";
    let db: Firestore;
    beforeAll(() => {
      db = getFirestore(initializeApp({ projectId: project }, `ttl-${cryptoRandom.token(6)}`));
    });

    const at = new Date("2026-11-25T10:00:00.000Z");
    const later = (ms: number) => new Date(at.getTime() + ms);
    const id = () => `ttl-${cryptoRandom.token(12)}`;

    /** Writes one document through the store module, as the service does; returns its path. */
    const WRITERS: Record<string, () => Promise<string[]>> = {
      emailCodes: async () => {
        const addressId = id();
        await db.runTransaction(async (tx) => {
          emailCodes.replace(
            db,
            tx,
            {
              addressId,
              kid: "k",
              hash: "h",
              state: "ready",
              attempts: 0,
              sendId: "s",
              createdAt: at,
              expiresAt: later(600_000),
            },
            [],
          );
        });
        return [`emailCodes/${addressId}`];
      },
      emailCodeLimits: async () => {
        const addressId = id();
        await db.runTransaction(async (tx) => {
          const state = { sends: [at], failures: 0, lockedUntil: null, lockouts: 0, noticeAt: null };
          emailCodeLimits.save(db, tx, addressId, "k", state, later(3_600_000), []);
        });
        return [`emailCodeLimits/${addressId}`];
      },
      sends: async () => {
        const sendId = id();
        await sends.record(db, sendId, { client: "c", service: "s" }, at, later(3_600_000));
        return [`sends/${sendId}`];
      },
      sendClaims: async () => {
        const claimId = `${id()}~1`;
        await sendClaims.claim(db, claimId, at, later(120_000));
        return [`sendClaims/${claimId}`];
      },
      clientThrottles: async () => {
        const throttleId = id();
        await db.runTransaction(async (tx) => {
          clientThrottles.save(db, tx, { id: throttleId, failures: [at], refusedUntil: null }, later(600_000));
        });
        return [`clientThrottles/${throttleId}`];
      },
      // A client that registered itself, waiting for review: the only kind that is forgotten.
      oidcClients: async () => {
        const clientId = `dyn_${id()}`;
        await oidcClients.save(db, {
          clientId,
          name: "Waiting",
          secrets: [],
          redirectUris: ["https://waiting.example.test/cb"],
          postLogoutRedirectUris: [],
          backchannelLogoutUri: null,
          pkce: "required",
          refreshTokens: false,
          project: null,
          disabled: false,
          registeredBy: "self",
          review: "waiting",
          clientUri: null,
          logoUri: null,
          tokenAuth: "none",
          triedBy: [],
          document: null,
          createdAt: at,
        });
        return [`oidcClients/${clientId}`];
      },
      registrationBudgets: async () => {
        const budgetId = id();
        await db.runTransaction(async (tx) => registrationBudgets.setCount(db, tx, budgetId, 1, later(3_600_000)));
        return [`registrationBudgets/${budgetId}`];
      },
      projectAccess: async () => {
        const personId = id();
        await projectAccess.record(db, personId, "startpage", at, later(365 * 86_400_000));
        return [`projectAccess/${personId}_startpage`];
      },
      auditTrail: async () => {
        const recordId = id();
        await auditTrail.add(db, {
          id: recordId,
          at,
          actor: { kind: "operator", name: "ops@desk" },
          actorId: "operator:ops@desk",
          kind: "operator",
          action: "cli.test",
          subjects: [],
          detail: {},
          outcome: "done",
          client: { via: "cli", from: null },
          traceId: null,
          forgetAfter: later(400 * 86_400_000),
        });
        return [`auditTrail/${recordId}`];
      },
      healthCounts: async () => {
        const docId = `${at.toISOString()}~${id()}`;
        await healthCounts.add(db, docId, at, later(8 * 86_400_000), new Map([["codes:client_budget", 1]]));
        return [`healthCounts/${docId}`];
      },
      noticeWindows: async () => {
        const personId = id();
        await db.runTransaction(async (tx) => {
          const window = await noticeWindows.find(db, tx, personId);
          noticeWindows.save(db, tx, { ...window, sent: { [id()]: at } }, later(2 * 86_400_000));
        });
        return [`noticeWindows/${personId}`];
      },
      sessions: async () => {
        const sessionId = id();
        await sessionRecords.record(db, {
          sessionId,
          personId: "p",
          uid: "u",
          openedAt: at,
          authTime: at,
          amr: ["otp"],
          address: null,
          passkeyId: null,
          codesMadeAt: null,
          userAgent: "",
          lastSeenAt: at,
          expiresAt: later(14 * 86_400_000),
          endedAt: null,
        });
        return [`sessions/${sessionId}`];
      },
      outbox: async () => {
        const entryId = id();
        await db.runTransaction(async (tx) => {
          outbox.add(db, tx, {
            id: entryId,
            kind: "code",
            sealed: { kid: "k", iv: "i", data: "d", tag: "t" },
            state: "pending",
            lane: "mail",
            attempts: 0,
            nextAttemptAt: at,
            claim: null,
            deliverBy: later(600_000),
            createdAt: at,
            sentAt: null,
            lastError: null,
            forgetAfter: later(7 * 86_400_000),
            trace: null,
          });
        });
        return [`outbox/${entryId}`];
      },
      exchangeCodes: async () => {
        const hash = id();
        await exchangeCodes.save(db, {
          hash,
          uid: "u",
          personId: "p",
          createdAt: at,
          expiresAt: later(60_000),
          redeemedAt: null,
          app: null,
          redirectUri: null,
          codeChallenge: null,
        });
        return [`exchangeCodes/${hash}`];
      },
      bridgeStates: async () => {
        const hash = id();
        await bridgeStates.save(db, {
          hash,
          provider: "gaming",
          redirect: "https://id.example.test/account",
          callback: "https://id.example.test/auth/bridge/gaming/callback",
          createdAt: at,
          expiresAt: later(600_000),
          usedAt: null,
          idp: null,
          codeVerifier: null,
          postedName: null,
          nonce: null,
        });
        return [`bridgeStates/${hash}`];
      },
      oidcCodes: async () => {
        const [fresh, redeemed] = [id(), id()];
        const code = (hash: string) => ({
          hash,
          clientId: "c",
          redirectUri: "https://rp.example/cb",
          codeChallenge: "x",
          nonce: null,
          scopes: ["openid"],
          uid: "u",
          personId: "p",
          authTime: at,
          amr: [],
          acr: null,
          createdAt: at,
          expiresAt: later(60_000),
          usedAt: null,
          accessTokenHash: null,
          grantId: null,
          sessionKey: null,
          resource: null,
        });
        await oidcCodes.save(db, code(fresh));
        await oidcCodes.save(db, code(redeemed));
        await db.runTransaction(async (tx) => {
          oidcCodes.markUsed(db, tx, redeemed, at, { hash: "t", expiresAt: later(3_600_000) });
        });
        return [`oidcCodes/${fresh}`, `oidcCodes/${redeemed}`];
      },
      passkeyChallenges: async () => {
        const hash = id();
        await passkeyChallenges.save(db, {
          hash,
          purpose: "sign-in",
          personId: null,
          sessionKey: null,
          binding: "b",
          createdAt: at,
          expiresAt: later(300_000),
          usedAt: null,
        });
        return [`passkeyChallenges/${hash}`];
      },
      oidcAccessTokens: async () => {
        const hash = id();
        await db.runTransaction(async (tx) => {
          oidcTokens.create(db, tx, {
            hash,
            clientId: "c",
            uid: "u",
            personId: "p",
            scopes: ["openid"],
            resource: null,
            createdAt: at,
            expiresAt: later(3_600_000),
          });
        });
        return [`oidcAccessTokens/${hash}`];
      },
      oidcGrants: async () => [`oidcGrants/${await grant()}`],
      invitations: async () => {
        const invitation = {
          id: invitations.invitationId(`${id()}@example.test`),
          address: "a@example.test",
          name: "",
          projects: [],
          groups: [],
          role: "user" as const,
          note: "",
          invitedBy: { kind: "service" as const },
          invitedAt: at,
          expiresAt: later(14 * 86_400_000),
          sentAt: at,
          sends: 1,
        };
        await db.runTransaction(async (tx) => invitations.save(db, tx, invitation, later(44 * 86_400_000)));
        return [`invitations/${invitation.id}`];
      },
      oidcSignIns: async () => {
        const sid = id();
        await db.runTransaction(async (tx) => {
          oidcSignIns.record(
            db,
            tx,
            { sid, sessionKey: "s", clientId: "c", personId: "p", createdAt: at },
            later(14 * 86_400_000),
          );
        });
        return [`oidcSignIns/${sid}`];
      },
      oidcRefreshTokens: async () => {
        const tokenId = id();
        const grantId = await grant();
        await db.runTransaction(async (tx) => {
          oidcGrants.addToken(
            db,
            tx,
            { id: tokenId, grantId, clientId: "c", personId: "p", createdAt: at },
            { expiresAt: later(30 * 86_400_000) },
          );
        });
        return [`oidcRefreshTokens/${tokenId}`];
      },
    };

    /** A grant of refresh tokens, as a redemption that asked for offline_access makes one. */
    async function grant(): Promise<string> {
      const grantId = id();
      await db.runTransaction(async (tx) => {
        oidcGrants.create(db, tx, {
          id: grantId,
          clientId: "c",
          uid: "u",
          personId: "p",
          scopes: ["openid", "offline_access"],
          resource: null,
          resourceSince: null,
          authTime: at,
          amr: [],
          acr: null,
          sid: null,
          createdAt: at,
          lastUsedAt: at,
          expiresAt: later(30 * 86_400_000),
          tokenId: "t",
          accessTokenHash: null,
          endedAt: null,
          endedBecause: null,
        });
      });
      return grantId;
    }

    it("is exercised here for every short-lived collection", () => {
      expect(Object.keys(WRITERS).sort()).toEqual(shortLived.map(([name]) => name).sort());
    });

    it.each(shortLived)("is a timestamp on every document the store writes to %s (field %s)", async (name, field) => {
      const writer = WRITERS[name];
      expect(writer).toBeDefined();
      for (const path of await (writer as () => Promise<string[]>)()) {
        const value = (await db.doc(path).get()).get(field) as unknown;
        expect([path, value instanceof Timestamp]).toEqual([path, true]);
        // The record is never forgotten before it stops mattering.
        expect((value as Timestamp).toMillis()).toBeGreaterThan(at.getTime());
      }
    });

    it("gives an unfinished erasure no field a TTL could take, and takes it from one begun with one", async () => {
      // In this file's own project: unfinished erasures in the stack's are the doctor's to report.
      const own = firestore();
      const [personId, older] = [id(), id()];
      await own.runTransaction(async (tx) => personalData.beginErasure(own, tx, personId, ["u"], at));
      const begun = (await own.doc(`erasures/${personId}`).get()).data() ?? {};
      expect(Object.values(begun).filter((v) => v instanceof Timestamp && v.toMillis() > at.getTime())).toEqual([]);
      // An erasure begun while they still expired after 30 days: its next attempt keeps it for good.
      await own.doc(`erasures/${older}`).set({ uids: ["u"], startedAt: at, forgetAfter: later(30 * 86_400_000) });
      await personalData.erasureTried(own, older, later(60_000));
      const tried = (await own.doc(`erasures/${older}`).get()).data() ?? {};
      expect(tried.forgetAfter).toBeUndefined();
      expect((tried.lastTriedAt as Timestamp).toMillis()).toBe(later(60_000).getTime());
    });

    it("keeps a redeemed authorization code as long as the access token it could revoke", async () => {
      const paths = await (WRITERS.oidcCodes as () => Promise<string[]>)();
      const [fresh, redeemed] = await Promise.all(paths.map(async (p) => (await db.doc(p).get()).data() ?? {}));
      expect((fresh?.forgetAfter as Timestamp).toMillis()).toBe(later(60_000).getTime());
      expect((redeemed?.forgetAfter as Timestamp).toMillis()).toBe(later(3_600_000).getTime());
    });
  });
});
