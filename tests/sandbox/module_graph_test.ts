// The module graph of a plugin is described once per version: no `deno cache` and
// `deno info` while nothing it depends on changed.
import { equal, notEqual } from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { prepareModuleGraph } from "../../sdk/sandbox/module_graph.ts";

/**
 * Dates `files` back by `seconds`: a description of files changed while (or just before)
 * it was made is not kept, and these stand for files nobody is editing.
 */
async function settle(seconds: number, ...files: string[]): Promise<void> {
  const past = new Date(Date.now() - seconds * 1000);
  for (const file of files) await Deno.utime(file, past, past);
}

Deno.test("a plugin's module graph is reused until one of its files changes", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-graph-" }));
  try {
    await Deno.writeTextFile(`${dir}/mod.js`, "export default { name: 'g' };\n");
    await Deno.writeTextFile(`${dir}/helper.js`, "export const x = 1;\n");
    await settle(60, `${dir}/mod.js`, `${dir}/helper.js`);
    const url = pathToFileURL(`${dir}/mod.js`).href;
    const first = await prepareModuleGraph(url);
    equal(await prepareModuleGraph(url), first, "described again although nothing changed");
    equal(first.localFiles.includes(`${dir}/helper.js`), false);
    await Deno.writeTextFile(
      `${dir}/mod.js`,
      "import { x } from './helper.js';\nexport default { name: 'g' + x };\n",
    );
    await settle(30, `${dir}/mod.js`);
    const edited = await prepareModuleGraph(url);
    notEqual(edited, first);
    equal(edited.localFiles.includes(`${dir}/helper.js`), true);
    equal(await prepareModuleGraph(url), edited);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
