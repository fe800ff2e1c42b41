/**
 * Files the fs tools will not open: FIFOs, sockets and devices (a read could block forever
 * or never end), and files with more than one hard link (another link may lie outside the
 * root, so the inode is not the root's to read or change).
 *
 * @module
 */

function kindOf(info: Deno.FileInfo): string | undefined {
  if (info.isFifo) return "a FIFO";
  if (info.isSocket) return "a socket";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  if (!info.isFile && !info.isDirectory && !info.isSymlink) return "a special file";
  return undefined;
}

/**
 * Why an fs tool refuses to open a file, or `undefined` when it may.
 *
 * @param info The file's `Deno.stat` (symlinks already resolved inside the root).
 * @param name The path as shown to the model.
 * @param allowHardLinks Whether files with several hard links are allowed.
 * @returns The refusal text for an error result.
 *
 * @example A file linked twice is refused
 * ```ts
 * import { fileRefusal } from "./file_refusal.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a`, "x");
 * await Deno.link(`${dir}/a`, `${dir}/b`);
 * equal(
 *   fileRefusal(await Deno.stat(`${dir}/b`), "b", false),
 *   "b has 2 hard links; fs does not open files with more than one, since another link " +
 *     "may lie outside the root (the fs option allowHardLinks permits it)",
 * );
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function fileRefusal(
  info: Deno.FileInfo,
  name: string,
  allowHardLinks: boolean,
): string | undefined {
  const kind = kindOf(info);
  if (kind !== undefined) {
    return `${name} is ${kind}, not a regular file; fs tools only open regular files`;
  }
  if (!allowHardLinks && info.isFile && info.nlink !== null && info.nlink > 1) {
    return `${name} has ${info.nlink} hard links; fs does not open files with more than one, ` +
      "since another link may lie outside the root (the fs option allowHardLinks permits it)";
  }
  return undefined;
}
