// Deno lets a spawn set a loader variable (LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH, …) only
// with full `run` access: a plugin granted one program that sets one reads a denial naming
// `run` and the variable, not "unknown access".
import { skipWithoutBwrap } from "../support/os_layer.ts";
import { deepEqual, rejects } from "node:assert/strict";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";
import type { ToolError } from "@tack/agent";

const call = { toolCallId: "1", signal: new AbortController().signal };

Deno.test({
  name:
    "spawning a granted program with LD_PRELOAD, LD_AUDIT or LD_LIBRARY_PATH set is a run denial naming the variable",
  ignore: skipWithoutBwrap("run env denial"),
  async fn() {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-ldenv-" }));
    const plugin = `${root}/spawner.js`;
    await Deno.writeTextFile(
      plugin,
      `export default { name: "spawner", permissions: { run: ["true"] }, tools: [
  { name: "spawn", description: "Runs true", parameters: { type: "object" },
    execute: async ({ variable }) => {
      const { code } = await new Deno.Command("true", { env: { [variable]: "${root}/x.so" } }).output();
      return { content: [{ type: "text", text: "exit " + code }] };
    } }] };`,
    );
    const loaded = await loadPlugin(plugin, { sandbox: true, root, stderr: "capture" });
    try {
      for (const variable of ["LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH"]) {
        // Before: 'Permission denied: unknown access is not granted to plugin "spawner"'.
        await rejects(async () => await loaded.tools![0].execute({ variable }, call), {
          name: "ToolError",
          message:
            `Permission denied: run access to spawn a program with ${variable} set is not granted to plugin "spawner" (that environment variable needs full run access, run: true; spawn without it)`,
        });
      }
      let thrown: unknown;
      try {
        await loaded.tools![0].execute({ variable: "LD_PRELOAD" }, call);
      } catch (error) {
        thrown = error;
      }
      deepEqual((thrown as ToolError).details, {
        permission: { name: "run", variable: "LD_PRELOAD" },
      });
      // The variable unset, the granted program runs.
      const ran = await loaded.tools![0].execute({ variable: "TACK_HARMLESS" }, call);
      deepEqual(ran.content, [{ type: "text", text: "exit 0" }]);
    } finally {
      await loaded.dispose?.();
      await Deno.remove(root, { recursive: true });
    }
  },
});
