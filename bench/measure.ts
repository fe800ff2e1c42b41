/**
 * Timing helpers for `compare.ts`: interleaved runs, warm-up, medians.
 *
 * @module
 */

/** `globalThis.gc` when the process runs with `--v8-flags=--expose-gc`. */
const collect = (globalThis as { gc?: () => void }).gc;

/** Whether a full GC can be forced between runs. */
export const canCollect: boolean = typeof collect === "function";

/** Forces a full garbage collection when the flag allows it; otherwise does nothing. */
export function collectGarbage(): void {
  collect?.();
}

/**
 * The median of some numbers.
 *
 * @param values At least one number.
 * @returns The middle value (the mean of the two middle ones for an even count).
 * @throws {Error} When `values` is empty.
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("Cannot take the median: no values");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** One contender of a row: a name and a function doing one run. */
export interface Contender {
  name: string;
  run: () => Promise<void> | void;
}

/** Options of {@linkcode measureInterleaved}. */
export interface MeasureOptions {
  /** Unmeasured runs of each contender first (default 1). */
  warmup?: number;
  /** Measured runs of each contender (default 5). */
  runs?: number;
  /** Stop adding runs once a contender has spent this long, keeping at least `minRuns`. */
  budgetMs?: number;
  /** Floor for `runs` under the budget (default 3). */
  minRuns?: number;
  /**
   * Keep giving a contender more rounds (up to `maxRuns`) until its measured runs add up to
   * this long, so a fast contender's median rests on enough time to beat timer and
   * scheduler noise (default 0).
   */
  minTotalMs?: number;
  /** Cap on rounds when `minTotalMs` asks for more (default 4 × `runs`). */
  maxRuns?: number;
  /** Force a full GC before every measured run (default `true`, when `--expose-gc` allows). */
  collect?: boolean;
}

/**
 * Runs every contender `warmup` times, then rounds in which each contender still wanting
 * runs runs once (interleaved, so drift and load hit everyone alike), forcing a GC before
 * every measured run when possible (unless `collect` is `false`). A contender wants runs until it has `runs` of them
 * (at least `minRuns` whatever the budget, no more once it spent `budgetMs`) and, if
 * `minTotalMs` is set, until they add up to that long (at most `maxRuns`).
 *
 * @param contenders The contenders.
 * @param options Warm-up, run count and budget.
 * @returns Each contender's measured durations in ms, by name.
 */
export async function measureInterleaved(
  contenders: readonly Contender[],
  options: MeasureOptions = {},
): Promise<Map<string, number[]>> {
  const warmup = options.warmup ?? 1;
  const runs = options.runs ?? 5;
  const minRuns = Math.min(options.minRuns ?? 3, runs);
  const budget = options.budgetMs ?? Infinity;
  const minTotal = options.minTotalMs ?? 0;
  const maxRuns = Math.max(runs, options.maxRuns ?? runs * 4);
  const times = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  const spent = new Map<string, number>(contenders.map((c) => [c.name, 0]));
  for (let i = 0; i < warmup; i++) {
    for (const contender of contenders) await contender.run();
  }
  const wants = (name: string) => {
    const count = times.get(name)!.length;
    const used = spent.get(name)!;
    if (count < minRuns) return true;
    if (used >= budget) return false;
    return count < runs || (used < minTotal && count < maxRuns);
  };
  while (contenders.some((c) => wants(c.name))) {
    for (const contender of contenders) {
      if (!wants(contender.name)) continue;
      const own = times.get(contender.name)!;
      if (options.collect !== false) collectGarbage();
      const start = performance.now();
      await contender.run();
      const elapsed = performance.now() - start;
      own.push(elapsed);
      spent.set(contender.name, spent.get(contender.name)! + elapsed);
    }
  }
  return times;
}
