/**
 * The `grep` tool: lines matching a regular expression, with context.
 *
 * @module
 */

import { Type } from "typebox";
import { relative } from "node:path";
import type { AgentTool } from "../../core/tool.ts";
import { defineTool } from "../../sdk/define_tool.ts";
import type { FsContext } from "./fs_context.ts";
import { compileRe2 } from "../../core/linear_regexp.ts";
import { compileGlob, type Glob } from "./glob.ts";
import { fileRefusal } from "./file_refusal.ts";
import { resolveCalledPath } from "./called_path.ts";
import { readAhead } from "./read_ahead.ts";
import { readCapped } from "./read_capped.ts";
import { walk, type WalkEntry } from "./walk.ts";
import { realPathArgument } from "./real_path_argument.ts";

/** What `grep` puts in `details`. */
export interface GrepDetails {
  /** Matching lines returned. */
  matches: number;
  /** Files with at least one match. */
  files: number;
  /** Whether the search stopped at the limit. */
  limitReached: boolean;
  /**
   * Files passed over: binary, larger than 10 MB, not regular files (FIFOs, devices), or
   * with several hard links.
   */
  skippedFiles: number;
}

const MAX_LINE_CHARS = 500;
/**
 * The most text a search gathers, whatever `limit` and `context` ask for: 40 times the
 * agent's default result budget. (A `limit` of 1e9 on 40 MB of one-letter lines built a
 * 373-million-character result, 4 GB of memory, before the budget cut it.)
 */
const MAX_OUTPUT_CHARS = 2_000_000;
const MAX_FILE_BYTES = 10 * 1024 * 1024;
/**
 * Files read at once ahead of the search, so their I/O overlaps (by hand, 2,000 small files:
 * 0.55 s one at a time, 0.16 s eight at once); at most this many files (10 MB each) held.
 */
const READ_AHEAD_FILES = 8;

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line truncated]` : line;
}

interface Matcher {
  test(line: string): boolean;
}

function compilePattern(pattern: string, literal: boolean, ignoreCase: boolean): Matcher {
  // Plain text is a substring search: no regular expression, so no limit on its length.
  if (literal && !ignoreCase) return { test: (line) => line.includes(pattern) };
  if (literal) {
    const lower = pattern.toLowerCase();
    return { test: (line) => line.toLowerCase().includes(lower) };
  }
  try {
    return compileRe2(pattern, ignoreCase ? "i" : "");
  } catch (error) {
    throw new Error(
      `pattern is not a valid regular expression: ${(error as Error).message}` +
        " (RE2 syntax, no backreferences or lookaround; set literal: true to search for the" +
        " text as is)",
    );
  }
}

interface Search {
  regex: Matcher;
  context: number;
  remaining: number;
  out: string[];
  /** Characters in `out` so far. */
  chars: number;
  matches: number;
  /** A match was found after the limit was reached, or the output reached its cap. */
  truncated: boolean;
}

function emit(search: Search, line: string): void {
  search.out.push(line);
  search.chars += line.length + 1;
}

/** Lines scanned between two yields to the event loop (timers, abort, Ctrl-C run there). */
const YIELD_EVERY_CHARS = 256 * 1024;

function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

async function searchFile(
  search: Search,
  name: string,
  text: string,
  signal: AbortSignal,
): Promise<boolean> {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  let lastShown = -1;
  let matched = false;
  let scanned = 0;
  for (let i = 0; i < lines.length; i++) {
    scanned += lines[i].length + 1; // an empty line costs a test too
    if (scanned > YIELD_EVERY_CHARS) {
      scanned = 0;
      await yieldToLoop();
      signal.throwIfAborted();
    }
    if (!search.regex.test(lines[i])) continue;
    if (search.remaining === 0 || search.chars >= MAX_OUTPUT_CHARS) {
      search.truncated = true;
      break;
    }
    matched = true;
    const from = Math.max(0, i - search.context, lastShown + 1);
    if (lastShown !== -1 && from > lastShown + 1) emit(search, "--");
    else if (lastShown === -1 && search.out.length > 0) emit(search, "--");
    for (let j = from; j < i; j++) emit(search, `${name}-${j + 1}- ${clip(lines[j])}`);
    emit(search, `${name}:${i + 1}: ${clip(lines[i])}`);
    lastShown = i;
    search.matches++;
    search.remaining--;
    const to = Math.min(lines.length - 1, i + search.context);
    for (let j = i + 1; j <= to; j++) {
      if (search.regex.test(lines[j])) break;
      if (search.chars >= MAX_OUTPUT_CHARS) {
        search.truncated = true;
        break;
      }
      emit(search, `${name}-${j + 1}- ${clip(lines[j])}`);
      lastShown = j;
    }
  }
  return matched;
}

/**
 * Creates the `grep` tool: searches the files under `path` (default the root; a file
 * searches just that file) for lines matching `pattern` (a regular expression in RE2
 * syntax, run in linear time, or plain text with `literal`), optionally only files
 * matching `glob`.
 * Matches print as `path:line: text`, context lines as `path-line- text`, groups apart
 * as `--`. Binary files, files over 10 MB (never read), symlinks, FIFOs, sockets,
 * devices and `skipDirs` are passed over; a FIFO or device named as `path` is refused.
 *
 * @param context The plugin's root, limits and locks.
 * @returns The tool (effect `read`).
 *
 * @example Searching with a line of context
 * ```ts
 * import { createFsContext, createGrepTool } from "@tack/agent/plugins/fs";
 * import { equal } from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${root}/a.ts`, "const a = 1;\nexport { a };\n");
 * const grep = createGrepTool(createFsContext({ root }));
 * const result = await grep.execute({ pattern: "^export", context: 1 }, {
 *   toolCallId: "1", signal: new AbortController().signal,
 * });
 * equal(result.content[0].type === "text" && result.content[0].text,
 *   "a.ts-1- const a = 1;\na.ts:2: export { a };");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export function createGrepTool(context: FsContext): AgentTool {
  return defineTool({
    name: "grep",
    label: "Search files",
    description: "Search file contents inside the workspace for a regular expression " +
      "(RE2 syntax: as JavaScript's, without backreferences or lookaround; literal: true " +
      "for plain text). Prints path:line: text, with " +
      `\`context\` lines around each match, at most ${context.maxGrepMatches} matches unless ` +
      "limit says otherwise. glob filters the files searched (e.g. *.ts).",
    parameters: Type.Object({
      pattern: Type.String({
        description: "Regular expression, RE2 syntax (or text with literal: true)",
      }),
      path: Type.Optional(
        Type.String({ description: "File or directory to search, relative to the root" }),
      ),
      glob: Type.Optional(Type.String({ description: "Only files matching this glob" })),
      context: Type.Optional(
        Type.Integer({ minimum: 0, maximum: 50, description: "Lines before and after" }),
      ),
      ignoreCase: Type.Optional(Type.Boolean({ description: "Case-insensitive match" })),
      literal: Type.Optional(Type.Boolean({ description: "Treat pattern as plain text" })),
      limit: Type.Optional(Type.Integer({ minimum: 1, description: "Most matches to return" })),
    }),
    prepareArguments: realPathArgument(context),
    effects: ["read"],
    async execute(params, { signal }) {
      const regex = compilePattern(
        params.pattern,
        params.literal ?? false,
        params.ignoreCase ?? false,
      );
      let filter: Glob | undefined;
      if (params.glob !== undefined) filter = compileGlob(params.glob);
      const root = await context.realRoot();
      const target = await resolveCalledPath(context, params.path ?? ".");
      const info = await Deno.stat(target.real).catch(() => undefined);
      if (!info) throw new Error(`Path not found: ${target.display}`);
      const refusal = info.isDirectory
        ? undefined
        : fileRefusal(info, target.display, context.allowHardLinks);
      if (refusal) throw new Error(refusal);
      // A file named outright is not skipped in silence (a walk counts the ones it skips).
      if (!info.isDirectory && info.size > MAX_FILE_BYTES) {
        throw new Error(
          `${target.display} is ${info.size} bytes; grep reads files of at most ${MAX_FILE_BYTES} bytes (read it in parts with read, or search it with bash)`,
        );
      }
      const max = params.limit ?? context.maxGrepMatches;
      const search: Search = {
        regex,
        context: params.context ?? 0,
        remaining: max,
        out: [],
        chars: 0,
        matches: 0,
        truncated: false,
      };
      let files = 0;
      let skippedFiles = 0;
      const candidates = info.isDirectory ? walk(target.real, context.skipDirs, signal) : [{
        path: target.real,
        relative: target.display,
        isFile: true,
        isDirectory: false,
        isSymlink: false,
      }];
      // Only regular files the glob wants are read; size and kind come from lstat before any
      // byte is read: a file over the cap is never read, a FIFO or device never opened.
      const load = async (entry: WalkEntry): Promise<Uint8Array | undefined> => {
        const stat = await Deno.lstat(entry.path).catch(() => undefined);
        if (
          !stat || fileRefusal(stat, entry.relative, context.allowHardLinks) ||
          stat.size > MAX_FILE_BYTES
        ) return undefined;
        const bytes = await readCapped(entry.path, stat.size, MAX_FILE_BYTES);
        return bytes && !bytes.subarray(0, 8000).includes(0) ? bytes : undefined;
      };
      const wanted = async function* (): AsyncGenerator<WalkEntry> {
        for await (const entry of candidates) {
          if (entry.isSymlink || entry.isDirectory) continue;
          if (!filter || filter.test(entry.relative)) yield entry;
        }
      };
      for await (const [entry, bytes] of readAhead(wanted(), READ_AHEAD_FILES, load)) {
        if (search.truncated) break;
        if (!bytes) {
          skippedFiles++;
          continue;
        }
        const name = relative(root, entry.path);
        if (await searchFile(search, name, new TextDecoder().decode(bytes), signal)) files++;
        signal.throwIfAborted();
      }
      let text = search.out.length === 0
        ? `No matches for ${params.pattern} in ${target.display}`
        : search.out.join("\n");
      if (search.truncated) {
        text += search.chars >= MAX_OUTPUT_CHARS
          ? `\n\n[Showing the first ${search.matches} matches: the output reached ${MAX_OUTPUT_CHARS} characters. Use a narrower pattern, path or glob.]`
          : `\n\n[Showing the first ${max} matches. Use limit or a narrower pattern for more.]`;
      }
      const details: GrepDetails = {
        matches: search.matches,
        files,
        limitReached: search.truncated,
        skippedFiles,
      };
      return { content: [{ type: "text", text }], details };
    },
  }) as AgentTool;
}
