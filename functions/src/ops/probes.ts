/** What the doctor asks of the world: does each service answer, within a bound. */
import { connect as tcpConnect } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { errorText } from "../logger";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** A failed required check makes the doctor exit 1; the others are warnings. */
  required: boolean;
}

/** Ten seconds for an answer: the client libraries would otherwise retry an unreachable host for a minute. */
const PROBE_MS = 10_000;

export async function probe(name: string, work: () => Promise<string>, required = true): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${PROBE_MS / 1000} s`)), PROBE_MS);
  });
  try {
    return { name, ok: true, detail: await Promise.race([work(), late]), required };
  } catch (err) {
    return { name, ok: false, detail: errorText(err).split("\n")[0] ?? "", required };
  } finally {
    clearTimeout(timer);
  }
}

/** The mail server's `220` greeting, then QUIT: nothing is sent. */
export function smtpAnswers(host: string, port: number, secure: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = secure ? tlsConnect({ host, port, servername: host }) : tcpConnect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer from ${host}:${port} in 5 s`));
    }, 5_000);
    socket.once("data", (data) => {
      clearTimeout(timer);
      socket.end("QUIT\r\n");
      const greeting = data.toString("utf8").split("\r\n")[0] ?? "";
      if (greeting.startsWith("220")) resolve(greeting);
      else reject(new Error(`unexpected greeting: ${greeting.slice(0, 80)}`));
    });
    socket.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Whether anything listens at host:port, in two seconds: an emulator that is not there fails at once. */
export function listening(hostPort: string): Promise<void> {
  const at = hostPort.lastIndexOf(":");
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: hostPort.slice(0, at), port: Number(hostPort.slice(at + 1)) });
    socket.setTimeout(2_000, () => {
      socket.destroy();
      reject(new Error(`no answer at ${hostPort} in 2 s`));
    });
    socket.once("connect", () => {
      socket.destroy();
      resolve();
    });
    socket.once("error", (err) => reject(new Error(`nothing listens at ${hostPort} (${errorText(err)})`)));
  });
}
