/**
 * Measures what a sandboxed plugin's floods cost its host. On stderr: a million short lines,
 * and ten seconds of empty lines written as fast as the plugin can, each forwarded (to
 * `/dev/null`) and captured; for each, the host's CPU time and the wall time of the call,
 * and the longest gap between ticks of a 10 ms timer. On stdin: a plugin that stops reading
 * while the host sends it calls of 1 MB, one a tick; how many it sent before the plugin
 * was stopped, and how much the host's memory grew. Each run is a fresh host process.
 *
 *   deno run -A scripts/measure_sandbox_floods.ts
 *
 * Not part of the tests (they assert outcomes, not times); docs/sandbox.md quotes what it
 * prints.
 *
 * @module
 */

import process from "node:process";
import type { ToolResult } from "../mod.ts";
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

/** What a plugin that stops reading its stdin cost the host. */
export interface StuckCost {
  /** Calls sent to it after it stopped reading (those that ended naming the limit, if any did). */
  sent: number;
  /** What the last of them returned. */
  last: string;
  /** How much the host's resident memory grew meanwhile, in MB. */
  rssGrowthMb: number;
}

/**
 * Loads the hostile fixture sandboxed, blocks it in its `stall` tool, and sends it up to
 * `calls` calls of 1 MB each, one a tick, until one of them fails.
 *
 * @param calls The most calls to send.
 * @returns How many were sent and how much the host's memory grew.
 *
 * @example A few calls
 * ```ts ignore
 * import { measureStuckStdin } from "./measure_sandbox_floods.ts";
 * console.log(await measureStuckStdin(8));
 * ```
 */
export async function measureStuckStdin(calls: number): Promise<StuckCost> {
  const plugin = await loadPlugin(FIXTURE, { sandbox: true, stderr: "capture" });
  const tool = (name: string) => plugin.tools!.find((candidate) => candidate.name === name)!;
  const signal = new AbortController().signal;
  const text = (result: ToolResult | Promise<ToolResult>) =>
    Promise.resolve(result).then(
      (done) => done.content.map((block) => block.type === "text" ? block.text : "").join(""),
      (error: Error) => error.message,
    );
  let stalled!: () => void;
  const blocking = new Promise<void>((resolve) => (stalled = resolve));
  const stall = text(tool("stall").execute({}, { toolCallId: "stall", signal, update: stalled }));
  await blocking;
  const rss = Deno.memoryUsage().rss;
  const args = { text: "x".repeat(1024 * 1024) };
  const pending: Promise<string>[] = [];
  let failed = false;
  for (let i = 0; i < calls && !failed; i++) {
    pending.push(text(tool("length").execute(args, { toolCallId: `l${i}`, signal })));
    pending.at(-1)!.finally(() => (failed = true));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  const rssGrowthMb = (Deno.memoryUsage().rss - rss) / 1024 / 1024;
  // Calls sent after the plugin was stopped went to a fresh sandbox: wait for them all.
  const results = await Promise.all(pending);
  await stall;
  await plugin.dispose?.();
  const stuck = results.filter((result) => result.includes("unread on its stdin")).length;
  return {
    sent: stuck === 0 ? results.length : stuck,
    last: results[stuck - 1] ?? results.at(-1)!,
    rssGrowthMb,
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
  if (role === "--stuck") {
    console.log(JSON.stringify(await measureStuckStdin(512)));
  } else if (role === "--child") {
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
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", import.meta.filename!, "--stuck"],
      stdout: "piped",
      stderr: "null",
    }).output();
    const stuck = JSON.parse(new TextDecoder().decode(output.stdout)) as StuckCost;
    console.log(
      `a plugin that stops reading its stdin, sent calls of 1 MB: ${stuck.sent} sent, the host's ` +
        `memory grew ${stuck.rssGrowthMb.toFixed(0)} MB; the last call: ${stuck.last}`,
    );
  }
}
