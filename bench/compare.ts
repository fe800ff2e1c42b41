/**
 * The one command that measures Tack against its peers and prints the table:
 * `deno run -A --v8-flags=--expose-gc bench/compare.ts` (`deno task bench`).
 *
 * Every row is measured in this run, every contender on the same scripted workload
 * (`workload.ts`): warm-up runs first, then interleaved rounds (each contender once per
 * round, a forced GC before each run but in the rows marked "GC left to V8"), and the table
 * shows medians with the ratio to Tack.
 *
 * Flags: `--quick` (a smoke test, not a result: Tack, pi and the floor unless `--only` says
 * otherwise, fewer runs, no 10,000-turn row, no warm-up curve, memory, provider or sandbox
 * rows), `--only=tack,pi` (some frameworks), `--write` (also write `bench/RESULTS.md`),
 * `--no-memory`, `--no-external` (skip the provider and sandbox rows).
 *
 * @module
 */

import { parseArgs } from "node:util";
import type { CompareCell, CompareRow } from "./compare_row.ts";
import { type Framework, loadFrameworks } from "./frameworks.ts";
import { externalRows } from "./external_rows.ts";
import { describeMachine, type Machine } from "./machine.ts";
import { canCollect, measureInterleaved, median } from "./measure.ts";
import { measureMemory } from "./memory.ts";
import { measureWarmup, WARMUP_RUNS, WARMUP_TURNS } from "./warmup.ts";
import { renderResults, renderTable } from "./render_table.ts";
import { validationRows } from "./validation_bench.ts";
import { CALLS_PER_TURN, checkOutcome } from "./workload.ts";

/** Settings of one comparison run. */
export interface CompareOptions {
  quick: boolean;
  only?: readonly string[];
  memory: boolean;
  /** Run the provider and sandbox benchmark files (default true). */
  external: boolean;
}

/** Above this projected time, a single run of a row is skipped (with the reason shown). */
const MAX_PROJECTED_RUN_MS = 60_000;

function cellsOf(
  frameworks: readonly Framework[],
  value: (framework: Framework) => CompareCell,
): { tack: CompareCell; others: Record<string, CompareCell>; floor?: CompareCell } {
  const others: Record<string, CompareCell> = {};
  let tack: CompareCell = { note: "not measured" };
  let floor: CompareCell | undefined;
  for (const framework of frameworks) {
    const cell = framework.run ? value(framework) : { note: framework.unavailable };
    if (framework.key === "tack") tack = cell;
    else if (framework.key === "floor") floor = cell;
    else others[framework.label] = cell;
  }
  return floor ? { tack, others, floor } : { tack, others };
}

/** How the garbage collector was handled, for the notes. */
const GC_REGIME = canCollect
  ? "a full GC forced before every measured run (--expose-gc), so no run pays for the last one's garbage"
  : "GC not forced (run without --expose-gc): runs may pay for each other's garbage";

/** The regime of the steady-state rows, for their title and note. */
const STEADY_TITLE = "GC left to V8";
const STEADY_NOTE =
  "GC not forced: V8 collects when it decides, as in a long-running process (the steady state; a forced full GC also resets the JIT's inline caches, which short runs then pay for)";

/** The two API levels the loop rows compare. */
type Level = "agent" | "loop";

const LEVEL_TITLE: Record<Level, string> = {
  agent: "agent API (Tack createAgent, pi Agent, ai, @openai/agents)",
  loop: "loop API (Tack runLoop, pi runAgentLoop)",
};

async function loopRows(
  all: readonly Framework[],
  options: CompareOptions,
  level: Level,
): Promise<CompareRow[]> {
  const runnerOf = (f: Framework) => (level === "agent" ? f.run : f.loop);
  // A column only for frameworks that have this API level.
  const frameworks = all.filter((f) => level === "agent" || f.loop || !f.run);
  const sizes = options.quick || level === "loop" ? [200, 2_000] : [200, 2_000, 10_000];
  // The forced-GC sizes, then 2,000 turns again with the GC left to V8.
  const runsOf = [
    ...sizes.map((turns) => ({ turns, collect: true })),
    ...(options.quick ? [] : [{ turns: 2_000, collect: false }]),
  ];
  const runnable = frameworks.filter((f) => runnerOf(f));
  const perCall = new Map<string, Map<number, number>>(runnable.map((f) => [f.key, new Map()]));
  const skipped = new Map<string, string>();
  const rows: CompareRow[] = [];
  // Warm-up for the JIT: a few small runs of every framework before anything is timed.
  for (let i = 0; i < (options.quick ? 1 : 3); i++) {
    for (const f of runnable) checkOutcome(f.label, 50, await runnerOf(f)!(50));
  }
  for (const { turns, collect } of runsOf) {
    const contenders = runnable.filter((f) => {
      if (!collect) return perCall.get(f.key)!.has(turns);
      const previous = perCall.get(f.key)!;
      const last = [...previous.entries()].at(-1);
      if (!last) return true;
      const [lastTurns, lastPerCall] = last;
      const [firstTurns, firstPerCall] = [...previous.entries()][0];
      // Per-call cost extrapolated along the growth seen so far (a power law in turns).
      const growth = Math.max(1, lastPerCall / firstPerCall);
      const exponent = lastTurns === firstTurns
        ? 0
        : Math.log(growth) / Math.log(lastTurns / firstTurns);
      const projected = lastPerCall * (turns / lastTurns) ** exponent / 1000 * turns *
        CALLS_PER_TURN;
      if (projected > MAX_PROJECTED_RUN_MS) {
        skipped.set(
          f.key,
          `not run: projected ${Math.round(projected / 1000)} s per run, from ` +
            (lastTurns === firstTurns
              ? `${Math.round(lastPerCall)} µs per call at ${lastTurns} turns`
              : `its per-call cost growing ${growth.toFixed(1)}× from ${firstTurns} to ` +
                `${lastTurns} turns`),
        );
        return false;
      }
      return true;
    });
    const times = await measureInterleaved(
      contenders.map((f) => ({
        name: f.key,
        run: async () => checkOutcome(f.label, turns, await runnerOf(f)!(turns)),
      })),
      {
        warmup: turns >= 10_000 ? 0 : 1,
        runs: options.quick ? 3 : 7,
        minRuns: 3,
        budgetMs: options.quick ? 2_000 : 20_000,
        minTotalMs: options.quick ? 0 : 1_500,
        maxRuns: 60,
        collect,
      },
    );
    const spread = new Map<string, { min: number; max: number }>();
    const toPerCall = (ms: number) => ms * 1000 / (turns * CALLS_PER_TURN);
    const medians = new Map<string, number>();
    for (const [key, durations] of times) {
      medians.set(key, toPerCall(median(durations)));
      // The growth rows compare the forced-GC sizes only.
      if (collect) perCall.get(key)!.set(turns, medians.get(key)!);
      spread.set(key, {
        min: toPerCall(Math.min(...durations)),
        max: toPerCall(Math.max(...durations)),
      });
    }
    const runsNote = [...times].map(([key, d]) => `${key} ${d.length}`).join(", ");
    rows.push({
      measure: `${LEVEL_TITLE[level]}: overhead per tool call, ${
        turns.toLocaleString("en")
      } turns × ${CALLS_PER_TURN}${collect ? "" : `, ${STEADY_TITLE}`}`,
      unit: "µs/call",
      better: "lower",
      ...cellsOf(frameworks, (f) => {
        const value = medians.get(f.key);
        return value === undefined
          ? { note: skipped.get(f.key) ?? "not run" }
          : { value, ...spread.get(f.key) };
      }),
      note: `median of runs (${runsNote}) after warm-up; total time ÷ ${
        (turns * CALLS_PER_TURN).toLocaleString("en")
      } calls; an asynchronous tool on every side; ${collect ? GC_REGIME : STEADY_NOTE}`,
    });
  }
  const first = sizes[0];
  for (const turns of sizes.slice(1)) {
    rows.push({
      measure: `${level} API cost growth: per-call cost at ${
        turns.toLocaleString("en")
      } ÷ at ${first} turns`,
      unit: "×",
      better: "lower",
      ...cellsOf(frameworks, (f) => {
        const calls = perCall.get(f.key);
        const at = calls?.get(turns);
        const base = calls?.get(first);
        return at === undefined || base === undefined
          ? { note: skipped.get(f.key) ?? "not run" }
          : { value: at / base };
      }),
      note: "1.0 = flat: a call costs the same however long the conversation is",
    });
  }
  return rows;
}

/** The warm-up curve: per-call cost of a fresh process's 1st, 2nd, … run, per framework. */
async function warmupRows(frameworks: readonly Framework[]): Promise<CompareRow[]> {
  const curves = new Map<string, number[] | string>();
  for (const f of frameworks.filter((f) => f.run)) {
    try {
      curves.set(f.key, await measureWarmup(f.key));
    } catch (error) {
      curves.set(f.key, error instanceof Error ? error.message : String(error));
    }
  }
  return WARMUP_RUNS.map((run, i) => ({
    measure:
      `warm-up: run ${run} of a fresh process, agent API, ${WARMUP_TURNS} turns × ${CALLS_PER_TURN}`,
    unit: "µs/call",
    better: "lower" as const,
    ...cellsOf(frameworks, (f) => {
      const curve = curves.get(f.key);
      return typeof curve === "string" || curve === undefined
        ? { note: curve ?? "not run" }
        : { value: curve[i] };
    }),
    note: i === 0
      ? "a fresh process per framework (bench/warmup.ts): the JIT's warm-up as a user's first runs see it"
      : undefined,
  }));
}

async function memoryRows(frameworks: readonly Framework[]): Promise<CompareRow[]> {
  const peak = new Map<string, CompareCell>();
  const retained = new Map<string, CompareCell>();
  for (const f of frameworks.filter((f) => f.run && f.key !== "floor")) {
    try {
      const baseline = await measureMemory(f.key, 11);
      const full = await measureMemory(f.key, 10_000);
      peak.set(f.key, { value: (full.peakRss - baseline.peakRss) / 2 ** 20 });
      retained.set(f.key, { value: full.retainedHeap / 2 ** 20 });
    } catch (error) {
      const note = error instanceof Error ? error.message : String(error);
      peak.set(f.key, { note });
      retained.set(f.key, { note });
    }
  }
  return [
    {
      measure: "peak memory, 10,001-message transcript (peak RSS over a 1-turn baseline)",
      unit: "MB",
      better: "lower",
      ...cellsOf(frameworks.filter((f) => f.key !== "floor"), (f) => peak.get(f.key)!),
      note: "a fresh process per framework; VmHWM after the run minus VmHWM of a 1-turn run",
    },
    {
      measure: "transcript heap retained after GC, 10,001 messages",
      unit: "MB",
      better: "lower",
      ...cellsOf(frameworks.filter((f) => f.key !== "floor"), (f) => retained.get(f.key)!),
      note: "heapUsed after the run and a full GC, minus before it, with the transcript alive",
    },
  ];
}

/**
 * Measures every row.
 *
 * @param options Quick mode, framework filter, memory rows on or off.
 * @returns The rows and the machine they ran on.
 */
export async function compare(
  options: CompareOptions,
): Promise<{ machine: Machine; rows: CompareRow[]; loadAfter: number }> {
  const machine = describeMachine();
  const frameworks = await loadFrameworks(options.only);
  const rows = [
    ...(options.quick ? [] : await warmupRows(frameworks)),
    ...await loopRows(frameworks, options, "loop"),
    ...await loopRows(frameworks, options, "agent"),
    ...await validationRows(options.quick),
    ...(options.external ? await externalRows() : []),
    ...(options.memory ? await memoryRows(frameworks) : []),
  ];
  return { machine, rows, loadAfter: describeMachine().load };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string" },
      write: { type: "boolean", default: false },
      "no-memory": { type: "boolean", default: false },
      "no-external": { type: "boolean", default: false },
    },
  });
  if (!canCollect) {
    console.error("Note: run with --v8-flags=--expose-gc so a GC can be forced between runs.");
  }
  // A smoke test runs in seconds: the slow peers and the rows in other processes are left out.
  const quick = values.quick;
  const options: CompareOptions = {
    quick,
    only: values.only?.split(",").map((key) => key.trim()) ?? (quick ? ["tack", "pi"] : undefined),
    memory: !quick && !values["no-memory"],
    external: !quick && !values["no-external"],
  };
  const result = await compare(options);
  console.log(renderTable(result.rows));
  if (values.write) {
    const path = new URL("./RESULTS.md", import.meta.url);
    await Deno.writeTextFile(
      path,
      renderResults(result.machine, result.rows, result.loadAfter, Deno.args),
    );
    console.log(`\nWrote ${path.pathname}`);
  }
}
