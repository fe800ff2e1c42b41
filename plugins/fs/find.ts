/**
 * The `find` tool: paths matching a glob.
 *
 * @module
 */

import { Type } from "typebox";
import { relative } from "node:path";
import type { AgentTool } from "../../core/tool.ts";
import { defineTool } from "../../sdk/define_tool.ts";
import type { FsContext } from "./fs_context.ts";
import { compileGlob } from "./glob.ts";
import { resolveCalledPath } from "./called_path.ts";
import { walk } from "./walk.ts";
import { realPathArgument } from "./real_path_argument.ts";

/** What `find` puts in `details`. */
export interface FindDetails {
  /** Paths returned. */
  count: number;
  /** Whether the walk stopped at the limit. */
  limitReached: boolean;
}

/**
 * Creates the `find` tool: files and directories under `path` (default the root) whose
 * path matches the glob, as paths relative to the root, in name order. A pattern
 * without `/` matches names at any depth. Symlinks are not followed; the context's
 * `skipDirs` (`.git`, `node_modules`, `.tack`) are not entered.
 *
 * @param context The plugin's root, limits and locks.
 * @returns The tool (effect `read`).
 *
 * @example Finding TypeScript files
 * ```ts
 * import { createFsContext, createFindTool } from "@tack/agent/plugins/fs";
 * import { equal } from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * await Deno.mkdir(`${root}/src`);
 * await Deno.writeTextFile(`${root}/src/a.ts`, "");
 * await Deno.writeTextFile(`${root}/b.md`, "");
 * const find = createFindTool(createFsContext({ root }));
 * const result = await find.execute({ pattern: "*.ts" }, {
 *   toolCallId: "1", signal: new AbortController().signal,
 * });
 * equal(result.content[0].type === "text" && result.content[0].text, "src/a.ts");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export function createFindTool(context: FsContext): AgentTool {
  return defineTool({
    name: "find",
    label: "Find files",
    description: "Find files and directories inside the workspace by glob: *.ts matches by " +
      "name at any depth, src/**/*.test.ts matches the path under `path`. Returns paths " +
      `relative to the root (directories end with /), at most ${context.maxFindResults} ` +
      "unless limit says otherwise.",
    parameters: Type.Object({
      pattern: Type.String({ description: "Glob: *, ?, **, [abc], {a,b}" }),
      path: Type.Optional(
        Type.String({ description: "Directory to search, relative to the root (default .)" }),
      ),
      limit: Type.Optional(Type.Integer({ minimum: 1, description: "Most paths to return" })),
    }),
    prepareArguments: realPathArgument(context),
    effects: ["read"],
    async execute({ pattern, path, limit }, { signal }) {
      const glob = compileGlob(pattern);
      const root = await context.realRoot();
      const target = await resolveCalledPath(context, path ?? ".");
      const info = await Deno.stat(target.real).catch(() => undefined);
      if (!info) throw new Error(`Directory not found: ${target.display}`);
      if (!info.isDirectory) throw new Error(`${target.display} is not a directory`);
      const max = limit ?? context.maxFindResults;
      const found: string[] = [];
      let limitReached = false;
      for await (const entry of walk(target.real, context.skipDirs, signal)) {
        if (!glob.test(entry.relative)) continue;
        if (found.length === max) {
          limitReached = true;
          break;
        }
        const shown = relative(root, entry.path);
        found.push(entry.isDirectory ? `${shown}/` : shown);
      }
      let text = found.length === 0
        ? `No files match ${pattern} in ${target.display}`
        : found.join("\n");
      if (limitReached) {
        text += `\n\n[Showing the first ${max} matches. Use limit or a narrower pattern for more.]`;
      }
      const details: FindDetails = { count: found.length, limitReached };
      return { content: [{ type: "text", text }], details };
    },
  }) as AgentTool;
}
