/**
 * Measures what a flood of progress notifications costs the host: one call to the `progress`
 * tool of the flooding fixture server (stdio), which sends `count` progress notifications
 * before it answers, run through an agent. Prints, per run, the host's CPU time (the server is
 * another process), the wall time, the longest gap of a 10 ms timer (how long the host's event
 * loop was held) and the `tool_execution_update` events the call produced.
 *
 *   deno run -A scripts/measure_mcp_progress.ts            # 200,000 notifications, 3 runs
 *   deno run -A scripts/measure_mcp_progress.ts 50000 5    # count, runs
 *
 * Not part of the tests (it takes seconds and its numbers depend on the machine); docs/mcp.md
 * quotes what it prints.
 *
 * @module
 */

import process from "node:process";
import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
import mcp from "@tack/agent/plugins/mcp";
import { fixtureServer } from "../tests/plugins/mcp_fixture.ts";

/** What one measured call cost. */
export interface FloodCost {
  /** The host's CPU time (user and system), in ms. */
  cpuMs: number;
  /** The call's wall time, in ms. */
  wallMs: number;
  /** The longest gap between two ticks of a 10 ms timer, in ms. */
  longestGapMs: number;
  /** The `tool_execution_update` events of the call. */
  updates: number;
  /** The call's result text. */
  result: string;
}

/**
 * Runs one call that receives `count` progress notifications and measures it.
 *
 * @param count How many notifications the server sends.
 * @returns What the call cost.
 *
 * @example Measuring a small flood
 * ```ts ignore
 * import { measureProgressFlood } from "./measure_mcp_progress.ts";
 * const { cpuMs, updates } = await measureProgressFlood(10_000);
 * console.log(cpuMs, updates);
 * ```
 */
export async function measureProgressFlood(count: number): Promise<FloodCost> {
  const plugin = await mcp({ name: "flooding", ...fixtureServer("flooding_server.ts") });
  try {
    const agent = createAgent({
      model: scriptedModel([[toolCall("flooding_progress", { count })], [text("done")]]),
      plugins: [plugin],
    });
    let updates = 0;
    let result = "";
    agent.subscribe((event) => {
      if (event.type === "tool_execution_update") updates++;
      if (event.type === "tool_execution_end") {
        const first = event.result.content[0];
        result = first?.type === "text" ? first.text : "";
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
    return { cpuMs: (used.user + used.system) / 1000, wallMs, longestGapMs, updates, result };
  } finally {
    await plugin.dispose();
  }
}

if (import.meta.main) {
  const count = Number(Deno.args[0] ?? 200_000);
  const runs = Number(Deno.args[1] ?? 3);
  for (let run = 1; run <= runs; run++) {
    const cost = await measureProgressFlood(count);
    console.log(
      `${count} notifications: host CPU ${Math.round(cost.cpuMs)} ms, wall ${
        Math.round(cost.wallMs)
      } ms, longest loop gap ${Math.round(cost.longestGapMs)} ms, ${cost.updates} updates; ${
        JSON.stringify(cost.result)
      }`,
    );
  }
}
