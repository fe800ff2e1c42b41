/**
 * One sandbox cold start as a new host process sees it: `loadPlugin` (process sandbox) +
 * the first call + dispose, timed inside a fresh `deno run`, printed in ms. Run it several
 * times: the first run ever also fills the stores a later process reuses (the plugin's
 * described module graph in `DENO_DIR/tack_graphs`, the child's own Deno cache).
 *
 * With `--floor` it times its floor the same way: a bare `deno run` child answering one
 * line, spawned from a new process (a process's first spawn costs more than a warm one's).
 *
 *   cd bench && deno run -A cold_process.ts [--floor]
 *
 * @module
 */

import { loadPlugin } from "@tack/agent/sdk/sandbox";
import { bareChildAnswer, writeFloorChild } from "./pipe_floor.ts";
import { FIXTURE } from "./sandbox_rows.ts";

if (import.meta.main && Deno.args[0] === "--floor") {
  const script = await writeFloorChild();
  const start = performance.now();
  await bareChildAnswer(script);
  console.log((performance.now() - start).toFixed(1));
  await Deno.remove(script);
} else if (import.meta.main) {
  const start = performance.now();
  const plugin = await loadPlugin(FIXTURE, { sandbox: true, stderr: "capture" });
  const echo = plugin.tools!.find((tool) => tool.name === "echo")!;
  await echo.execute({ text: "hi" }, { toolCallId: "c", signal: new AbortController().signal });
  await plugin.dispose?.();
  console.log((performance.now() - start).toFixed(1));
}
