/**
 * An iCalendar document from events written indented for reading, one property per line; a line
 * starting with `~` continues the one before it (a folded line).
 */
export function icsCalendar(...events: string[]): string {
  const lines = events.flatMap((e) => [
    "BEGIN:VEVENT",
    ...e
      .trim()
      .split("\n")
      .map((l) => l.trim().replace(/^~/, " ")),
    "END:VEVENT",
  ]);
  return ["BEGIN:VCALENDAR", "VERSION:2.0", ...lines, "END:VCALENDAR"].join("\r\n");
}
