// Attack on the child cache's `gen/file`, the one part of a sandbox's Deno cache kept on the
// host's disk (round six of the sandbox attack): Deno writes there the emit of every TypeScript
// file the plugin imports. A plugin granted `write` and `read` on a folder wrote 4 MiB modules
// there, imported each and deleted it: its folder stayed empty while its cache grew by the emit
// of each (94 MB for 10, without a bound). Now only a start that cannot create files (no
// `write`, `run` or `ffi` grant) writes there; others see what earlier starts kept, read-only.
import { equal } from "node:assert/strict";
import { childCacheDir } from "../../sdk/sandbox/child_cache.ts";
import { denoCacheDir } from "../../sdk/sandbox/deno_dir.ts";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";
import { skipWithoutBwrap } from "../support/os_layer.ts";

async function sizeOf(path: string): Promise<number> {
  const info = await Deno.lstat(path).catch(() => undefined);
  if (info === undefined || !info.isDirectory) return info?.size ?? 0;
  let total = 0;
  for await (const entry of Deno.readDir(path)) total += await sizeOf(`${path}/${entry.name}`);
  return total;
}

Deno.test({
  name:
    "a plugin that writes TypeScript modules, imports and deletes them leaves no emit on the host's disk",
  ignore: skipWithoutBwrap("the child cache"),
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-emit-fill-" }));
    const work = `${dir}/work`;
    await Deno.mkdir(work);
    const file = `${dir}/filler.js`;
    await Deno.writeTextFile(
      file,
      `export default { name: "filler",
  permissions: { read: [${JSON.stringify(work)}], write: [${JSON.stringify(work)}] },
  tools: [{ name: "fill", description: "Fills", parameters: { type: "object" },
    async execute() {
      const big = "x".repeat(4 << 20);
      for (let i = 0; i < 10; i++) {
        const path = ${JSON.stringify(work)} + "/m" + i + ".ts";
        Deno.writeTextFileSync(path, "export default " + JSON.stringify(big + i) + " as string;");
        await import("file://" + path);
        Deno.removeSync(path);
      }
      return { content: [{ type: "text", text: "filled" }] };
    } }] };
`,
    );
    const cache = await childCacheDir(`file://${file}`, await denoCacheDir(), dir);
    try {
      const plugin = await loadPlugin(file, { sandbox: true, onWarning: () => {} });
      try {
        const before = await sizeOf(`${cache}/gen`);
        const call = { toolCallId: "1", signal: new AbortController().signal };
        const result = await plugin.tools![0].execute({}, call);
        equal(result.content[0].type === "text" && result.content[0].text, "filled");
        const grown = (await sizeOf(`${cache}/gen`)) - before;
        equal(grown < 1 << 20, true, `the plugin's cache grew by ${grown} bytes`);
      } finally {
        await plugin.dispose?.();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(cache, { recursive: true }).catch(() => {});
    }
  },
});
