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

import { isAbsolute, join, relative } from "node:path";
import { writeAllSync } from "./write_all_sync.ts";

/** The mode of a file Tack creates for a run's records: owner read and write. */
export const PRIVATE_FILE_MODE = 0o600;

/** The mode of a folder Tack creates for them: owner only. */
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Refuses a path below `root` that goes through a symlink: a folder Tack writes a run's
 * records in (`.tack/history`, `.tack/sessions`) may come from a cloned repository, or be
 * made by the agent's own shell mid-run, and a link there would have Tack write (or
 * truncate) a file elsewhere, past the write grant Deno checks on the path as written. A
 * path outside `root` (one the user named) is not checked.
 *
 * @param root The folder the records belong to (the workspace).
 * @param path The file or folder about to be written.
 * @throws {Error} `Cannot write <path>: <part> is a symlink (to <target>) …`.
 *
 * @example
 * ```ts
 * import { refuseLinksBelow } from "@tack/agent/sdk";
 * import { throws } from "node:assert/strict";
 *
 * const root = Deno.realPathSync(Deno.makeTempDirSync());
 * Deno.mkdirSync(`${root}/.tack`);
 * Deno.symlinkSync("/tmp", `${root}/.tack/sessions`);
 * throws(() => refuseLinksBelow(root, `${root}/.tack/sessions/s.jsonl`), /is a symlink/);
 * refuseLinksBelow(root, `${root}/.tack/history`);
 * Deno.removeSync(root, { recursive: true });
 * ```
 */
export function refuseLinksBelow(root: string, path: string): void {
  const below = relative(root, path);
  if (below === "" || below.startsWith("..") || isAbsolute(below)) return;
  let current = root;
  for (const part of below.split(/[/\\]/)) {
    current = join(current, part);
    let link: string | undefined;
    try {
      if (!Deno.lstatSync(current).isSymlink) continue;
      link = Deno.readLinkSync(current);
    } catch {
      return; // not there yet: what follows is made by Tack
    }
    throw new Error(
      `Cannot write ${path}: ${current} is a symlink (to ${link}); a run's records go only to real files and folders under ${root}`,
    );
  }
}

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
