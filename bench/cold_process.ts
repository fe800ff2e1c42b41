/**
 * One sandbox cold start as a new host process sees it: `loadPlugin` (process sandbox) +
 * the first call + dispose, timed inside a fresh `deno run`, printed in ms. Run it several
 * times: the first run ever also fills the stores a later process reuses (the plugin's
 * described module graph in `DENO_DIR/tack_graphs`, the child's own Deno cache).
 *
 *   cd bench && deno run -A cold_process.ts
 *
 * @module
 */

import { loadPlugin } from "@tack/agent/sdk/sandbox";
import { FIXTURE } from "./sandbox_rows.ts";

if (import.meta.main) {
  const start = performance.now();
  const plugin = await loadPlugin(FIXTURE, { sandbox: true, stderr: "capture" });
  const echo = plugin.tools!.find((tool) => tool.name === "echo")!;
  await echo.execute({ text: "hi" }, { toolCallId: "c", signal: new AbortController().signal });
  await plugin.dispose?.();
  console.log((performance.now() - start).toFixed(1));
}
