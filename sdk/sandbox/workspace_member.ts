/**
 * Whether a folder is a member of a Deno workspace, by the root config's `workspace` list,
 * the way Deno 2.9 reads it (measured; see `tests/sandbox/workspace_lock_test.ts`).
 *
 * @module
 */

import { relative, resolve } from "node:path";

/**
 * The members a config's `workspace` field lists: an array of paths, or `{ members }`.
 *
 * @param config A parsed `deno.json(c)`.
 * @returns The member entries, or `undefined` when the config is not a workspace root.
 *
 * @example Both forms
 * ```ts
 * import { workspaceMembers } from "./workspace_member.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * deepEqual(workspaceMembers({ workspace: ["./a"] }), ["./a"]);
 * deepEqual(workspaceMembers({ workspace: { members: ["./b"] } }), ["./b"]);
 * equal(workspaceMembers({ imports: {} }), undefined);
 * ```
 */
export function workspaceMembers(config: unknown): string[] | undefined {
  const field = (config as { workspace?: unknown } | null)?.workspace;
  const list = Array.isArray(field) ? field : (field as { members?: unknown } | null)?.members;
  return Array.isArray(list) ? list.filter((entry) => typeof entry === "string") : undefined;
}

/**
 * One segment of a glob as a regular expression (with its leading `/`): `**` any number of
 * folders, else `*` (any characters) and `?` (one) within the folder's name. None of them
 * matches a name's leading `.`; a segment that starts with one names it.
 */
function segmentRegExp(segment: string): string {
  if (segment === "**") return "(?:/(?!\\.)[^/]+)*";
  const noLeadingDot = /^[*?]/.test(segment) ? "(?!\\.)" : "";
  const literal = segment.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  return "/" + noLeadingDot + literal.replaceAll("*", "[^/]*").replaceAll("?", "[^/]");
}

/** A glob over a path relative to the root (`packages/*`) as a regular expression on `/<path>`. */
function globRegExp(pattern: string): RegExp {
  return new RegExp(`^${pattern.split("/").map(segmentRegExp).join("")}$`);
}

/**
 * Whether `dir` is a member of the workspace whose root config is in `root`. A plain path
 * names one folder. An entry with `*` or `?`, or starting with `!`, is a pattern: a folder
 * is a member when a pattern matches it and no `!` entry does (whatever their order).
 * `[…]` and `{…}` are not patterns; a glob with a `..` segment matches nothing (a `!` plain
 * path with one is resolved).
 *
 * @param root The workspace root's folder (absolute).
 * @param members Its `workspace` entries ({@linkcode workspaceMembers}).
 * @param dir An absolute folder.
 * @returns `true` for a member.
 *
 * @example A glob and an exclusion
 * ```ts
 * import { isWorkspaceMember } from "./workspace_member.ts";
 * import { equal } from "node:assert/strict";
 *
 * const members = ["./packages/*", "!./packages/old"];
 * equal(isWorkspaceMember("/r", members, "/r/packages/new"), true);
 * equal(isWorkspaceMember("/r", members, "/r/packages/old"), false);
 * equal(isWorkspaceMember("/r", members, "/r/packages/new/sub"), false);
 * ```
 */
export function isWorkspaceMember(root: string, members: readonly string[], dir: string): boolean {
  const isPattern = (entry: string) => entry.startsWith("!") || /[*?]/.test(entry);
  if (members.some((entry) => !isPattern(entry) && resolve(root, entry) === dir)) return true;
  const path = relative(root, dir);
  // The root itself, or a folder outside it (`..` or `../…`; `..x` is a name inside it).
  if (path === "" || path === ".." || path.startsWith("../")) return false;
  const matches = (entry: string) =>
    !(/[*?]/.test(entry) && entry.split("/").includes("..")) &&
    globRegExp(relative(root, resolve(root, entry))).test(`/${path}`);
  return members.some((entry) => !entry.startsWith("!") && isPattern(entry) && matches(entry)) &&
    !members.some((entry) => entry.startsWith("!") && matches(entry.slice(1)));
}
