/**
 * A person at the identity host's pages, in one of three ways of using them: with a pointer on a
 * desktop screen, with the keyboard alone (every control reached by Tab, pressed with Enter), or
 * on a phone's screen by touch. Every page a journey reaches is checked by axe-core and for
 * sideways scrolling on the phone; each journey ends with a screenshot of its last page.
 *
 * The journeys run twice, `MODES`: with the keyboard alone on a desktop's screen, and by touch
 * (a pointer: each tap is a pointer's press and a click) on a phone's. Between them every journey
 * is walked with a pointer, with the keyboard alone and at a phone's size, and axe sees every page
 * at both sizes. A mouse on a desktop's screen (`pointer`) adds no page state to those two, so it
 * is a mode to ask for, not one every journey repeats (docs/local-stack.md, "Browser tests").
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { scriptHeading, type BrowserWorld } from "./browser";
import { codeFor } from "./inbox";

export type Mode = "pointer" | "keyboard" | "phone";
export const MODES: Mode[] = ["keyboard", "phone"];

/** What these tests touch of the page's globals, inside page.evaluate (the suite compiles without the DOM's types). */
declare const document: { activeElement: unknown; documentElement: { scrollWidth: number; clientWidth: number } };

const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
/** Where the screenshots go: .stack/screenshots, beside the rest of a run's output. */
export const SCREENSHOTS = join(__dirname, "..", "..", "..", ".stack", "screenshots");

export interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

export class Visitor {
  /** Every page (by its heading) axe has checked, with what it found. */
  readonly audited: Array<{ heading: string; violations: Violation[] }> = [];

  constructor(
    readonly page: Page,
    readonly mode: Mode,
  ) {}

  /** The control named `name` (a button or a link), as a person finds it on the page. */
  control(name: string | RegExp): Locator {
    return this.page
      .getByRole("button", { name, exact: typeof name === "string" })
      .or(this.page.getByRole("link", { name, exact: typeof name === "string" }))
      .first();
  }

  /** Presses Tab until `target` has focus: fails if it cannot be reached by keyboard. */
  private async tabTo(target: Locator): Promise<void> {
    const handle = await target.elementHandle();
    for (let presses = 0; presses < 40; presses++) {
      if (await this.page.evaluate((el) => document.activeElement === el, handle)) return;
      await this.page.keyboard.press("Tab");
    }
    throw new Error(`could not reach ${String(target)} with the Tab key`);
  }

  async fill(label: string | RegExp, value: string): Promise<void> {
    const input = this.page.getByLabel(label);
    await input.waitFor();
    if (this.mode === "keyboard") {
      await this.tabTo(input);
      await this.page.keyboard.press("ControlOrMeta+A");
      await this.page.keyboard.type(value);
    } else {
      if (this.mode === "phone") await input.tap();
      await input.fill(value);
    }
  }

  /** Ticks (or with `to` false, unticks) the checkbox labelled `label` (Space on the keyboard). */
  async check(label: string | RegExp, to = true): Promise<void> {
    const box = this.page.getByRole("checkbox", { name: label, exact: typeof label === "string" });
    await box.waitFor();
    if (this.mode === "keyboard") {
      await this.tabTo(box);
      await this.page.keyboard.press("Space");
    } else if (this.mode === "phone") {
      await box.tap();
    } else {
      await box.setChecked(to);
    }
    if ((await box.isChecked()) !== to)
      throw new Error(`${String(label)} did not become ${to ? "checked" : "unchecked"}`);
  }

  /** Picks `option` in the drop-down list labelled `label` (arrow keys on the keyboard). */
  async choose(label: string, option: string): Promise<void> {
    const select = this.page.getByLabel(label, { exact: true });
    await select.waitFor();
    const chosen = () =>
      select.evaluate(
        (el) => (el as unknown as { selectedOptions: Array<{ label: string }> }).selectedOptions[0]?.label,
      );
    if (this.mode === "keyboard") {
      await this.tabTo(select);
      await this.page.keyboard.press("Home");
      for (let presses = 0; presses < 20 && (await chosen()) !== option; presses++)
        await this.page.keyboard.press("ArrowDown");
    } else {
      // A phone shows its own picker for a drop-down list, which a page cannot drive: the choice is made for it.
      await select.selectOption({ label: option });
    }
    if ((await chosen()) !== option) throw new Error(`could not choose ${option} in ${label}`);
  }

  async press(name: string | RegExp): Promise<void> {
    const target = this.control(name);
    await target.waitFor();
    if (this.mode === "keyboard") {
      await this.tabTo(target);
      await this.page.keyboard.press("Enter");
    } else if (this.mode === "phone") {
      await target.tap();
    } else {
      await target.click();
    }
  }

  /** Waits for the page whose heading is `heading`, then checks it. */
  async reaches(heading: string | RegExp): Promise<void> {
    try {
      await scriptHeading(this.page, heading).waitFor({ timeout: 15000 });
    } catch (err) {
      throw new Error(`${String(heading)} not reached; the page shows: ${await this.shown()}`, { cause: err });
    }
    await this.audit();
  }

  /** What the page says at its top and in its alerts and field errors: the reason a journey stalled. */
  private async shown(): Promise<string> {
    const texts = await this.page
      .locator("h1, [role=alert], [role=status], p.error:not([hidden]), [aria-invalid=true]")
      .evaluateAll((els) =>
        els.map((el) => {
          const e = el as unknown as { tagName: string; textContent: string | null; value?: string };
          return `${e.tagName.toLowerCase()}: ${(e.textContent ?? "").trim() || (e.value ?? "")}`;
        }),
      )
      .catch((e: unknown) => [`(unreadable: ${String(e)})`]);
    return `${this.page.url()} | ${texts.join(" | ")}`;
  }

  async audit(): Promise<void> {
    if (this.page.url().startsWith("https://") === false) return;
    await this.page.evaluate(AXE);
    const violations = await this.page.evaluate(async () => {
      const axe = (
        globalThis as unknown as {
          axe: {
            run(
              ctx: unknown,
              options: unknown,
            ): Promise<{
              violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }>;
            }>;
          };
        }
      ).axe;
      const result = await axe.run(document, {
        runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] },
      });
      return result.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n) => n.target.join(" ")),
      }));
    });
    const heading = (await this.page.locator("h1").first().textContent()) ?? "";
    this.audited.push({ heading, violations });
    if (this.mode === "phone") {
      const overflow = await this.page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      if (overflow > 0) throw new Error(`"${heading}" scrolls sideways on a phone by ${overflow} px`);
    }
  }

  /** The violations that matter: serious or critical, on any page checked so far. */
  serious(): Array<Violation & { heading: string }> {
    return this.audited.flatMap((a) =>
      a.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => ({ ...v, heading: a.heading })),
    );
  }

  async screenshot(name: string): Promise<string> {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const path = join(SCREENSHOTS, `${name}-${this.mode}.png`);
    await this.page.screenshot({ path, fullPage: true });
    return path;
  }
}

/** From the sign-in page to the end of an email-code sign-in, the code read from the stack's inbox. */
export async function signInByCode(visitor: Visitor, email: string): Promise<void> {
  await visitor.reaches("Sign in");
  await visitor.fill("Email address", email);
  await visitor.press("Email me a code");
  await visitor.reaches("Check your email");
  await visitor.fill("Code from the email", await codeFor(email));
  await visitor.press("Sign in");
}

/** Another person at their own browser, in the same way of using it, checked as the journey's visitor is. */
export async function secondVisitor(world: () => BrowserWorld, mode: Mode) {
  const context = await world().context({ phone: mode === "phone" });
  const page = await context.newPage();
  return { context, page, visitor: new Visitor(page, mode) };
}

/** The session cookie this browser holds for the parent domain, if any. */
export async function sessionCookie(page: Page): Promise<string | null> {
  const cookies = await page.context().cookies("https://example.test/");
  return cookies.find((c) => c.name === "__session" && !c.value.startsWith("bridge."))?.value ?? null;
}

/** One journey of a test file's: a fresh browser profile in the mode, and the name of its screenshot. */
export interface Journey {
  context: BrowserContext;
  page: Page;
  visitor: Visitor;
  /** Names the screenshot the journey ends with. */
  name: string;
}

/**
 * Gives each test a fresh profile (a phone's screen in phone mode) and, after it, saves the
 * screenshot of its last page and fails it on any serious or critical axe-core violation.
 */
export function useJourneys(world: () => BrowserWorld, mode: Mode): Journey {
  const journey = {} as Journey;
  beforeEach(async () => {
    journey.context = await world().context({ phone: mode === "phone" });
    journey.page = await journey.context.newPage();
    journey.visitor = new Visitor(journey.page, mode);
    journey.name = "journey";
  });
  afterEach(async () => {
    await journey.visitor.screenshot(journey.name);
    await journey.context.close();
    expect(journey.visitor.serious()).toEqual([]);
  });
  return journey;
}
