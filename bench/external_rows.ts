/**
 * The provider and sandbox rows of the comparison, taken from the benchmark files their
 * owners maintain (`provider_bench.ts`, `sandbox_bench.ts`). Each file runs in a child
 * `deno bench --json` during the comparison (so its processes and workers stay out of
 * this one), and its results are mapped to rows by bench name.
 *
 * @module
 */

import type { CompareCell, CompareRow } from "./compare_row.ts";
import type { InterleavedRow } from "./sandbox_interleaved.ts";
import { firstLoads } from "./first_load.ts";
import { median } from "./measure.ts";
import { runColdProcess } from "./run_cold_process.ts";

/** One bench of `deno bench --json`, times in nanoseconds. */
interface BenchResult {
  group?: string;
  name: string;
  results: { ok?: { n: number; avg: number; min: number; max: number; p75: number } }[];
}

/** New host processes timed for the cold-start row (after one that fills the stores). */
const COLD_PROCESS_RUNS = 7;

/** First loads timed, each in a new process with a fresh Deno cache. */
const FIRST_LOAD_RUNS = 3;

/** SSE chunks in one iteration of `provider_bench.ts` (2,000 text + 5,000 argument deltas). */
const PROVIDER_CHUNKS = 7_000;

async function runBench(file: string): Promise<BenchResult[] | string> {
  const path = new URL(file, import.meta.url).pathname;
  try {
    await Deno.stat(path);
  } catch {
    return `${file} not found`;
  }
  const output = await new Deno.Command(Deno.execPath(), {
    // --no-prompt: a worker sandbox is refused where Deno could prompt on a terminal.
    args: ["bench", "-A", "--unstable-worker-options", "--no-prompt", "--json", path],
    cwd: new URL(".", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  try {
    return (JSON.parse(stdout) as { benches: BenchResult[] }).benches;
  } catch {
    const stderr = new TextDecoder().decode(output.stderr).trim().split("\n").at(-1);
    return `${file} failed: ${stderr}`;
  }
}

function find(benches: BenchResult[] | string, pattern: RegExp): BenchResult["results"][0]["ok"] {
  if (typeof benches === "string") return undefined;
  return benches.find((b) => pattern.test(b.name))?.results[0]?.ok;
}

/** The warm rows of `sandbox_interleaved.ts --json`, or why there are none. */
async function runInterleaved(): Promise<InterleavedRow[] | string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--unstable-worker-options",
      "--no-prompt",
      new URL("./sandbox_interleaved.ts", import.meta.url).pathname,
      "--json",
    ],
    cwd: new URL(".", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  try {
    return JSON.parse(new TextDecoder().decode(output.stdout)) as InterleavedRow[];
  } catch {
    const stderr = new TextDecoder().decode(output.stderr).trim().split("\n").at(-1);
    return `sandbox_interleaved.ts failed: ${stderr}`;
  }
}

/** Cold starts in new processes, and their floor timed the same way. */
interface ColdProcesses {
  tack: number[];
  floor: number[];
}

/**
 * `cold_process.ts` run `runs` times, each in a new process, taking turns with its floor
 * (`--floor`), so load lands on both alike: the times in ms, or why not.
 */
async function runColdProcesses(runs: number): Promise<ColdProcesses | string> {
  const times: ColdProcesses = { tack: [], floor: [] };
  for (let i = 0; i < runs; i++) {
    for (const floor of [false, true]) {
      const ms = await runColdProcess({}, floor);
      if (typeof ms === "string") return ms;
      times[floor ? "floor" : "tack"].push(ms);
    }
  }
  return times;
}

/** The median and min–max of runs, leaving out the first (which fills the stores). */
function spread(times: number[]): CompareCell {
  const measured = times.slice(1);
  return { value: median(measured), min: Math.min(...measured), max: Math.max(...measured) };
}

/**
 * The sandbox rows, each next to its floor: warm calls and hooks (interleaved, medians)
 * against a raw pipe round trip of the same bytes, the hook at 10,000 messages against
 * the hook at none, the cold start against a bare `deno run` child.
 */
function sandboxRows(
  interleaved: InterleavedRow[] | string,
  benches: BenchResult[] | string,
  coldProcesses: ColdProcesses | string,
  first: number[] | string,
): CompareRow[] {
  const missing = typeof interleaved === "string" ? interleaved : "row not found";
  const row = (pattern: RegExp) =>
    typeof interleaved === "string" ? undefined : interleaved.find((one) => pattern.test(one.name));
  const us = (found: InterleavedRow | undefined): CompareCell =>
    found === undefined
      ? { note: missing }
      : { value: found.median, min: found.min, max: found.max };
  const pipe = row(/^raw pipe/);
  const hookEmpty = row(/^hook call: .*empty/);
  const interleavedNote = "sandbox_interleaved.ts: 30 rounds × 200 calls of each row, rows " +
    "taking turns, so load lands on all alike; medians of the rounds' per-call times";
  const cold = find(benches, /^cold start:/);
  const granted = find(benches, /^cold start, a plugin declaring/);
  const bare = find(benches, /^bare child/);
  const ms = (ok: typeof cold): CompareCell =>
    ok === undefined ? { note: typeof benches === "string" ? benches : "row not found" } : {
      value: ok.avg / 1e6,
      min: ok.min / 1e6,
      max: ok.max / 1e6,
    };
  const newProcessFloor = typeof coldProcesses === "string"
    ? { note: coldProcesses }
    : spread(coldProcesses.floor);
  return [
    {
      measure: "sandboxed tool call, warm process (bubblewrap where available)",
      unit: "µs/call",
      better: "lower",
      tack: us(row(/^tool call: warm process/)),
      others: {},
      floor: us(pipe),
      note: `${interleavedNote}; floor: a raw pipe round trip of the same JSON lines to a ` +
        "`deno run` child that parses and answers them (pipe_floor.ts)",
    },
    {
      measure: "sandboxed tool call, warm worker",
      unit: "µs/call",
      better: "lower",
      tack: us(row(/^tool call: warm worker/)),
      others: {},
      floor: us(pipe),
    },
    {
      measure: "sandboxed hook (beforeToolCall), empty transcript",
      unit: "µs/call",
      better: "lower",
      tack: us(hookEmpty),
      others: {},
      floor: us(pipe),
    },
    {
      measure: "sandboxed hook (beforeToolCall), 10,000 messages, one new per call",
      unit: "µs/call",
      better: "lower",
      tack: us(row(/^hook call: .*10,000/)),
      others: {},
      floor: us(hookEmpty),
      note: "floor: the same hook on an empty transcript (the target: within 1.5×)",
    },
    {
      measure: "sandbox cold start: loadPlugin + first call + dispose (plugin loaded before)",
      unit: "ms",
      better: "lower",
      tack: ms(cold),
      others: {},
      floor: ms(bare),
      note: "sandbox_bench.ts via deno bench (mean, min–max of 10): the same plugin loaded " +
        "again in one process (graph described, child cache warm); floor: a bare `deno run` " +
        "child answering one line",
    },
    {
      measure: "sandbox cold start, a plugin declaring a permission (loaded before)",
      unit: "ms",
      better: "lower",
      tack: ms(granted),
      others: {},
      floor: ms(bare),
      note: "sandbox_bench.ts via deno bench (mean, min–max of 10): the same echo tool from a " +
        "plugin declaring an env permission, loaded again in one process: its manifest is " +
        "known, so it starts once (its first load starts twice: the manifest read with no " +
        "permissions, then its grant); floor: the row above's",
    },
    {
      measure: "sandbox cold start in a new host process: loadPlugin + first call + dispose",
      unit: "ms",
      better: "lower",
      tack: typeof coldProcesses === "string"
        ? { note: coldProcesses }
        : spread(coldProcesses.tack),
      others: {},
      floor: newProcessFloor,
      note: `cold_process.ts in ${COLD_PROCESS_RUNS} new processes (median, min–max; one ` +
        "run before them fills the stores: the described graph, the child's cache); floor: a " +
        "bare `deno run` child answering one line, spawned the same way from a new process " +
        "(`cold_process.ts --floor`, taking turns with Tack's runs; a process's first spawn " +
        "costs more than the warm one the row above is next to)",
    },
    {
      measure: "sandbox first load ever: a new host process, an empty Deno cache",
      unit: "ms",
      better: "lower",
      tack: typeof first === "string"
        ? { note: first }
        : { value: median(first), min: Math.min(...first), max: Math.max(...first) },
      others: {},
      floor: newProcessFloor,
      note: `first_load.ts: cold_process.ts in ${FIRST_LOAD_RUNS} new processes, each with a ` +
        "fresh DENO_DIR (no graph description, no TypeBox bundle, no child cache, no emit " +
        "cache) holding this run's npm packages, so nothing is downloaded (median, min–max); " +
        "floor: the row above's",
    },
  ];
}

function cell(value: number | undefined, missing: string): CompareCell {
  return value === undefined || !Number.isFinite(value) ? { note: missing } : { value };
}

/**
 * Runs the provider and sandbox benchmarks and maps them to rows.
 *
 * @returns Provider throughput against the bare `openai` client; sandbox per-call
 * overhead (warm process, warm worker) and cold start.
 */
export async function externalRows(): Promise<CompareRow[]> {
  const provider = await runBench("./provider_bench.ts");
  const sandbox = await runBench("./sandbox_bench.ts");
  const interleaved = await runInterleaved();
  const coldProcesses = await runColdProcesses(COLD_PROCESS_RUNS + 1);
  const first = await firstLoads(FIRST_LOAD_RUNS);
  const why = (benches: BenchResult[] | string) =>
    typeof benches === "string" ? benches : "bench not found";
  const bare = find(provider, /^bare openai client/);
  const tack = find(provider, /^tack openai\(\)/);
  const rate = (ok: typeof bare) => ok && PROVIDER_CHUNKS / (ok.avg / 1e9) / 1000;
  return [
    {
      measure: "provider stream mapping: 7,000 recorded SSE chunks to events",
      unit: "k chunks/s",
      better: "higher",
      tack: cell(rate(tack), why(provider)),
      others: { "bare openai 7.59.0 client": cell(rate(bare), why(provider)) },
      note: "provider_bench.ts via deno bench (mean of its runs): the bare client only " +
        "parses SSE; Tack's openai() parses, maps to its event protocol and parses tool " +
        "arguments incrementally",
    },
    ...sandboxRows(interleaved, sandbox, coldProcesses, first),
  ];
}
