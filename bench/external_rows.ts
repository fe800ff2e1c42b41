/**
 * The provider and sandbox rows of the comparison, taken from the benchmark files their
 * owners maintain (`provider_bench.ts`, `sandbox_bench.ts`). Each file runs in a child
 * `deno bench --json` during the comparison (so its processes and workers stay out of
 * this one), and its results are mapped to rows by bench name.
 *
 * @module
 */

import type { CompareCell, CompareRow } from "./compare_row.ts";

/** One bench of `deno bench --json`, times in nanoseconds. */
interface BenchResult {
  group?: string;
  name: string;
  results: { ok?: { n: number; avg: number; min: number; p75: number } }[];
}

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
    args: ["bench", "-A", "--unstable-worker-options", "--json", path],
    cwd: new URL("..", import.meta.url).pathname,
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
  const why = (benches: BenchResult[] | string) =>
    typeof benches === "string" ? benches : "bench not found";
  const bare = find(provider, /^bare openai client/);
  const tack = find(provider, /^tack openai\(\)/);
  const rate = (ok: typeof bare) => ok && PROVIDER_CHUNKS / (ok.avg / 1e9) / 1000;
  const inProcess = find(sandbox, /in-process/);
  const overhead = (ok: typeof inProcess) =>
    ok && inProcess ? (ok.avg - inProcess.avg) / 1000 : undefined;
  const cold = find(sandbox, /^cold start/);
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
    {
      measure: "sandbox per-call overhead, warm process (bubblewrap where available)",
      unit: "µs/call",
      better: "lower",
      tack: cell(overhead(find(sandbox, /warm process sandbox/)), why(sandbox)),
      others: {},
      note: "sandbox_bench.ts via deno bench (means): a sandboxed echo call minus the same " +
        "call in-process; no peer has a per-plugin sandbox to compare with",
    },
    {
      measure: "sandbox per-call overhead, warm worker",
      unit: "µs/call",
      better: "lower",
      tack: cell(overhead(find(sandbox, /warm worker sandbox/)), why(sandbox)),
      others: {},
    },
    {
      measure: "sandbox cold start: load + first call + dispose",
      unit: "ms",
      better: "lower",
      tack: cell(cold && cold.avg / 1e6, why(sandbox)),
      others: {},
    },
  ];
}
