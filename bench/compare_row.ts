/**
 * The row format `compare.ts` prints. Other benchmark files (`provider_bench.ts`,
 * `sandbox_bench.ts`) join the table by exporting
 * `compareRows(): Promise<CompareRow[]>`; `compare.ts` measures them in the same run.
 *
 * @module
 */

/** One measured value of a row. */
export interface CompareCell {
  /** The median, in the row's unit; absent when the contender could not run. */
  value?: number;
  /** The fastest run, in the row's unit (when several runs were measured). */
  min?: number;
  /** The slowest run, in the row's unit. */
  max?: number;
  /** Why there is no value, or a short remark. */
  note?: string;
}

/** A row of the comparison table: one measure, Tack against one or more others. */
export interface CompareRow {
  /** What is measured, e.g. `"loop overhead per call, 200 turns"`. */
  measure: string;
  /** The unit of every value, e.g. `"µs/call"`, `"MB"`, `"MB/s"`. */
  unit: string;
  /** Which way is better. */
  better: "lower" | "higher";
  /** Tack's value. */
  tack: CompareCell;
  /** The others, by column title (a framework, or a baseline such as `"bare openai client"`). */
  others: Record<string, CompareCell>;
  /** The floor: a minimal loop doing the same observable work (not a contender; no "leads"). */
  floor?: CompareCell;
  /** How it was measured (runs, sizes), and any caveat. */
  note?: string;
}

/**
 * How many times Tack's cost a contender's is: above 1 means Tack is ahead.
 *
 * @param row The row (for its direction).
 * @param other The contender's value.
 * @returns `other / tack` for lower-is-better rows, `tack / other` for higher-is-better ones;
 * `undefined` when either value is missing.
 */
export function advantage(row: CompareRow, other: number | undefined): number | undefined {
  const tack = row.tack.value;
  if (tack === undefined || other === undefined || tack === 0 || other === 0) return undefined;
  return row.better === "lower" ? other / tack : tack / other;
}
