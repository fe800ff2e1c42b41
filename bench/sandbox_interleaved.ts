/**
 * The warm sandbox rows measured interleaved in one process, so load from other jobs lands
 * on every row alike: each round runs a batch of calls of each row in turn (the order
 * rotating from round to round), and the table gives each row's median per call over the
 * rounds, its range, and its ratio to the raw pipe floor (`pipe_floor.ts`): the median over
 * rounds of the row's time over the floor's in the same round.
 *
 *   cd bench && deno run -A --unstable-worker-options --no-prompt sandbox_interleaved.ts [--rounds=30] [--batch=200] [--json]
 *
 * `--json` prints {@linkcode InterleavedRow}s instead of the table (`compare.ts` reads them).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { median } from "./measure.ts";
import { setUpSandboxRows, type WarmRow } from "./sandbox_rows.ts";

/** One row's result: per-call µs over the rounds, and its per-round ratio to the floor. */
export interface InterleavedRow {
  name: string;
  median: number;
  min: number;
  max: number;
  /** Median over rounds of this row's time over the floor's in the same round. */
  overFloor: number;
}

/** Per-call times of each row, in µs, one value per round. */
export type RowTimes = Map<string, number[]>;

/**
 * Runs `rounds` rounds; in each, every row makes `batch` calls back to back, rows taking
 * turns in an order that rotates each round.
 *
 * @param rows The rows.
 * @param rounds How many rounds.
 * @param batch Calls per row per round.
 * @returns Each row's per-call time in µs, by round.
 */
export async function measureRows(
  rows: readonly WarmRow[],
  rounds: number,
  batch: number,
): Promise<RowTimes> {
  const times: RowTimes = new Map(rows.map((row) => [row.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < rows.length; i++) {
      const row = rows[(round + i) % rows.length];
      const start = performance.now();
      for (let call = 0; call < batch; call++) await row.run();
      times.get(row.name)!.push((performance.now() - start) * 1000 / batch);
    }
  }
  return times;
}

if (import.meta.main) {
  const flags = parseArgs({
    args: Deno.args,
    options: {
      rounds: { type: "string", default: "30" },
      batch: { type: "string", default: "200" },
      json: { type: "boolean", default: false },
    },
  });
  const rounds = Number(flags.values.rounds);
  const batch = Number(flags.values.batch);
  const set = await setUpSandboxRows();
  const rows = [set.floor, set.process, set.worker, set.hookEmpty, set.hookLarge, set.inProcess]
    .filter((row): row is WarmRow => row !== undefined);
  await measureRows(rows, 2, batch); // warm-up
  const times = await measureRows(rows, rounds, batch);
  await set.dispose();
  const floor = times.get(set.floor.name)!;
  const results: InterleavedRow[] = rows.map((row) => {
    const own = times.get(row.name)!;
    return {
      name: row.name,
      median: median(own),
      min: Math.min(...own),
      max: Math.max(...own),
      overFloor: median(own.map((us, round) => us / floor[round])),
    };
  });
  const format = (us: number) => us < 10 ? us.toFixed(2) : us.toFixed(0);
  if (flags.values.json) console.log(JSON.stringify(results));
  else {
    console.log(
      `${rounds} rounds × ${batch} calls per row, interleaved; load ${Deno.loadavg()[0]}`,
    );
    console.log("| Row | Median µs/call | Min–max of rounds | × floor |");
    console.log("| --- | --- | --- | --- |");
    for (const row of results) {
      console.log(
        `| ${row.name} | ${format(row.median)} | ${format(row.min)}–${format(row.max)} | ${
          row.overFloor.toFixed(2)
        }× |`,
      );
    }
  }
}
