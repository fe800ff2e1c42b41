/**
 * The fs plugin's `grep` over a tree of 2,000 small files (20 folders of 100 files of 60
 * lines), one match a file: what a search costs per file. Run with
 * `cd bench && deno bench -A grep_bench.ts` (the root's config leaves bench/ out).
 *
 * @module
 */

import { createFsContext, createGrepTool } from "@tack/agent/plugins/fs";

const root = await Deno.makeTempDir({ prefix: "tack-grep-bench-" });
for (let folder = 0; folder < 20; folder++) {
  await Deno.mkdir(`${root}/d${folder}`);
  for (let file = 0; file < 100; file++) {
    const lines = Array.from({ length: 60 }, (_, i) => `export const value${i} = "line ${i}";`);
    await Deno.writeTextFile(`${root}/d${folder}/f${file}.ts`, lines.join("\n"));
  }
}
const tool = createGrepTool(createFsContext({ root }));
const context = { toolCallId: "bench", signal: new AbortController().signal, update() {} };
globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));

Deno.bench("grep: 2,000 files of 60 lines, one match each", async () => {
  // deno-lint-ignore no-explicit-any
  const result = await tool.execute({ pattern: "value59 =", limit: 5000 } as any, context as any);
  if ((result.details as { files: number }).files !== 2000) throw new Error("not every file");
});
