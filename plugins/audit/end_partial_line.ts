/**
 * Ends a log's last line if a crash or a full disk left it half written.
 *
 * @module
 */

import { openPrivateForAppend } from "../../sdk/private_files.ts";
import { writeAllSync } from "../../sdk/write_all_sync.ts";

const NEWLINE = new Uint8Array([10]);

/**
 * Appends a line break to a file whose last byte is not one (a line cut short when a process
 * was killed mid-write, or a disk filled up), so the next line appended starts a line of its
 * own instead of being glued to the fragment, which would make both unreadable. An empty or
 * missing file is left as it is.
 *
 * @param path The JSONL file.
 * @returns Whether a line break was added.
 * @throws {Deno.errors.NotCapable} Without read and write permission for `path`; other
 * `Deno.errors` when the file cannot be read or written.
 *
 * @example
 * ```ts
 * import { endPartialLineSync } from "./end_partial_line.ts";
 * import { equal } from "node:assert/strict";
 *
 * const path = Deno.makeTempFileSync({ suffix: ".jsonl" });
 * Deno.writeTextFileSync(path, '{"a":1}\n{"a":');
 * equal(endPartialLineSync(path), true);
 * equal(endPartialLineSync(path), false);
 * equal(Deno.readTextFileSync(path), '{"a":1}\n{"a":\n');
 * Deno.removeSync(path);
 * ```
 */
export function endPartialLineSync(path: string): boolean {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  let last: number | undefined;
  try {
    const size = file.statSync().size;
    if (size === 0) return false;
    file.seekSync(size - 1, Deno.SeekMode.Start);
    const byte = new Uint8Array(1);
    if (file.readSync(byte) === 1) last = byte[0];
  } finally {
    file.close();
  }
  if (last === undefined || last === 10) return false;
  const append = openPrivateForAppend(path);
  try {
    writeAllSync(append, NEWLINE);
  } finally {
    append.close();
  }
  return true;
}
