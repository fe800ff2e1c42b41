/**
 * Files that hold what a run saw (session transcripts, prompt history, approval requests,
 * audit logs) are the user's alone: Tack creates them readable and writable by their owner
 * only, and the folders it creates for them open to their owner only. A transcript holds what
 * the tools read (a `.env`, a key in a config file); on a shared machine the default umask
 * would leave it readable by everyone. Existing files and folders keep their modes. POSIX
 * only: Deno ignores modes on Windows.
 *
 * @module
 */

import { writeAllSync } from "./write_all_sync.ts";

/** The mode of a file Tack creates for a run's records: owner read and write. */
export const PRIVATE_FILE_MODE = 0o600;

/** The mode of a folder Tack creates for them: owner only. */
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Makes `folder` and its missing parents, each open to its owner only (existing ones are
 * left as they are).
 *
 * @param folder The folder.
 *
 * @example
 * ```ts
 * import { makePrivateDir } from "@tack/agent/sdk";
 * import { equal } from "node:assert/strict";
 *
 * const root = Deno.makeTempDirSync();
 * makePrivateDir(`${root}/.tack/sessions`);
 * equal(Deno.statSync(`${root}/.tack`).mode! & 0o777, 0o700);
 * Deno.removeSync(root, { recursive: true });
 * ```
 */
export function makePrivateDir(folder: string): void {
  Deno.mkdirSync(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Appends `text` to `file`, creating it readable and writable by its owner only (an
 * existing file keeps its mode).
 *
 * @param file The file.
 * @param text What to append.
 *
 * @example
 * ```ts
 * import { appendPrivateText } from "@tack/agent/sdk";
 * import { equal } from "node:assert/strict";
 *
 * const file = `${Deno.makeTempDirSync()}/history`;
 * appendPrivateText(file, "hi\n");
 * equal(Deno.statSync(file).mode! & 0o777, 0o600);
 * ```
 */
export function appendPrivateText(file: string, text: string | Uint8Array): void {
  using opened = openPrivateForAppend(file);
  writeAllSync(opened, text);
}

/**
 * Writes `text` to `file` (replacing what it held), creating it readable and writable by its
 * owner only (an existing file keeps its mode).
 *
 * @param file The file.
 * @param text Its new content.
 *
 * @example
 * ```ts
 * import { writePrivateText } from "@tack/agent/sdk";
 * import { equal } from "node:assert/strict";
 *
 * const file = `${Deno.makeTempDirSync()}/request.txt`;
 * writePrivateText(file, "run write?");
 * equal(Deno.statSync(file).mode! & 0o777, 0o600);
 * ```
 */
export function writePrivateText(file: string, text: string): void {
  using opened = Deno.openSync(file, {
    write: true,
    create: true,
    truncate: true,
    mode: PRIVATE_FILE_MODE,
  });
  writeAllSync(opened, text);
}

/**
 * Opens `file` for appending, creating it readable and writable by its owner only (an
 * existing file keeps its mode).
 *
 * @param file The file.
 * @returns The open file; close it.
 *
 * @example
 * ```ts
 * import { openPrivateForAppend } from "@tack/agent/sdk";
 *
 * openPrivateForAppend(`${Deno.makeTempDirSync()}/audit.jsonl`).close();
 * ```
 */
export function openPrivateForAppend(file: string): Deno.FsFile {
  return Deno.openSync(file, { append: true, create: true, mode: PRIVATE_FILE_MODE });
}
