/**
 * One synchronous, whole-line append to a JSONL file.
 *
 * @module
 */

import { openPrivateForAppend } from "../../sdk/private_files.ts";
import { writeAllSync } from "../../sdk/write_all_sync.ts";

const encoder = new TextEncoder();

/**
 * Appends one JSON line to a file, synchronously, in a single `O_APPEND` write (so lines
 * from concurrent writers do not interleave), creating the file if needed. Once it
 * returns, the line is in the operating system's hands: a crash of this process cannot
 * lose it (`fsync: true` also survives a power cut, at the cost of a disk flush).
 *
 * @param path The JSONL file.
 * @param value Any JSON-serializable value.
 * @param fsync Flush to disk before returning.
 * @throws {Deno.errors.NotCapable} Without write permission for `path`; other
 * `Deno.errors` when the file cannot be written.
 *
 * @example
 * ```ts
 * import { appendJsonlSync } from "@tack/agent/plugins/audit";
 * import { equal } from "node:assert/strict";
 *
 * const path = Deno.makeTempFileSync({ suffix: ".jsonl" });
 * appendJsonlSync(path, { a: 1 });
 * appendJsonlSync(path, { a: 2 });
 * equal(Deno.readTextFileSync(path), '{"a":1}\n{"a":2}\n');
 * Deno.removeSync(path);
 * ```
 */
export function appendJsonlSync(path: string, value: unknown, fsync = false): void {
  const bytes = encoder.encode(JSON.stringify(value) + "\n");
  const file = openPrivateForAppend(path);
  try {
    writeAllSync(file, bytes);
    if (fsync) file.syncSync();
  } finally {
    file.close();
  }
}
