// A sandbox child's Deno cache is a capped tmpfs (a plugin with no permissions had filled the
// host's disk through the code caches Deno keeps there), so its starts would compile
// everything again. A seed of those caches, filled by two starts with no permissions when a
// plugin is loaded a second time, is copied into each start's tmpfs: what a plugin can leave
// in it is bounded by that tmpfs' cap, whatever its top level compiles.
import { equal } from "node:assert/strict";
import { childCacheDir } from "../../sdk/sandbox/child_cache.ts";
import { denoCacheDir } from "../../sdk/sandbox/deno_dir.ts";
import { CHILD_CACHE_BYTES } from "../../sdk/sandbox/bwrap.ts";
import { seedFilled } from "../../sdk/sandbox/code_cache_seed.ts";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";
import { skipWithoutBwrap } from "../support/os_layer.ts";

/**
 * A plugin whose top level compiles 20 TypeScript modules of 1 MiB string constants (Deno
 * emits each and caches its code and analysis: ~4 MiB a module, ~80 MiB in all), and one tool.
 */
const COMPILER = `const big = "x".repeat(1 << 20);
for (let i = 0; i < 20; i++) {
  const source = "export default " + JSON.stringify(big + i) + " as string;";
  await import("data:application/typescript," + encodeURIComponent(source));
}
export default { name: "compiler", tools: [{
  name: "echo", description: "Echoes", parameters: { type: "object" },
  execute: ({ text }) => ({ content: [{ type: "text", text: String(text) }] }),
}] };
`;

async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    total += entry.isDirectory ? await sizeOf(path) : (await Deno.stat(path)).size;
  }
  return total;
}

Deno.test({
  name:
    "a plugin loaded again gets a seed of code caches, no larger than its tmpfs, whatever its top level compiles",
  ignore: skipWithoutBwrap("the code cache seed"),
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-seed-" }));
    const call = { toolCallId: "1", signal: new AbortController().signal };
    try {
      await Deno.writeTextFile(`${dir}/compiler.js`, COMPILER);
      const url = `file://${dir}/compiler.js`;
      const cache = await childCacheDir(url, await denoCacheDir(), dir);
      for (const load of ["first", "second"]) {
        const plugin = await loadPlugin(`${dir}/compiler.js`, {
          sandbox: true,
          onWarning: () => {},
          startTimeoutMs: 60_000,
        });
        try {
          const result = await plugin.tools![0].execute({ text: load }, call);
          equal(result.content[0].type === "text" && result.content[0].text, load);
        } finally {
          await plugin.dispose?.();
        }
        // A plugin loaded once has no seed; the second load filled it.
        equal(seedFilled(`${cache}/seed`), load === "second", load);
      }
      // Only Deno's caches are copied out (not the emitted modules, not origin storage), from
      // the capped tmpfs: what the top level compiled is there, up to the cap, and no more.
      const seed = await sizeOf(`${cache}/seed`);
      equal(seed > 8 * (1 << 20) && seed <= CHILD_CACHE_BYTES, true, `${seed} bytes`);
      for await (const entry of Deno.readDir(`${cache}/seed`)) {
        equal(/^[a-z0-9_]+_v2(-wal)?$/.test(entry.name), true, entry.name);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(
        await childCacheDir(`file://${dir}/compiler.js`, await denoCacheDir(), dir),
        {
          recursive: true,
        },
      ).catch(() => {});
    }
  },
});
