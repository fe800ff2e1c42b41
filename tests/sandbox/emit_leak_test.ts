// Attack on the child cache's `gen/file` (round six of the sandbox attack): Deno keeps there, on
// the host's disk, the emit of every TypeScript file a plugin imports, and the folder is the
// plugin's for every load of its URL. A plugin granted `read` on a folder imported a TypeScript
// file holding a secret; loaded again without that grant (another configuration, the grant taken
// back), it imported the emit of that file from its cache and read the secret. Now only a start
// that can reach no file beyond its graph (no `read`, `write`, `run` or `ffi` grant) adds to it.
import { equal } from "node:assert/strict";
import { childCacheDir } from "../../sdk/sandbox/child_cache.ts";
import { denoCacheDir } from "../../sdk/sandbox/deno_dir.ts";
import { loadPlugin, type LoadPluginOptions } from "../../sdk/sandbox/mod.ts";
import { skipWithoutBwrap } from "../support/os_layer.ts";

Deno.test({
  name: "a plugin loaded without a read grant cannot read a file it read with it from its cache",
  ignore: skipWithoutBwrap("the child cache"),
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-emit-leak-" }));
    const secrets = `${dir}/secrets`; // outside the plugin's folder
    await Deno.mkdir(secrets);
    await Deno.writeTextFile(`${secrets}/key.ts`, 'export const KEY: string = "sk-hush";\n');
    await Deno.mkdir(`${dir}/plugin`);
    const file = `${dir}/plugin/reader.js`;
    const denoDir = await denoCacheDir();
    const emit = `${denoDir}/gen/file${secrets}/key.ts.js`;
    await Deno.writeTextFile(
      file,
      `export default { name: "reader", permissions: { read: [${JSON.stringify(secrets)}] },
  tools: [{ name: "read", description: "Reads", parameters: { type: "object" },
    async execute() {
      // Literal specifiers: Deno gates only computed dynamic imports by \`read\`.
      const tried = [];
      try { tried.push((await import(${JSON.stringify(`${secrets}/key.ts`)})).KEY); }
      catch (error) { tried.push(error.name); }
      try { tried.push((await import(${JSON.stringify(emit)})).KEY); }
      catch (error) { tried.push(error.name); }
      return { content: [{ type: "text", text: tried.join(" ") }] };
    } }] };
`,
    );
    const cache = await childCacheDir(`file://${file}`, denoDir, dir);
    const call = { toolCallId: "1", signal: new AbortController().signal };
    const read = async (options: LoadPluginOptions) => {
      const plugin = await loadPlugin(file, { sandbox: true, onWarning: () => {}, ...options });
      try {
        const result = await plugin.tools![0].execute({}, call);
        return result.content[0].type === "text" ? result.content[0].text : "";
      } finally {
        await plugin.dispose?.();
      }
    };
    try {
      // With its grant it reads the file (its cache is not for it to read).
      equal((await read({})).startsWith("sk-hush "), true);
      // Without: neither the file nor a copy of it.
      equal(await read({ permissions: {} }), "TypeError TypeError");
      equal(
        await Deno.stat(`${cache}/gen/file${secrets}/key.ts.js`).then(() => true, () => false),
        false,
        "the secret's emit is on the host's disk",
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(cache, { recursive: true }).catch(() => {});
    }
  },
});
