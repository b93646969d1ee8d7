import type { LocalStack } from "./local-stack";
import { applyTarget, resolveTarget, type TargetInputs } from "./target";

const stack: LocalStack = {
  project: "demo-identity",
  pid: 1,
  startedAt: "2026-11-25T00:00:00.000Z",
  firestore: "stand-in",
  ports: { firestore: 12080, auth: 13099, hub: 8400, hosting: 9000, tasks: 13499 },
  urls: { service: "http://127.0.0.1:9000" },
};

const none: TargetInputs = { project: undefined, local: false, env: {}, saved: null, stack: null };
const pick = (inputs: Partial<TargetInputs>) => {
  const t = resolveTarget({ ...none, ...inputs });
  return { projectId: t.projectId, emulators: t.emulators, firestore: t.firestore, auth: t.auth, tasks: t.tasks };
};

describe("which target a command works against", () => {
  it("is the running stack, on its own ports, when nothing else is said", () => {
    expect(pick({ stack: { stack } })).toEqual({
      projectId: "demo-identity",
      emulators: true,
      firestore: "127.0.0.1:12080",
      auth: "127.0.0.1:13099",
      tasks: "127.0.0.1:13499",
    });
  });

  it("is npm start's default ports when no stack runs, saying why", () => {
    const t = resolveTarget({ ...none, stack: { gone: "the stack that wrote it is no longer running" } });
    expect([t.firestore, t.auth, t.tasks]).toEqual(["127.0.0.1:8080", "127.0.0.1:9099", "127.0.0.1:9499"]);
    expect(t.chosenBy).toMatch(/no longer running/);
  });

  it("takes, most explicit first: --project, --local, emulator hosts in the environment, the saved default, the stack", () => {
    const env = {
      FIRESTORE_EMULATOR_HOST: "127.0.0.1:8180",
      FIREBASE_AUTH_EMULATOR_HOST: "127.0.0.1:9199",
      GCLOUD_PROJECT: "demo-t",
    };
    const all = { project: "my-project", local: true, env, saved: "saved-project", stack: { stack } };
    expect(pick(all)).toEqual({ projectId: "my-project", emulators: false, firestore: null, auth: null, tasks: null });
    expect(pick({ ...all, project: undefined })).toMatchObject({ emulators: true, firestore: "127.0.0.1:8180" });
    expect(pick({ ...all, project: undefined, local: false })).toMatchObject({
      projectId: "demo-t",
      auth: "127.0.0.1:9199",
    });
    expect(pick({ ...all, project: undefined, local: false, env: {} })).toMatchObject({
      projectId: "saved-project",
      emulators: false,
    });
    expect(pick({ stack: { stack }, local: true })).toMatchObject({ firestore: "127.0.0.1:12080" });
  });

  it("wakes mail through the Cloud Tasks emulator the environment names with the others, or through none", () => {
    const env = { FIRESTORE_EMULATOR_HOST: "127.0.0.1:8180", FIREBASE_AUTH_EMULATOR_HOST: "127.0.0.1:9199" };
    expect(pick({ env: { ...env, CLOUD_TASKS_EMULATOR_HOST: "127.0.0.1:9599" }, stack: { stack } }).tasks).toBe(
      "127.0.0.1:9599",
    );
    // Emulators named without one are not mixed with the running stack's.
    expect(pick({ env, stack: { stack } }).tasks).toBeNull();
    // A real project has its own Cloud Tasks, whatever the shell names.
    expect(pick({ project: "my-project", env: { CLOUD_TASKS_EMULATOR_HOST: "127.0.0.1:9599" } }).tasks).toBeNull();
  });

  it("points this process's task queues at the stack's emulator, and a real project's at its own Cloud Tasks", () => {
    const was = { ...process.env };
    try {
      applyTarget(resolveTarget({ ...none, stack: { stack } }));
      expect(process.env.CLOUD_TASKS_EMULATOR_HOST).toBe("127.0.0.1:13499");
      // Left in a shell from a local session, it would send a real project's wakes to an emulator.
      applyTarget(resolveTarget({ ...none, project: "my-project" }));
      expect(process.env.CLOUD_TASKS_EMULATOR_HOST).toBeUndefined();
    } finally {
      // applyTarget sets the whole process's environment: put it back as it was.
      for (const name of Object.keys(process.env)) if (!(name in was)) delete process.env[name];
      Object.assign(process.env, was);
    }
  });

  it("keeps a demo- project on the emulators, wherever it is named", () => {
    expect(pick({ project: "demo-other", stack: { stack } })).toMatchObject({
      projectId: "demo-other",
      emulators: true,
      firestore: "127.0.0.1:12080",
    });
    expect(pick({ saved: "demo-saved" })).toMatchObject({ projectId: "demo-saved", emulators: true });
  });

  it("refuses what cannot be a project id", () => {
    expect(() => resolveTarget({ ...none, project: "NOT A PROJECT" })).toThrow(/--project needs a project id/);
  });
});
