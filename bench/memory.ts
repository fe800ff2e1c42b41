/**
 * Peak memory for a 10,000-message transcript. Each measurement runs in a fresh Deno process
 * (so one framework's garbage never counts against another): the child loads one framework,
 * does a one-turn warm-up, runs the loop workload until the transcript holds the asked number
 * of messages, and reports the kernel's peak resident set size (`VmHWM`) and the heap the
 * transcript retains after a full GC. A baseline child (one tool turn) gives the framework's
 * own footprint, so the difference is what the transcript cost.
 *
 * Child: `deno run -A --v8-flags=--expose-gc bench/memory.ts --framework=tack --messages=10000`
 *
 * @module
 */

import { parseArgs } from "node:util";
import { loadFrameworks } from "./frameworks.ts";
import { canCollect, collectGarbage } from "./measure.ts";
import { checkOutcome, turnsForMessages } from "./workload.ts";

/** What one child process measured. */
export interface MemorySample {
  framework: string;
  messages: number;
  /** Peak resident set size of the whole process, in bytes. */
  peakRss: number;
  /** Heap still used after the run and a full GC, minus the heap before it, in bytes. */
  retainedHeap: number;
}

function peakRss(): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  const kb = Number(/^VmHWM:\s*(\d+)\s*kB/m.exec(status)?.[1]);
  if (!Number.isFinite(kb)) throw new Error("Cannot read peak RSS: no VmHWM in /proc/self/status");
  return kb * 1024;
}

async function child(key: string, messages: number): Promise<MemorySample> {
  if (!canCollect) throw new Error("Cannot measure memory: run with --v8-flags=--expose-gc");
  const [framework] = await loadFrameworks([key]);
  if (!framework?.run) {
    throw new Error(`Cannot measure memory of ${key}: ${framework?.unavailable ?? "unknown"}`);
  }
  checkOutcome(key, 1, await framework.run(1));
  collectGarbage();
  const before = Deno.memoryUsage().heapUsed;
  const turns = turnsForMessages(messages);
  const outcome = await framework.run(turns);
  collectGarbage();
  const after = Deno.memoryUsage().heapUsed;
  checkOutcome(key, turns, outcome);
  return {
    framework: key,
    messages: outcome.transcript.length,
    peakRss: peakRss(),
    retainedHeap: after - before,
  };
}

/**
 * Measures one framework in a fresh process.
 *
 * @param framework The framework's key (`tack`, `pi`, `ai`, `openai-agents`).
 * @param messages Transcript size to reach.
 * @returns What the child measured.
 * @throws {Error} When the child fails (its stderr is in the message).
 */
export async function measureMemory(framework: string, messages: number): Promise<MemorySample> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--v8-flags=--expose-gc",
      import.meta.filename!,
      `--framework=${framework}`,
      `--messages=${messages}`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr).trim().split("\n").slice(-3).join(" ");
    throw new Error(`Cannot measure memory of ${framework}: ${stderr}`);
  }
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as MemorySample;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { framework: { type: "string" }, messages: { type: "string", default: "10000" } },
  });
  if (!values.framework) {
    console.error("usage: memory.ts --framework=<tack|pi|ai|openai-agents> [--messages=10000]");
    Deno.exit(2);
  }
  console.log(JSON.stringify(await child(values.framework, Number(values.messages))));
}
