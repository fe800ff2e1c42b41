/**
 * The `read` tool: a text file by line range, or an image as image content.
 *
 * @module
 */

import { Type } from "typebox";
import type { AgentTool } from "../../core/tool.ts";
import { defineTool } from "../../sdk/define_tool.ts";
import { joinBytes } from "../../sdk/join_bytes.ts";
import { formatBytes, type FsContext } from "./fs_context.ts";
import { fileRefusal } from "./file_refusal.ts";
import { resolveCalledPath } from "./called_path.ts";
import { realPathArgument } from "./real_path_argument.ts";

/** What `read` puts in `details`. */
export interface ReadDetails {
  /** The path relative to the root. */
  path: string;
  /** For text: the first and last line shown (1-based) and the file's line count. */
  lines?: { from: number; to: number; total: number };
  /** For text: whether lines were left out after the ones shown. */
  truncated?: boolean;
  /** For images: the MIME type and size. */
  image?: { mimeType: string; bytes: number };
}

const BINARY_SNIFF_BYTES = 8000;

function imageMimeType(bytes: Uint8Array): string | undefined {
  const at = (i: number, ...values: number[]) => values.every((v, j) => bytes[i + j] === v);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (at(0, 0xff, 0xd8, 0xff)) return "image/jpeg";
  if (at(0, 0x47, 0x49, 0x46, 0x38)) return "image/gif";
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return "image/webp";
  return undefined;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * Creates the `read` tool. Text comes back as it is in the file (no line numbers), from
 * line `offset` (1-based, default 1), at most `limit` lines and the context's line and
 * byte caps; when lines are left out, a note says which lines were shown and which
 * `offset` continues. PNG, JPEG, GIF and WebP files (recognized by their bytes) come back
 * as image content. Other binary files are refused.
 *
 * @param context The plugin's root, limits and locks.
 * @returns The tool.
 *
 * @example Reading the first line of a file
 * ```ts
 * import { createFsContext, createReadTool } from "@tack/agent/plugins/fs";
 * import { equal } from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${root}/a.txt`, "one\ntwo\n");
 * const read = createReadTool(createFsContext({ root }));
 * const result = await read.execute({ path: "a.txt", limit: 1 }, {
 *   toolCallId: "1", signal: new AbortController().signal,
 * });
 * equal(result.content[0].type === "text" && result.content[0].text,
 *   "one\n\n[Showing lines 1-1 of 2. Use offset=2 to continue.]");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export function createReadTool(context: FsContext): AgentTool {
  return defineTool({
    name: "read",
    label: "Read file",
    description: `Read a file inside the workspace. Text is returned from line \`offset\` ` +
      `(1-based), at most \`limit\` lines, capped at ${context.maxReadLines} lines or ` +
      `${formatBytes(context.maxReadBytes)}; a note tells the offset to continue from. ` +
      `Images (PNG, JPEG, GIF, WebP) are returned as images.`,
    parameters: Type.Object({
      path: Type.String({ description: "File path, relative to the workspace root" }),
      offset: Type.Optional(
        Type.Integer({ minimum: 1, description: "Line to start at (1-based, default 1)" }),
      ),
      limit: Type.Optional(Type.Integer({ minimum: 1, description: "Most lines to return" })),
    }),
    prepareArguments: realPathArgument(context),
    effects: ["read"],
    async execute({ path, offset, limit }, { signal }) {
      const target = await resolveCalledPath(context, path);
      const name = target.display;
      let info: Deno.FileInfo;
      try {
        info = await Deno.stat(target.real);
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) throw new Error(`File not found: ${name}`);
        throw error;
      }
      if (info.isDirectory) throw new Error(`${name} is a directory; use ls to list it`);
      const refusal = fileRefusal(info, name, context.allowHardLinks);
      if (refusal) throw new Error(refusal);
      // Text is always streamed: its lines are found chunk by chunk, so a file of millions
      // of short lines never holds the host in one long synchronous split.
      const head = await readHead(target.real);
      const mimeType = imageMimeType(head);
      if (!mimeType) {
        checkNotBinary(name, head, info.size, context);
        const lines = streamLines(target.real, context.maxReadBytes, signal);
        return await readText(context, name, lines, offset ?? 1, limit);
      }
      checkImageSize(name, info.size, context);
      const bytes = await Deno.readFile(target.real);
      checkImageSize(name, bytes.length, context);
      return {
        content: [
          { type: "text", text: `Read image ${name} [${mimeType}, ${formatBytes(bytes.length)}]` },
          { type: "image", data: toBase64(bytes), mimeType },
        ],
        details: { path: name, image: { mimeType, bytes: bytes.length } } satisfies ReadDetails,
      };
    },
  }) as AgentTool;
}

function checkImageSize(name: string, size: number, context: FsContext): void {
  if (size > context.maxImageBytes) {
    throw new Error(
      `Image ${name} is ${formatBytes(size)}, over the ${
        formatBytes(context.maxImageBytes)
      } limit for images`,
    );
  }
}

function checkNotBinary(name: string, bytes: Uint8Array, size: number, context: FsContext): void {
  const head = bytes.subarray(0, BINARY_SNIFF_BYTES);
  if (imageMimeType(head)) checkImageSize(name, size, context);
  if (head.includes(0)) {
    throw new Error(
      `${name} is a binary file; read returns text and PNG, JPEG, GIF or WebP images only`,
    );
  }
}

async function readHead(path: string): Promise<Uint8Array> {
  using file = await Deno.open(path);
  const buffer = new Uint8Array(BINARY_SNIFF_BYTES);
  const read = await file.read(buffer);
  return buffer.subarray(0, read ?? 0);
}

/**
 * A line's first bytes (decoded only if it is shown: most lines of a long file are only
 * counted) and its full size in bytes.
 */
interface Line {
  head: Uint8Array;
  bytes: number;
}

/**
 * The lines of a file, read as a stream, one batch per chunk read: memory and time stay
 * linear in the file whatever its line lengths, and the host's event loop runs between
 * chunks. A line keeps only its first `keepBytes` bytes (the rest is counted, not kept),
 * and the stream stops when `signal` aborts (the call's timeout).
 */
async function* streamLines(
  path: string,
  keepBytes: number,
  signal: AbortSignal,
): AsyncGenerator<Line[]> {
  using file = await Deno.open(path);
  // The start of a line that began in an earlier chunk.
  let kept: Uint8Array[] = [];
  let keptBytes = 0;
  let bytes = 0;
  const take = (segment: Uint8Array) => {
    bytes += segment.length;
    if (keptBytes < keepBytes) {
      const part = segment.slice(0, keepBytes - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
  };
  const flush = (): Line => {
    const line = { head: joinBytes(kept, keptBytes), bytes };
    kept = [];
    keptBytes = 0;
    bytes = 0;
    return line;
  };
  for await (const chunk of file.readable) {
    signal.throwIfAborted();
    const lines: Line[] = [];
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      if (kept.length === 0 && bytes === 0) {
        // The common case: the whole line is in this chunk.
        lines.push({
          head: chunk.subarray(start, Math.min(end, start + keepBytes)),
          bytes: end - start,
        });
      } else {
        take(chunk.subarray(start, end));
        lines.push(flush());
      }
      start = end + 1;
    }
    if (start < chunk.length) take(chunk.subarray(start));
    yield lines;
  }
  if (kept.length > 0 || bytes > 0) yield [flush()];
}

async function readText(
  context: FsContext,
  name: string,
  source: AsyncIterable<Line[]>,
  offset: number,
  limit: number | undefined,
): Promise<{ content: { type: "text"; text: string }[]; details: ReadDetails }> {
  const wanted = Math.min(limit ?? Infinity, context.maxReadLines);
  const decoder = new TextDecoder();
  const shown: string[] = [];
  let total = 0;
  let bytes = 0;
  let cutByBytes = false;
  let collecting = true;
  let tooLong: Line | undefined;
  for await (const lines of source) {
    for (const line of lines) {
      total++;
      if (!collecting || total < offset) continue;
      const size = line.bytes + 1;
      if (bytes + size > context.maxReadBytes) {
        cutByBytes = true;
        collecting = false;
        if (shown.length === 0) tooLong = line;
        continue;
      }
      shown.push(decoder.decode(line.head));
      bytes += size;
      if (shown.length >= wanted) collecting = false;
    }
  }
  if (total === 0) {
    if (offset > 1) throw new Error(`Offset ${offset} is beyond the end of ${name} (it is empty)`);
    return {
      content: [{ type: "text", text: `(${name} is empty)` }],
      details: { path: name, lines: { from: 0, to: 0, total: 0 }, truncated: false },
    };
  }
  if (offset > total) {
    throw new Error(
      `Offset ${offset} is beyond the end of ${name} (${total} line${total === 1 ? "" : "s"})`,
    );
  }
  const start = offset - 1;
  if (tooLong !== undefined) {
    const line = tooLong;
    const head = decoder.decode(line.head).slice(0, context.maxReadBytes);
    return {
      content: [{
        type: "text",
        text: `${head}\n\n[Line ${offset} is ${formatBytes(line.bytes)}, over the ${
          formatBytes(context.maxReadBytes)
        } limit; showing its first ${head.length} characters.${
          offset < total ? ` Use offset=${offset + 1} to continue.` : ""
        }]`,
      }],
      details: { path: name, lines: { from: offset, to: offset, total }, truncated: true },
    };
  }
  const to = start + shown.length;
  let body = shown.join("\n");
  const truncated = to < total;
  if (truncated) {
    const why = cutByBytes ? ` (${formatBytes(context.maxReadBytes)} limit)` : "";
    body += `\n\n[Showing lines ${offset}-${to} of ${total}${why}. Use offset=${
      to + 1
    } to continue.]`;
  }
  return {
    content: [{ type: "text", text: body }],
    details: { path: name, lines: { from: offset, to, total }, truncated },
  };
}
