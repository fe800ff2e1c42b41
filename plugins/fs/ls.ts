/**
 * The `ls` tool: a directory's entries, sorted, directories marked with `/`.
 *
 * @module
 */

import { Type } from "typebox";
import { join } from "node:path";
import type { AgentTool } from "../../core/tool.ts";
import { defineTool } from "../../sdk/define_tool.ts";
import type { FsContext } from "./fs_context.ts";
import { resolveCalledPath } from "./called_path.ts";
import { realPathArgument } from "./real_path_argument.ts";

/** What `ls` puts in `details`. */
export interface LsDetails {
  /** The directory relative to the root. */
  path: string;
  /** Entries in the directory. */
  total: number;
  /** Entries shown. */
  shown: number;
}

/**
 * Creates the `ls` tool: one entry a line, sorted case-insensitively, dotfiles included,
 * `/` after directories, `name -> target` for symlinks, at most `limit` entries (default
 * the context's `maxEntries`) with a note when more exist.
 *
 * @param context The plugin's root, limits and locks.
 * @returns The tool (effect `read`).
 *
 * @example Listing the root
 * ```ts
 * import { createFsContext, createLsTool } from "@tack/agent/plugins/fs";
 * import { equal } from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * await Deno.mkdir(`${root}/src`);
 * await Deno.writeTextFile(`${root}/b.txt`, "");
 * const ls = createLsTool(createFsContext({ root }));
 * const result = await ls.execute({}, { toolCallId: "1", signal: new AbortController().signal });
 * equal(result.content[0].type === "text" && result.content[0].text, "b.txt\nsrc/");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export function createLsTool(context: FsContext): AgentTool {
  return defineTool({
    name: "ls",
    label: "List directory",
    description: "List a directory inside the workspace (default: the root). Directories end " +
      `with /, symlinks show their target. At most ${context.maxEntries} entries unless ` +
      "limit says otherwise.",
    parameters: Type.Object({
      path: Type.Optional(
        Type.String({ description: "Directory, relative to the workspace root (default .)" }),
      ),
      limit: Type.Optional(Type.Integer({ minimum: 1, description: "Most entries to list" })),
    }),
    prepareArguments: realPathArgument(context),
    effects: ["read"],
    async execute({ path, limit }) {
      const target = await resolveCalledPath(context, path ?? ".");
      const name = target.display;
      const entries: Deno.DirEntry[] = [];
      try {
        for await (const entry of Deno.readDir(target.real)) entries.push(entry);
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) throw new Error(`Directory not found: ${name}`);
        if (error instanceof Deno.errors.NotADirectory) {
          throw new Error(`${name} is not a directory; use read to see a file`);
        }
        throw error;
      }
      // Each name lowered once, not in every comparison (200,000 entries: 1.7 s before).
      const keyed = entries.map((entry) => ({ entry, key: entry.name.toLowerCase() }));
      keyed.sort((a, b) =>
        a.key < b.key ? -1 : a.key > b.key ? 1 : a.entry.name < b.entry.name ? -1 : 1
      );
      for (let i = 0; i < keyed.length; i++) entries[i] = keyed[i].entry;
      const max = limit ?? context.maxEntries;
      const lines: string[] = [];
      for (const entry of entries.slice(0, max)) {
        if (entry.isSymlink) {
          const link = await Deno.readLink(join(target.real, entry.name)).catch(() => "?");
          lines.push(`${entry.name} -> ${link}`);
        } else {
          lines.push(entry.isDirectory ? `${entry.name}/` : entry.name);
        }
      }
      let text = lines.length === 0 ? `(${name} is empty)` : lines.join("\n");
      if (entries.length > max) {
        text += `\n\n[Showing ${max} of ${entries.length} entries. Use limit=${entries.length} ` +
          "to see all.]";
      }
      const details: LsDetails = { path: name, total: entries.length, shown: lines.length };
      return { content: [{ type: "text", text }], details };
    },
  }) as AgentTool;
}
