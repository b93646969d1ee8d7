/**
 * Where the time of a measured round went, counted from /proc around it (not estimated): the
 * server's CPU and the Firestore's, per request, for section 5's every endpoint.
 */
import type { LoadResult } from "./load.ts";
import { cpuSeconds } from "./procs.ts";

export interface CpuUse {
  /** CPU of the server process (all its threads) per request, in ms. */
  msPerRequest: number;
  /** Share of its core the server used while the round ran. */
  serverBusy: number;
  /** Share of a core the Firestore used meanwhile: the stand-in, or the official emulator's JVM (null if it is not ours to watch). */
  firestoreBusy: number | null;
  /** Firestore's CPU per request, in ms (null as above). */
  firestoreMsPerRequest: number | null;
}

/** Runs `round` (n requests at the server `pid`), reading both processes' CPU before and after. */
export async function measured(
  pid: number,
  firestoreWorker: number | null,
  n: number,
  round: () => Promise<LoadResult>,
): Promise<{ result: LoadResult; cpu: CpuUse }> {
  const [server0, firestore0, t0] = [
    cpuSeconds(pid),
    firestoreWorker === null ? 0 : cpuSeconds(firestoreWorker),
    performance.now(),
  ];
  const result = await round();
  const seconds = (performance.now() - t0) / 1000;
  const server = cpuSeconds(pid) - server0;
  const used = firestoreWorker === null ? null : cpuSeconds(firestoreWorker) - firestore0;
  const cpu = {
    msPerRequest: (server * 1000) / n,
    serverBusy: server / seconds,
    firestoreBusy: used === null ? null : used / seconds,
    firestoreMsPerRequest: used === null ? null : (used * 1000) / n,
  };
  return { result, cpu };
}
