/**
 * Measures what a sandboxed plugin's stderr floods cost its host: a million short lines,
 * and ten seconds of empty lines written as fast as the plugin can, each forwarded (to
 * `/dev/null`) and captured. Each run is a fresh host process; it prints the host's CPU time and
 * the wall time of the call, and the longest gap between ticks of a 10 ms timer.
 *
 *   deno run -A scripts/measure_sandbox_floods.ts
 *
 * Not part of the tests (they assert outcomes, not times); docs/sandbox.md quotes what it
 * prints.
 *
 * @module
 */

import process from "node:process";
import { loadPlugin } from "../sdk/sandbox/mod.ts";

const FIXTURE = new URL("../tests/fixtures/sandbox/hostile_plugin.ts", import.meta.url).pathname;

/** What one flood cost the host. */
export interface FloodCost {
  /** What the plugin's tool returned. */
  result: string;
  /** The host's CPU time (user and system) while the call ran, in seconds. */
  cpuSeconds: number;
  /** How long the call took, in seconds. */
  wallSeconds: number;
  /** The longest gap between two ticks of a 10 ms timer, in ms. */
  longestGapMs: number;
}

/**
 * Loads the hostile fixture sandboxed and calls one of its flooding tools.
 *
 * @param stderr Forward the lines (to this process's stderr) or capture them.
 * @param tool `chatter` (`{ lines }`) or `blank_lines` (`{ seconds }`).
 * @param args The tool's arguments.
 * @returns What the call cost this process.
 *
 * @example A small flood (prints the lines it forwards on stderr)
 * ```ts ignore
 * import { measureFlood } from "./measure_sandbox_floods.ts";
 * console.log(await measureFlood("capture", "chatter", { lines: 1000 }));
 * ```
 */
export async function measureFlood(
  stderr: "forward" | "capture",
  tool: string,
  args: Record<string, unknown>,
): Promise<FloodCost> {
  const plugin = await loadPlugin(FIXTURE, { sandbox: true, stderr, onWarning: () => {} });
  const flood = plugin.tools!.find((candidate) => candidate.name === tool)!;
  let longestGapMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
  }, 10);
  const cpu = process.cpuUsage();
  const start = performance.now();
  const outcome = await flood.execute(args, {
    toolCallId: "flood",
    signal: new AbortController().signal,
  });
  await plugin.dispose?.();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  clearInterval(timer);
  return {
    result: outcome.content.map((block) => block.type === "text" ? block.text : "").join(""),
    cpuSeconds: (used.user + used.system) / 1e6,
    wallSeconds: wall / 1000,
    longestGapMs,
  };
}

const RUNS = [
  ["forward", "chatter", '{"lines":1000000}'],
  ["capture", "chatter", '{"lines":1000000}'],
  ["forward", "blank_lines", '{"seconds":10}'],
  ["capture", "blank_lines", '{"seconds":10}'],
];

if (import.meta.main) {
  const [role, stderr, tool, args] = Deno.args;
  if (role === "--child") {
    const cost = await measureFlood(stderr as "forward" | "capture", tool, JSON.parse(args));
    console.log(JSON.stringify(cost));
  } else {
    for (const [mode, tool, args] of RUNS) {
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", import.meta.filename!, "--child", mode, tool, args],
        stdout: "piped",
        stderr: "null",
      }).output();
      const cost = JSON.parse(new TextDecoder().decode(output.stdout)) as FloodCost;
      console.log(
        `${tool} ${args}, ${mode === "forward" ? "forwarded" : "captured"} (${cost.result}): ` +
          `host CPU ${cost.cpuSeconds.toFixed(2)} s, wall ${cost.wallSeconds.toFixed(2)} s, ` +
          `longest event-loop gap ${cost.longestGapMs.toFixed(0)} ms`,
      );
    }
  }
}
