/**
 * The `fs` plugin: `read`, `write`, `edit`, `ls`, `find` and `grep`, confined to one
 * root directory. `..`, absolute paths outside the root and symlinks leading out of it
 * are refused as error results; writes to the same file are serialized while every
 * other call runs in parallel.
 *
 * @example A coding agent's file tools
 * ```ts
 * import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
 * import { fs } from "@tack/agent/plugins/fs";
 * import { equal } from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * const agent = createAgent({
 *   model: scriptedModel([[toolCall("write", { path: "a.txt", content: "hi" })], [text("Done.")]]),
 *   plugins: [fs({ root })],
 * });
 * await agent.prompt("Write a.txt");
 * equal(await Deno.readTextFile(`${root}/a.txt`), "hi");
 * await Deno.remove(root, { recursive: true });
 * ```
 *
 * @module
 */

import { definePlugin, type Plugin } from "../../sdk/define_plugin.ts";
import { createEditTool } from "./edit.ts";
import { createFindTool } from "./find.ts";
import { createFsContext, type FsOptions } from "./fs_context.ts";
import { createGrepTool } from "./grep.ts";
import { createLsTool } from "./ls.ts";
import { createReadTool } from "./read.ts";
import { createWriteTool } from "./write.ts";

export { createFsContext, type FsContext, type FsOptions } from "./fs_context.ts";
export { createReadTool, type ReadDetails } from "./read.ts";
export { createWriteTool, type WriteDetails } from "./write.ts";
export { createEditTool, type EditDetails } from "./edit.ts";
export { createLsTool, type LsDetails } from "./ls.ts";
export { createFindTool, type FindDetails } from "./find.ts";
export { createGrepTool, type GrepDetails } from "./grep.ts";
export { type ResolvedPath, resolveInRoot } from "./resolve_in_root.ts";
export { compileGlob, type Glob } from "./glob.ts";
export { createFileLocks, type FileLocks } from "./file_lock.ts";

/**
 * Creates the `fs` plugin. Its tools: `read {path, offset?, limit?}`, `write {path,
 * content}`, `edit {path, oldText, newText}`, `ls {path?, limit?}`, `find {pattern, path?,
 * limit?}` and `grep {pattern, path?, glob?, context?, ignoreCase?, literal?, limit?}`.
 * `write` and `edit` carry the effect `write`, the others `read`. It declares read and
 * write permission on the root (as given, made absolute, and its real path when that
 * differs and can be read).
 *
 * @param options The root (default `"."`) and limits.
 * @returns The plugin, named `"fs"`.
 * @throws {Error} When the root does not exist or is not a directory.
 * @throws {TypeError} When a limit is not a positive number.
 *
 * @example Tools and permissions
 * ```ts
 * import { fs } from "@tack/agent/plugins/fs";
 * import { deepEqual } from "node:assert/strict";
 *
 * const plugin = fs({ root: "." });
 * deepEqual(plugin.tools?.map((tool) => tool.name), ["read", "write", "edit", "ls", "find", "grep"]);
 * deepEqual(plugin.permissions, { read: [Deno.realPathSync(".")], write: [Deno.realPathSync(".")] });
 * ```
 */
export function fs(options: FsOptions = {}): Plugin {
  const context = createFsContext(options);
  const real = context.knownRealRoot;
  const paths = real === undefined || real === context.root ? [context.root] : [context.root, real];
  return definePlugin({
    name: "fs",
    description: `File tools confined to ${context.root}`,
    tools: [
      createReadTool(context),
      createWriteTool(context),
      createEditTool(context),
      createLsTool(context),
      createFindTool(context),
      createGrepTool(context),
    ],
    permissions: { read: paths, write: paths },
  });
}

export default fs;
