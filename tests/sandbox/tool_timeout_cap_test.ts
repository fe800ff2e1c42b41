// A sandboxed tool's declared timeoutMs is the host's to accept: never 0 or Infinity, never
// past loadPlugin's maxToolTimeoutMs (default: the 120 s tool default). docs/sandbox.md
// ("Timeouts are the host's") and the loadPlugin options table say so.

import { equal } from "node:assert/strict";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";

const PLUGIN = `export default { name: "timed", tools: [
  ["off", 0], ["forever", Infinity], ["huge", 1e9], ["short", 200], ["none", undefined],
].map(([name, timeoutMs]) => ({ name, description: "", parameters: { type: "object" },
  timeoutMs, execute: () => ({ content: [] }) })) };`;

Deno.test("a sandboxed tool's timeoutMs is capped at maxToolTimeoutMs; 0 and Infinity are ignored", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-timeout-cap-" }));
  try {
    await Deno.writeTextFile(`${dir}/timed.js`, PLUGIN);
    for (const [maxToolTimeoutMs, capped] of [[500, 500], [undefined, 120_000]] as const) {
      const plugin = await loadPlugin(`${dir}/timed.js`, {
        sandbox: true,
        stderr: "capture",
        onWarning: () => {},
        maxToolTimeoutMs,
      });
      try {
        const timeouts = Object.fromEntries(
          (plugin.tools ?? []).map((tool) => [tool.name, tool.timeoutMs]),
        );
        equal(timeouts.off, undefined, "0 leaves the agent's timeout in force");
        equal(timeouts.forever, undefined, "Infinity leaves the agent's timeout in force");
        equal(timeouts.huge, capped);
        equal(timeouts.short, 200, "a shorter one is the tool's own");
        equal(timeouts.none, undefined);
      } finally {
        await plugin.dispose?.();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
