/**
 * Bytes allocated per tool call on the loop workload: Tack's `createAgent`, Tack's
 * `runLoop` and the floor (bench/floor.ts). Allocation, not time: it does not depend on what
 * else the machine runs, so it can be compared across commits on a busy machine. What the
 * "GC left to V8" rows pay beyond the forced-GC ones is scavenging, and scavenges come in
 * proportion to the bytes allocated.
 *
 * Reads V8's `total_allocated_bytes` (node:v8 `getHeapStatistics`) around each run, after
 * warm-up runs (so the JIT's own allocations are mostly done), and prints the median per
 * call. No timing, no assertions. The rows run in one process, as in compare.ts: which rows
 * run together changes what V8 optimizes (createAgent and runLoop share the core), so
 * compare commits with the same `--only`.
 *
 * `--profile=tack` (or `loop`, `floor`) then runs V8's sampling heap profiler over a few
 * runs of that row and prints the functions that allocated most, per call (an inlined
 * function's allocations count for the function it was inlined into; add
 * `--v8-flags=--no-turbo-inlining` to see them apart, at a somewhat different total; lines
 * are those of the transpiled JavaScript).
 *
 * `cd bench && deno run -A alloc.ts [--turns=2000] [--runs=7] [--only=tack,loop,floor]
 * [--profile=tack]`
 *
 * @module
 */

import { Session } from "node:inspector/promises";
import { getHeapStatistics } from "node:v8";
import { parseArgs } from "node:util";
import { runFloor } from "./floor.ts";
import { median } from "./measure.ts";
import { runTack, runTackLoop } from "./tack.ts";
import { CALLS_PER_TURN, checkOutcome, type LoopRunner } from "./workload.ts";

const ROWS: Record<string, { label: string; run: LoopRunner }> = {
  tack: { label: "Tack createAgent", run: runTack },
  loop: { label: "Tack runLoop", run: runTackLoop },
  floor: { label: "floor", run: runFloor },
};

/** V8's count of bytes allocated since the process started (newer than Deno's types). */
function allocatedBytes(): number {
  return (getHeapStatistics() as { total_allocated_bytes?: number }).total_allocated_bytes ??
    NaN;
}

/**
 * Bytes V8 allocated during one run of `run`.
 *
 * @param run The runner.
 * @param turns Tool turns.
 * @returns The bytes allocated.
 */
async function bytesOfRun(run: LoopRunner, turns: number): Promise<number> {
  const before = allocatedBytes();
  const outcome = await run(turns);
  const after = allocatedBytes();
  checkOutcome("alloc", turns, outcome);
  return after - before;
}

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/**
 * Bytes allocated per call by each function, sampled by V8's heap profiler over `runs` runs.
 *
 * @param run The runner.
 * @param turns Tool turns per run.
 * @param runs Runs to sample.
 * @returns Function (name, file:line) and bytes per call, most first.
 */
async function profile(run: LoopRunner, turns: number, runs: number): Promise<[string, number][]> {
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 32,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let i = 0; i < runs; i++) await run(turns);
  const { profile } = await session.post("HeapProfiler.stopSampling");
  session.disconnect();
  const bytes = new Map<string, number>();
  const walk = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = `${functionName || "(anonymous)"} ${url.split("/").slice(-2).join("/")}:${
      lineNumber + 1
    }`;
    if (node.selfSize > 0) bytes.set(where, (bytes.get(where) ?? 0) + node.selfSize);
    node.children.forEach(walk);
  };
  walk(profile.head as ProfileNode);
  const calls = turns * CALLS_PER_TURN * runs;
  return [...bytes].map(([where, total]): [string, number] => [where, total / calls])
    .sort((a, b) => b[1] - a[1]);
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      turns: { type: "string", default: "2000" },
      runs: { type: "string", default: "7" },
      only: { type: "string", default: "tack,loop,floor" },
      profile: { type: "string" },
    },
  });
  const turns = Number(values.turns);
  const runs = Number(values.runs);
  const calls = turns * CALLS_PER_TURN;
  const keys = values.only.split(",");
  for (const key of keys) {
    for (let i = 0; i < 20; i++) await ROWS[key].run(turns); // warm-up
  }
  const perCall = new Map<string, number[]>(keys.map((key) => [key, []]));
  for (let i = 0; i < runs; i++) {
    for (const key of keys) {
      perCall.get(key)!.push((await bytesOfRun(ROWS[key].run, turns)) / calls);
    }
  }
  const floor = perCall.has("floor") ? median(perCall.get("floor")!) : undefined;
  console.log(`${turns} turns × ${CALLS_PER_TURN} calls, median of ${runs} runs`);
  for (const key of keys) {
    const values = perCall.get(key)!;
    const bytes = median(values);
    const range = `[${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}]`;
    const ratio = floor && key !== "floor" ? ` (${(bytes / floor).toFixed(2)}× the floor)` : "";
    console.log(
      `${ROWS[key].label.padEnd(18)} ${bytes.toFixed(0).padStart(6)} B/call ${range}${ratio}`,
    );
  }
  if (values.profile) {
    const sampled = await profile(ROWS[values.profile].run, turns, 5);
    const total = sampled.reduce((sum, [, bytes]) => sum + bytes, 0);
    console.log(`\n${ROWS[values.profile].label}, sampled: ${total.toFixed(0)} B/call`);
    for (const [where, bytes] of sampled.slice(0, 30)) {
      console.log(`${bytes.toFixed(1).padStart(8)}  ${where}`);
    }
  }
}
