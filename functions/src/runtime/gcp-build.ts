/**
 * The platform build's step (`npm run gcp-build`, which the build runs with the runtime's own Node
 * after installing the dependencies): each function's code cache (bundles.ts). For every group of
 * the registry (../groups.ts), a fresh process runs the group's bundle once, as an instance's first
 * request would (rehearsal.ts, then a request through its handler), and writes V8's code of
 * the bundle as it then stands, every function that ran compiled. Instances run the same Node, so
 * V8 takes it. The session key and the Firestore the rehearsal uses are the build's own, made here.
 */
import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { codeCacheFile, runBundle } from "./bundles";
import { GROUPS, TASKS } from "../groups";
import { listening, missingDocuments } from "./rehearsal-firestore";

/** In the bundle's own process: the rehearsal, one request through the handler, then V8's code. */
async function rehearse(name: string): Promise<void> {
  const { exports: bundle, script } = runBundle(name);
  await bundle.rehearse();
  const server = createServer(bundle.handler);
  const port = await listening(server);
  await new Promise<void>((resolve, reject) =>
    // A POST with a JSON body, as a task arrives (a group answers it 404): every handler takes it
    // as far as a request goes without a session or a task queue's credentials.
    request(
      { host: "127.0.0.1", port, path: "/", method: "POST", headers: { "content-type": "application/json" } },
      (res) => res.resume().on("end", resolve),
    )
      .on("error", reject)
      .end(JSON.stringify({ data: {} })),
  );
  server.close();
  writeFileSync(codeCacheFile(name), script.createCachedData());
}

/** Every function with a bundle of its own: the groups and the tasks. */
const FUNCTIONS = [...Object.keys(GROUPS), ...Object.keys(TASKS)];

async function rehearseEach(): Promise<void> {
  const firestore = missingDocuments();
  const port = await listening(firestore);
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const env = {
    ...process.env,
    GCLOUD_PROJECT: process.env.GCLOUD_PROJECT ?? "rehearsal",
    FIRESTORE_EMULATOR_HOST: `127.0.0.1:${port}`,
    // Nothing outside the build: no credentials are looked for.
    METADATA_SERVER_DETECTION: "none",
    SESSION_KEYS: JSON.stringify([{ ...privateKey.export({ format: "jwk" }), kid: "rehearsal", alg: "RS256" }]),
  };
  try {
    for (const name of FUNCTIONS) {
      // A process of its own for each, started as an instance is: nothing of another bundle in it.
      const args = [...process.execArgv, __filename, name];
      const run = await new Promise<number | null>((resolve) =>
        spawn(process.execPath, args, { env, stdio: "inherit" }).on("exit", resolve),
      );
      if (run !== 0) throw new Error(`the ${name} bundle's rehearsal failed (exit ${run})`);
    }
  } finally {
    firestore.close();
  }
  console.log(`code cache: ${FUNCTIONS.length} bundles rehearsed with Node ${process.version}`);
}

const group = process.argv[2];
(group === undefined ? rehearseEach() : rehearse(group)).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
