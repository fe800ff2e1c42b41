/**
 * The `write` tool: create or overwrite a file, making its parent directories.
 *
 * @module
 */

import { Type } from "typebox";
import { hostMay, requireHostMay } from "../../sdk/sandbox/host_may.ts";
import { dirname } from "node:path";
import type { AgentTool } from "../../core/tool.ts";
import { defineTool } from "../../sdk/define_tool.ts";
import { formatBytes, type FsContext } from "./fs_context.ts";
import { fileRefusal } from "./file_refusal.ts";
import { resolveCalledPath } from "./called_path.ts";
import { realPathArgument } from "./real_path_argument.ts";

/** What `write` puts in `details`. */
export interface WriteDetails {
  /** The path relative to the root. */
  path: string;
  /** Bytes written. */
  bytes: number;
  /** Whether the file was new. */
  created: boolean;
}

/**
 * Creates the `write` tool. The path is confined to the root (a symlinked directory on
 * the way cannot lead out of it); missing parent directories are created; writes to the
 * same file are serialized. FIFOs, devices and files with several hard links are refused.
 *
 * @param context The plugin's root, limits and locks.
 * @returns The tool (effect `write`).
 *
 * @example Writing a new file
 * ```ts
 * import { createFsContext, createWriteTool } from "@tack/agent/plugins/fs";
 * import { equal } from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * const write = createWriteTool(createFsContext({ root }));
 * await write.execute({ path: "src/a.txt", content: "hi" }, {
 *   toolCallId: "1", signal: new AbortController().signal,
 * });
 * equal(await Deno.readTextFile(`${root}/src/a.txt`), "hi");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export function createWriteTool(context: FsContext): AgentTool {
  return defineTool({
    name: "write",
    label: "Write file",
    description: "Create or overwrite a file inside the workspace with the given content. " +
      "Parent directories are created. To change part of a file, use edit.",
    parameters: Type.Object({
      path: Type.String({ description: "File path, relative to the workspace root" }),
      content: Type.String({ description: "The complete new content of the file" }),
    }),
    prepareArguments: realPathArgument(context),
    effects: ["write"],
    async execute({ path, content }) {
      const target = await resolveCalledPath(context, path);
      const name = target.display;
      requireHostMay({ name: "write", path: target.real }); // asked first: no prompt
      return await context.locks.run(target.real, async () => {
        // Again: a link made while this call waited for the file (another write held it).
        await resolveCalledPath(context, path);
        let created = false;
        let info: Deno.FileInfo | undefined;
        try {
          info = await Deno.stat(target.real);
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
          created = true;
          // A host granting the file alone has its folder (asked first: no prompt).
          if (hostMay({ name: "write", path: dirname(target.real) })) {
            await Deno.mkdir(dirname(target.real), { recursive: true });
          }
        }
        if (info?.isDirectory) throw new Error(`${name} is a directory; cannot write to it`);
        const refusal = info && fileRefusal(info, name, context.allowHardLinks);
        if (refusal) throw new Error(refusal);
        const bytes = new TextEncoder().encode(content);
        await Deno.writeFile(target.real, bytes);
        const details: WriteDetails = { path: name, bytes: bytes.length, created };
        return {
          content: [{
            type: "text",
            text: `${created ? "Created" : "Wrote"} ${name} (${formatBytes(bytes.length)})`,
          }],
          details,
        };
      });
    },
  }) as AgentTool;
}
