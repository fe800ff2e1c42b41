/**
 * The `edit` tool: replace one exact, unique piece of a file.
 *
 * @module
 */

import { Type } from "typebox";
import { requireHostMay } from "../../sdk/sandbox/host_may.ts";
import type { AgentTool } from "../../core/tool.ts";
import { defineTool } from "../../sdk/define_tool.ts";
import type { FsContext } from "./fs_context.ts";
import { fileRefusal } from "./file_refusal.ts";
import { resolveCalledPath } from "./called_path.ts";
import { readCapped } from "./read_capped.ts";
import { realPathArgument } from "./real_path_argument.ts";

/** The largest file `edit` reads (10 MiB, as `grep`). */
const MAX_EDIT_BYTES = 10 * 1024 * 1024;

/** What `edit` puts in `details`. */
export interface EditDetails {
  /** The path relative to the root. */
  path: string;
  /** The first line that changed (1-based). */
  firstChangedLine: number;
  /** The replaced lines (`-`) and their replacement (`+`), with line numbers. */
  diff: string;
}

function countOccurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++;
  return count;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < index; at = text.indexOf("\n", at + 1)) {
    line++;
  }
  return line;
}

function diffOf(oldText: string, newText: string, line: number): string {
  const width = String(line + Math.max(oldText.split("\n").length, newText.split("\n").length))
    .length;
  const numbered = (sign: string, text: string) =>
    text.split("\n").map((l, i) => `${sign}${String(line + i).padStart(width)} ${l}`);
  return [...numbered("-", oldText), ...numbered("+", newText)].join("\n");
}

/**
 * Creates the `edit` tool: `oldText` must occur exactly once in the file and is replaced
 * by `newText`. When the file has CRLF line endings and `oldText` matches only with them,
 * both texts are taken with CRLF. Edits to the same file are serialized.
 *
 * @param context The plugin's root, limits and locks.
 * @returns The tool (effect `write`).
 *
 * @example A unique replacement
 * ```ts
 * import { createFsContext, createEditTool } from "@tack/agent/plugins/fs";
 * import { equal } from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${root}/a.txt`, "hello world\n");
 * const edit = createEditTool(createFsContext({ root }));
 * await edit.execute({ path: "a.txt", oldText: "world", newText: "Tack" }, {
 *   toolCallId: "1", signal: new AbortController().signal,
 * });
 * equal(await Deno.readTextFile(`${root}/a.txt`), "hello Tack\n");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export function createEditTool(context: FsContext): AgentTool {
  return defineTool({
    name: "edit",
    label: "Edit file",
    description: "Replace text in a file inside the workspace. oldText must match the file " +
      "exactly (whitespace and line breaks included) and occur exactly once; include " +
      "surrounding lines to make it unique.",
    parameters: Type.Object({
      path: Type.String({ description: "File path, relative to the workspace root" }),
      oldText: Type.String({ description: "The exact text to replace; must be unique" }),
      newText: Type.String({ description: "The text to put in its place" }),
    }),
    prepareArguments: realPathArgument(context),
    effects: ["write"],
    async execute({ path, oldText, newText }) {
      if (oldText === "") throw new Error("oldText must not be empty");
      if (oldText === newText) {
        throw new Error("oldText and newText are the same; the edit would change nothing");
      }
      const target = await resolveCalledPath(context, path);
      const name = target.display;
      requireHostMay({ name: "write", path: target.real }); // asked first: no prompt
      return await context.locks.run(target.real, async () => {
        // Again: a link made while this call waited for the file (another write held it).
        await resolveCalledPath(context, path);
        let text: string;
        try {
          const stat = await Deno.stat(target.real);
          if (stat.isDirectory) throw new Error(`${name} is a directory; edit changes files`);
          const refusal = fileRefusal(stat, name, context.allowHardLinks);
          if (refusal) throw new Error(refusal);
          // Read whole (and at most the cap: a huge file held the host's memory, read on
          // past the call's timeout, until the host was killed).
          const bytes = await readCapped(target.real, stat.size, MAX_EDIT_BYTES);
          if (bytes === undefined) {
            throw new Error(
              `${name} is over ${MAX_EDIT_BYTES} bytes; edit changes files of at most that size (use bash for larger ones)`,
            );
          }
          text = new TextDecoder().decode(bytes);
        } catch (error) {
          if (error instanceof Deno.errors.NotFound) throw new Error(`File not found: ${name}`);
          if (error instanceof Deno.errors.IsADirectory) {
            throw new Error(`${name} is a directory; edit changes files`);
          }
          throw error;
        }
        let find = oldText;
        let replacement = newText;
        let count = countOccurrences(text, find);
        if (count === 0 && text.includes("\r\n") && !oldText.includes("\r")) {
          const crlf = oldText.replaceAll("\n", "\r\n");
          const crlfCount = countOccurrences(text, crlf);
          if (crlfCount > 0) {
            find = crlf;
            replacement = newText.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n");
            count = crlfCount;
          }
        }
        if (count === 0) {
          throw new Error(
            `oldText not found in ${name}; it must match the file exactly, including ` +
              "whitespace and line breaks (read the file to check)",
          );
        }
        if (count > 1) {
          throw new Error(
            `oldText occurs ${count} times in ${name}; include more context to make it unique`,
          );
        }
        const index = text.indexOf(find);
        await Deno.writeTextFile(
          target.real,
          text.slice(0, index) + replacement + text.slice(index + find.length),
        );
        const firstChangedLine = lineOf(text, index);
        const details: EditDetails = {
          path: name,
          firstChangedLine,
          diff: diffOf(oldText, newText, firstChangedLine),
        };
        return {
          content: [{ type: "text", text: `Edited ${name} at line ${firstChangedLine}` }],
          details,
        };
      });
    },
  }) as AgentTool;
}
