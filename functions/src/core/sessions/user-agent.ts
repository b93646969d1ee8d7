/**
 * A browser and a system, named from a User-Agent for a person to recognise their own sessions
 * ("Firefox on Windows"). Good enough to tell one's phone from one's laptop; never used to decide
 * anything.
 */
const BROWSERS: Array<[RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\bOPR\/|\bOpera\b/, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bChrom(?:e|ium)\/|\bCriOS\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
];

const SYSTEMS: Array<[RegExp, string]> = [
  [/\b(?:iPhone|iPad|iPod)\b/, "iOS"],
  [/\bAndroid\b/, "Android"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bLinux\b/, "Linux"],
];

export function describeUserAgent(userAgent: string): { browser: string; system: string } {
  const pick = (table: Array<[RegExp, string]>) => table.find(([pattern]) => pattern.test(userAgent))?.[1] ?? "Unknown";
  return { browser: pick(BROWSERS), system: pick(SYSTEMS) };
}

/**
 * "Firefox on Windows", as a notice names the browser that did something; what it cannot tell is
 * left out rather than named "Unknown" (a script, a server calling the API).
 */
export function nameUserAgent(userAgent: string): string {
  const { browser, system } = describeUserAgent(userAgent);
  if (browser === "Unknown" && system === "Unknown") return "a browser or program it could not name";
  if (system === "Unknown") return browser;
  return `${browser === "Unknown" ? "a browser" : browser} on ${system}`;
}
