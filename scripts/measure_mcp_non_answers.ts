/**
 * Measures what a flood of messages that answer nothing costs the host: calls to the flooding
 * fixture server (stdio), run through an agent, that receive `count` messages of one kind
 * before they answer. Prints, per run, the host's CPU time (the server is another process),
 * the wall time, the longest gap of a 10 ms timer (how long the host's event loop was held),
 * the `tool_execution_update` events and the results.
 *
 *   deno run -A scripts/measure_mcp_non_answers.ts                  # every kind, 200,000, 3 runs
 *   deno run -A scripts/measure_mcp_non_answers.ts method 50000 5   # kind, count, runs
 *   deno run -A scripts/measure_mcp_non_answers.ts all 200000 3 1e9 # the bound lifted to 1e9
 *   deno run -A scripts/measure_mcp_non_answers.ts everything       # a legitimate server's most
 *
 * The kinds: `method` (notifications of a method no one handles), `token` (progress for a token
 * never issued), `stale` (progress for a call that ended), `id` (responses with ids no request
 * has), `ping` (requests, each answered), `progress` (progress for the one call in flight) and
 * `spread` (progress for 20 calls in flight, `count / 20` each).
 *
 * `everything` measures instead how many messages that answer nothing the MCP project's
 * reference server (`server-everything`) sends in its busiest second: the most in any one
 * second while its long-running operation runs as fast as it can (10,000 steps asked in a
 * second; each step waits on a timer), alone and ten at once.
 *
 * Not part of the tests (it takes seconds and its numbers depend on the machine); docs/mcp.md
 * quotes what it prints.
 *
 * @module
 */

import process from "node:process";
import { createAgent, scriptedModel, text, type ToolCall, toolCall } from "@tack/agent";
import mcp, { type McpLimits, StdioTransport } from "@tack/agent/plugins/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { everythingServer, fixtureServer } from "../tests/plugins/mcp_fixture.ts";

/** What one measured flood cost. */
export interface FloodCost {
  /** The host's CPU time (user and system), in ms. */
  cpuMs: number;
  /** The calls' wall time, in ms. */
  wallMs: number;
  /** The longest gap between two ticks of a 10 ms timer, in ms. */
  longestGapMs: number;
  /** The `tool_execution_update` events of the calls. */
  updates: number;
  /** Each call's result text, in the order they ended. */
  results: string[];
}

/** The kinds of flood {@linkcode floodCalls} makes. */
export const FLOOD_KINDS = ["method", "token", "stale", "id", "ping", "progress", "spread"];

/**
 * The calls to the flooding fixture that receive `count` messages of a kind.
 *
 * @param kind One of {@linkcode FLOOD_KINDS}.
 * @param count How many messages the server sends, over all the calls.
 * @returns The calls, made in one turn.
 *
 * @example
 * ```ts ignore
 * import { floodCalls } from "./measure_mcp_non_answers.ts";
 * console.log(floodCalls("spread", 200_000).length); // 20
 * ```
 */
export function floodCalls(kind: string, count: number): ToolCall[] {
  if (kind === "progress") return [toolCall("flooding_progress", { count })];
  if (kind === "spread") {
    return Array.from({ length: 20 }, () => toolCall("flooding_progress", { count: count / 20 }));
  }
  return [toolCall("flooding_stray", { kind, count })];
}

/**
 * Runs the calls in one turn, through an agent on a fresh plugin, and measures them. A turn of
 * `before` calls runs first, unmeasured (a `stale` flood needs a call that ended).
 *
 * @param calls The measured calls.
 * @param limits The plugin's limits (to lift the bound).
 * @param before Calls made first, not measured.
 * @returns What the measured calls cost.
 *
 * @example Measuring a small flood
 * ```ts ignore
 * import { floodCalls, measureFlood } from "./measure_mcp_non_answers.ts";
 * const { cpuMs, results } = await measureFlood(floodCalls("method", 10_000));
 * console.log(cpuMs, results);
 * ```
 */
export async function measureFlood(
  calls: ToolCall[],
  limits: McpLimits = {},
  before: ToolCall[] = [],
): Promise<FloodCost> {
  const plugin = await mcp({ name: "flooding", ...fixtureServer("flooding_server.ts"), ...limits });
  try {
    const turns = [...(before.length > 0 ? [before, [text("next")]] : []), calls, [text("done")]];
    const agent = createAgent({ model: scriptedModel(turns), plugins: [plugin] });
    if (before.length > 0) await agent.prompt("first");
    let updates = 0;
    const results: string[] = [];
    agent.subscribe((event) => {
      if (event.type === "tool_execution_update") updates++;
      if (event.type === "tool_execution_end") {
        const first = event.result.content[0];
        results.push(first?.type === "text" ? first.text : "");
      }
    });
    let last = performance.now();
    let longestGapMs = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longestGapMs = Math.max(longestGapMs, now - last);
      last = now;
    }, 10);
    const cpu = process.cpuUsage();
    const started = performance.now();
    await agent.prompt("go");
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    clearInterval(timer);
    return { cpuMs: (used.user + used.system) / 1000, wallMs, longestGapMs, updates, results };
  } finally {
    await plugin.dispose();
  }
}

/**
 * The most messages that answer nothing (every message but a response) `server-everything`
 * sends in any one second while `calls` of its long-running operations run at once, each asked
 * for `steps` steps in one second.
 *
 * @param calls How many operations run at once.
 * @param steps The steps each is asked for.
 * @returns The most in one second, and how long the operations took, in ms.
 *
 * @example
 * ```ts ignore
 * import { busiestSecondOfEverything } from "./measure_mcp_non_answers.ts";
 * console.log(await busiestSecondOfEverything(1, 10_000));
 * ```
 */
export async function busiestSecondOfEverything(
  calls: number,
  steps: number,
): Promise<{ most: number; wallMs: number }> {
  const transport = new StdioTransport(await everythingServer());
  const client = new Client({ name: "measure", version: "1.0.0" });
  await client.connect(transport);
  const times: number[] = [];
  const sdk = transport.onmessage;
  transport.onmessage = (message) => {
    if ("method" in message) times.push(performance.now());
    sdk?.(message);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: calls }, () =>
    client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 1, steps } },
      undefined,
      { onprogress: () => {}, timeout: 600_000 },
    )));
  const wallMs = performance.now() - started;
  await client.close();
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while (times[last] - times[first] >= 1000) first++;
    most = Math.max(most, last - first + 1);
  }
  return { most, wallMs };
}

if (import.meta.main && Deno.args[0] === "everything") {
  for (const calls of [1, 10]) {
    const { most, wallMs } = await busiestSecondOfEverything(calls, 10_000);
    console.log(
      `server-everything, ${calls} long-running operation(s) of 10,000 steps asked in 1 s: ` +
        `at most ${most} messages that answer nothing in one second (they took ${
          Math.round(wallMs)
        } ms)`,
    );
  }
} else if (import.meta.main) {
  const [kind = "all", count = "200000", runs = "3", most] = Deno.args;
  const limits = most === undefined ? {} : { maxNonAnswersPerSecond: Number(most) };
  for (const each of kind === "all" ? FLOOD_KINDS : [kind]) {
    const before = each === "stale" ? [toolCall("flooding_progress", { count: 1 })] : [];
    for (let run = 1; run <= Number(runs); run++) {
      const cost = await measureFlood(floodCalls(each, Number(count)), limits, before);
      const results = [...new Set(cost.results)].map((result) => JSON.stringify(result));
      console.log(
        `${each} ×${count}: host CPU ${Math.round(cost.cpuMs)} ms, wall ${
          Math.round(cost.wallMs)
        } ms, longest loop gap ${Math.round(cost.longestGapMs)} ms, ${cost.updates} updates; ${
          results.join(", ")
        }`,
      );
    }
  }
}
