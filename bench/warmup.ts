/**
 * The warm-up curve: in a fresh process, the per-call cost of a framework's 1st, 2nd, …
 * run of the loop workload (agent API), with a forced GC before each run when possible.
 * `compare.ts` runs this file once per framework; alone:
 * `deno run -A --v8-flags=--expose-gc bench/warmup.ts --framework=tack`.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { loadFrameworks } from "./frameworks.ts";
import { collectGarbage } from "./measure.ts";
import { CALLS_PER_TURN, checkOutcome } from "./workload.ts";

/** Tool turns of each warm-up run. */
export const WARMUP_TURNS = 200;

/** The runs (1-based) whose cost the table shows. */
export const WARMUP_RUNS: readonly number[] = [1, 2, 5, 10, 20];

async function child(key: string): Promise<number[]> {
  const framework = (await loadFrameworks([key])).find((f) => f.key === key);
  if (!framework?.run) throw new Error(`Cannot measure warm-up: ${key} is not available`);
  const costs: number[] = [];
  for (let run = 1; run <= Math.max(...WARMUP_RUNS); run++) {
    collectGarbage();
    const start = performance.now();
    const outcome = await framework.run(WARMUP_TURNS);
    const elapsed = performance.now() - start;
    checkOutcome(key, WARMUP_TURNS, outcome);
    if (WARMUP_RUNS.includes(run)) costs.push(elapsed * 1000 / (WARMUP_TURNS * CALLS_PER_TURN));
  }
  return costs;
}

/**
 * Measures one framework's warm-up curve in a fresh process.
 *
 * @param framework The framework's key.
 * @returns µs per call of each run in {@linkcode WARMUP_RUNS}.
 * @throws {Error} When the child fails (its stderr is in the message).
 */
export async function measureWarmup(framework: string): Promise<number[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--v8-flags=--expose-gc",
      import.meta.filename!,
      `--framework=${framework}`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr).trim().split("\n").slice(-3).join(" ");
    throw new Error(`Cannot measure warm-up of ${framework}: ${stderr}`);
  }
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as number[];
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { framework: { type: "string" } } });
  if (!values.framework) {
    console.error("usage: warmup.ts --framework=<tack|pi|ai|openai-agents|floor>");
    Deno.exit(2);
  }
  console.log(JSON.stringify(await child(values.framework)));
}
