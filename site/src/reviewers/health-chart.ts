/**
 * The service health page's charts: stacked bars, one bar per bucket (an hour or a day) and one
 * band per series, drawn as inline SVG with the DOM (no library, nothing inline a `style-src
 * 'self'` refuses: the colours are classes of style.css). Each chart is an image with a summary
 * for a screen reader (`role="img"`, `aria-label`), a legend that names each series beside its
 * colour, and its numbers as a real table, so nothing rests on colour alone.
 *
 * The SVG is drawn at its container's width in CSS pixels (its viewBox the same), so its words
 * stay the page's size on a phone and on a wide screen alike, and is drawn again when that width
 * changes; between two drawings it scales (width 100%).
 */
import { h, unseen } from "../shared/ui";

const SVG = "http://www.w3.org/2000/svg";

export interface Series {
  /** What the legend and the table call it. */
  name: string;
  /** One a bucket. */
  counts: number[];
  /** Its colour: a class of style.css (`tone-blue`, `tone-orange`…). */
  tone: string;
}

export interface ChartOptions {
  /** What the chart shows, for its caption and summary: "Sign-ins by way in". */
  title: string;
  /** Each bucket's label on the axis (short) and in the table (in full). */
  ticks: string[];
  rows: string[];
  /** What the table's first column is: "Hour", "Day". */
  bucket: string;
  series: Series[];
  /** What the summary says when every count is 0: "No sign-ins". */
  none: string;
  /** The counts are lower bounds ("at least"). */
  partial: boolean;
  /** Said after the caption: the time zone, for one. */
  note: string;
  /**
   * Which buckets the axis labels, given that one in `every` fits: round hours, say. Unsaid, the
   * newest and every `every`th before it.
   */
  labelled?: (i: number, every: number) => boolean;
}

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  ...children: Array<Node | string>
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  el.append(...children);
  return el;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** "12", or "at least 12" where the counts are lower bounds. */
export function counted(n: number, partial: boolean): string {
  return partial && n > 0 ? `at least ${n}` : String(n);
}

/** The top of the scale and its step: 1, 2 or 5 times a power of ten, in at most 4 steps. */
export function scale(max: number): { top: number; step: number } {
  if (max <= 0) return { top: 4, step: 1 };
  for (let power = 1; ; power *= 10)
    for (const m of [1, 2, 5]) {
      const step = m * power;
      if (step * 4 >= max) return { top: Math.ceil(max / step) * step, step };
    }
}

/** What a screen reader is told the chart shows: the total, each series's, and the busiest bucket. */
export function summary(options: ChartOptions): string {
  const totals = options.series.map((s) => sum(s.counts));
  const all = sum(totals);
  if (all === 0) return `${options.title}: ${options.none}.`;
  const per = options.rows.map((_, i) => sum(options.series.map((s) => s.counts[i] ?? 0)));
  const busiest = per.indexOf(Math.max(...per));
  const parts = options.series
    .map((s, i) => `${s.name} ${counted(totals[i] ?? 0, options.partial)}`)
    .filter((_, i) => (totals[i] ?? 0) > 0);
  return `${options.title}: ${counted(all, options.partial)} in all (${parts.join(", ")}); the most in ${options.rows[busiest]}, ${per[busiest]}.`;
}

/** `x`, moved in so that `half` either side of it is inside 0…`width`. */
const within = (x: number, half: number, width: number) => Math.min(Math.max(x, half), width - half);

/** The bars, at `width` CSS pixels. */
function draw(options: ChartOptions, width: number, font: number): SVGSVGElement {
  const height = Math.round(12.5 * font);
  const n = options.ticks.length;
  const per = options.ticks.map((_, i) => sum(options.series.map((s) => s.counts[i] ?? 0)));
  const { top, step } = scale(Math.max(0, ...per));
  const charWidth = font * 0.62;
  const left = Math.ceil(String(top).length * charWidth + font * 0.75);
  const right = Math.ceil(font * 0.75);
  const above = Math.ceil(font * 0.75);
  const below = Math.ceil(font * 2);
  const plotWidth = Math.max(1, width - left - right);
  const plotHeight = height - above - below;
  const slot = plotWidth / n;
  const bar = Math.max(1, Math.min(slot * 0.72, slot - 2));
  const y = (v: number) => above + plotHeight - (v / top) * plotHeight;
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width: "100%",
    class: "chart",
    role: "img",
    "aria-label": summary(options),
    focusable: "false",
  });
  // The scale: a line and a number at each step.
  for (let v = 0; v <= top; v += step) {
    chart.append(
      svg("line", { x1: left, x2: width - right, y1: y(v), y2: y(v), class: v === 0 ? "axis" : "grid" }),
      svg("text", { x: left - font * 0.4, y: y(v), "text-anchor": "end", "dominant-baseline": "middle" }, String(v)),
    );
  }
  // A label every few buckets, as many as fit side by side.
  const widest = Math.max(...options.ticks.map((t) => t.length)) * charWidth + font;
  const every = [1, 2, 3, 4, 6, 8, 12].find((k) => k * slot >= widest) ?? Math.ceil(widest / slot);
  options.ticks.forEach((label, i) => {
    const x = left + slot * i + slot / 2;
    if (!(options.labelled ?? ((j: number, k: number) => (n - 1 - j) % k === 0))(i, every)) return;
    chart.append(
      svg("line", { x1: x, x2: x, y1: above + plotHeight, y2: above + plotHeight + font * 0.35, class: "axis" }),
      // Kept inside the picture: the first and last labels would otherwise hang over its edges.
      svg(
        "text",
        {
          x: within(x, (label.length * charWidth) / 2, width),
          y: above + plotHeight + font * 1.35,
          "text-anchor": "middle",
        },
        label,
      ),
    );
  });
  // The bars: each series a band, from the first at the foot; a thin gap of white between bands.
  options.ticks.forEach((_, i) => {
    let base = 0;
    for (const s of options.series) {
      const count = s.counts[i] ?? 0;
      if (count === 0) continue;
      const x = left + slot * i + (slot - bar) / 2;
      chart.append(
        svg(
          "rect",
          {
            x: x.toFixed(1),
            y: y(base + count).toFixed(1),
            width: bar.toFixed(1),
            height: Math.max(1, y(base) - y(base + count)).toFixed(1),
            class: `bar ${s.tone}`,
          },
          svg("title", {}, `${options.rows[i]}: ${s.name} ${count}`),
        ),
      );
      base += count;
    }
  });
  if (sum(per) === 0)
    chart.append(
      svg(
        "text",
        { x: left + plotWidth / 2, y: above + plotHeight / 2, "text-anchor": "middle", class: "none" },
        options.none,
      ),
    );
  return chart;
}

/** The numbers: a row a bucket, a column a series, and the totals at the foot. */
export function numbers(options: ChartOptions): HTMLTableElement {
  const totals = options.series.map((s) => sum(s.counts));
  const all = (i: number) => sum(options.series.map((s) => s.counts[i] ?? 0));
  return h(
    "table",
    { class: "rows numbers" },
    h("caption", {}, options.title, h("span", { class: "small" }, ` (${options.note})`)),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, options.bucket),
        ...options.series.map((s) => h("th", { scope: "col" }, s.name)),
        h("th", { scope: "col" }, "All"),
      ),
    ),
    h(
      "tbody",
      {},
      ...options.rows.map((row, i) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, row),
          ...options.series.map((s) => h("td", {}, String(s.counts[i] ?? 0))),
          h("td", {}, String(all(i))),
        ),
      ),
    ),
    h(
      "tfoot",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "row" }, options.partial ? "In all (at least)" : "In all"),
        ...totals.map((t) => h("td", {}, String(t))),
        h("td", {}, String(sum(totals))),
      ),
    ),
  );
}

/** Each series's colour beside its name and its total: the key to the bars. */
function legend(options: ChartOptions): HTMLElement {
  return h(
    "ul",
    { class: "legend", "aria-hidden": "true" },
    ...options.series.map((s) =>
      h("li", {}, h("span", { class: `swatch ${s.tone}` }), `${s.name}: ${counted(sum(s.counts), options.partial)}`),
    ),
  );
}

/**
 * The chart, its legend, and its numbers (a table in a `<details>`, "The numbers"). Drawn at its
 * container's width once it is on the page, and again whenever that width changes.
 */
export function barChart(options: ChartOptions): HTMLElement {
  const place = h("div", { class: "chart-place" });
  const redraw = () => {
    const font = parseFloat(getComputedStyle(place).fontSize) || 16;
    const width = Math.max(200, Math.floor(place.clientWidth || 320));
    place.replaceChildren(draw(options, width, font * 0.8125));
  };
  let drawnAt = -1;
  new ResizeObserver(() => {
    if (place.clientWidth === drawnAt || place.clientWidth === 0) return;
    drawnAt = place.clientWidth;
    redraw();
  }).observe(place);
  redraw();
  const hasAny = options.series.some((s) => sum(s.counts) > 0);
  return h(
    "div",
    { class: "chart-block" },
    place,
    hasAny ? legend(options) : null,
    h(
      "details",
      {},
      h("summary", {}, "The numbers", unseen(`: ${options.title.toLowerCase()}`)),
      // Scrolled on its own when it is wider than a phone (every way in at once), never the page.
      h(
        "div",
        { class: "table-scroll", role: "region", tabindex: "0", "aria-label": `${options.title}: the numbers` },
        numbers(options),
      ),
    ),
  );
}
