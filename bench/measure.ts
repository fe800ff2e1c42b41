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
}

/**
 * Runs every contender `warmup` times, then `runs` rounds in which each contender runs
 * once (interleaved, so drift and GC pressure hit everyone alike), forcing a GC before
 * every measured run when possible.
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
  const times = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  const spent = new Map<string, number>(contenders.map((c) => [c.name, 0]));
  for (let i = 0; i < warmup; i++) {
    for (const contender of contenders) await contender.run();
  }
  for (let round = 0; round < runs; round++) {
    for (const contender of contenders) {
      const own = times.get(contender.name)!;
      if (own.length >= minRuns && spent.get(contender.name)! >= budget) continue;
      collectGarbage();
      const start = performance.now();
      await contender.run();
      const elapsed = performance.now() - start;
      own.push(elapsed);
      spent.set(contender.name, spent.get(contender.name)! + elapsed);
    }
  }
  return times;
}
