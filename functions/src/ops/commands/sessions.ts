/** `sessions …`: a person's sessions, as the account page shows them, and ending them. */
import { signedOutOf, TOLD } from "./person-text";
import { endSessions, listSessions, type SessionView } from "../../core/sessions/active-sessions";
import type { Command } from "../cli";
import { table } from "../output";
import { UsageError } from "../refusals";

const when = (iso: string) => iso.slice(0, 16).replace("T", " ");

export const sessionCommands: Command[] = [
  {
    name: "sessions list",
    summary: "a person's live sessions: browser, system, how and when they signed in, last seen",
    usage: "sessions list <id|email>",
    positionals: [1, 1],
    backend: true,
    async run(ctx, [who]) {
      const person = await ctx.person(who as string);
      const found = await listSessions(ctx.deps(), person, null);
      const columns = [
        { header: "SESSION", value: (s: SessionView) => s.sessionId },
        { header: "BROWSER", value: (s: SessionView) => `${s.browser} on ${s.system}` },
        { header: "SIGNED IN", value: (s: SessionView) => `${when(s.signedInAt)} (${s.methods.join(",") || "?"})` },
        { header: "LAST SEEN", value: (s: SessionView) => when(s.lastSeenAt) },
      ];
      ctx.print(table(found, columns, "(no live sessions)"), found);
    },
  },
  {
    name: "sessions end",
    audited: true,
    summary: "sign a person out of one session, or of every one (asks first)",
    usage: "sessions end <id|email> (<session> | --all) [--yes]",
    options: { all: { type: "boolean" } },
    positionals: [1, 2],
    backend: true,
    async run(ctx, [who, sessionId], values) {
      const all = values.all === true;
      if (all === (sessionId !== undefined)) throw new UsageError("sessions end: name one session, or --all");
      const deps = ctx.deps();
      const person = await ctx.person(who as string);
      const named = person.emails[0] ?? person.id;
      await ctx.confirm(all ? `Sign ${named} out everywhere?` : `End session ${sessionId as string} of ${named}?`);
      const which = all ? { allBut: null } : { sessionIds: [sessionId as string] };
      const { ended, apps } = await endSessions(deps, person.id, which, { operator: ctx.actor() });
      ctx.print(`ended ${ended} session${ended === 1 ? "" : "s"} of ${named}${signedOutOf(apps)}`, { ended, apps });
      ctx.note("Each is refused at once by a function instance that reads it anew, and by every one within 10 s.");
      if (apps.length > 0) ctx.note(TOLD);
    },
  },
];
