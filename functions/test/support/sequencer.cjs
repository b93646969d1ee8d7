/**
 * The order the suite's files are handed to jest's workers. Files marked `@stack-project` take the
 * stack's project one at a time (test/support/environment.cjs), so a worker handed one while
 * another runs would wait: the order is planned so that one such file is running whenever there
 * is one left, and the other workers take the files with projects of their own meanwhile, the
 * longest first in each lane. A file's length is its last run's (jest's cache) where known,
 * otherwise guessed from its size, a browser file's thrice.
 */
const { readFileSync, statSync } = require("node:fs");
const { extract, parse } = require("jest-docblock");
const Sequencer = require("@jest/test-sequencer").default;

const sharesStack = (path) =>
  path.endsWith(".test.ts") && "stack-project" in parse(extract(readFileSync(path, "utf8")));

class LaneSequencer extends Sequencer {
  constructor(options) {
    super(options);
    this.workers = Math.max(1, options?.globalConfig?.maxWorkers ?? 1);
  }

  sort(tests) {
    const sorted = super.sort([...tests]);
    if (this.workers === 1) return sorted;
    const bySize = (test) => statSync(test.path).size / 1000;
    const stack = [];
    const own = [];
    for (const test of sorted) {
      if (sharesStack(test.path)) stack.push({ test, shared: true, ms: test.duration ?? 3 * bySize(test) });
      else own.push({ test, shared: false, ms: test.duration ?? bySize(test) });
    }
    const free = Array.from({ length: this.workers }, () => 0);
    let laneFree = 0;
    const order = [];
    while (stack.length + own.length > 0) {
      const worker = free.indexOf(Math.min(...free));
      const now = free[worker];
      const next = stack.length > 0 && (laneFree <= now || own.length === 0) ? stack.shift() : own.shift();
      const start = next.shared ? Math.max(now, laneFree) : now;
      free[worker] = start + next.ms;
      if (next.shared) laneFree = free[worker];
      order.push(next.test);
    }
    return order;
  }
}

module.exports = LaneSequencer;
