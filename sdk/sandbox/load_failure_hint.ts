/**
 * What to tell a user whose sandboxed plugin could not load its modules: the child runs
 * from the host's cache and lock, frozen, so a package the host did not fetch is named
 * with the command that fetches it, and a graph a frozen lock does not record with the
 * command that records it (`--frozen=false`: a plain `deno cache` fails on that lock too).
 *
 * @module
 */

import { fileURLToPath } from "node:url";

/**
 * The plugin's module as a command line names it: a local module by its absolute path (the
 * command runs where the plugin's deno.json is, which need not be where the host ran), any
 * other by its URL; quoted for a POSIX shell when it needs to be.
 *
 * @param url The plugin's resolved module URL.
 * @returns A path or URL that means the same from any folder.
 *
 * @example
 * ```ts
 * import { moduleForCommand } from "./load_failure_hint.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(moduleForCommand("file:///work/p.ts"), "/work/p.ts");
 * equal(moduleForCommand("jsr:@me/p@1"), "jsr:@me/p@1");
 * equal(moduleForCommand("file:///Users/me/My%20Plugins/p.ts"), "'/Users/me/My Plugins/p.ts'");
 * ```
 */
export function moduleForCommand(url: string): string {
  const module = url.startsWith("file:") ? fileURLToPath(url) : url;
  // Quoted for a POSIX shell where it holds more than plain characters (a space, a quote).
  return /^[\w@%+=:,./~-]+$/.test(module) ? module : `'${module.replaceAll("'", "'\\''")}'`;
}

/**
 * A hint for a sandbox child's load failure, or `""` when the failure is not about the
 * cache or the lock.
 *
 * @param reason The child's last words.
 * @param module The plugin's module as {@linkcode moduleForCommand} names it.
 * @returns The hint, starting with a space.
 *
 * @example A package missing from the cache
 * ```ts
 * import { loadFailureHint } from "./load_failure_hint.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   loadFailureHint('npm package not found in cache: "left-pad", --cached-only is specified.', "/work/p.ts"),
 *   ' (the package "left-pad" is not in the host\'s Deno cache: run `deno cache /work/p.ts` where the plugin\'s deno.json is, with the network, then load it again)',
 * );
 * ```
 *
 * @example A bare specifier no deno.json maps for the plugin
 * ```ts
 * import { loadFailureHint } from "./load_failure_hint.ts";
 * import { match } from "node:assert/strict";
 *
 * match(
 *   loadFailureHint('error: Import "@tack/agent/plugin" not a dependency', "/work/p.ts"),
 *   /^ \(no import map maps "@tack\/agent\/plugin" for the plugin: a sandboxed plugin is resolved by the deno.json at or above its folder/,
 * );
 * ```
 *
 * @example A graph its project's frozen lock does not record
 * ```ts
 * import { loadFailureHint } from "./load_failure_hint.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   loadFailureHint("error: The lockfile is out of date. Run `deno install --frozen=false`", "/work/p.ts"),
 *   " (the plugin's module graph is not in its project's frozen deno.lock: run `deno cache --frozen=false /work/p.ts` where its deno.json is, so the lock records it, then load it again)",
 * );
 * ```
 */
export function loadFailureHint(reason: string, module: string): string {
  const missing = /not found in cache: "([^"]+)"/.exec(reason) ??
    /Failed loading [^ ]+ for package "([^"]+)"/.exec(reason);
  if (missing) {
    return ` (the package "${
      missing[1]
    }" is not in the host's Deno cache: run \`deno cache ${module}\` where the plugin's deno.json is, with the network, then load it again)`;
  }
  const unmapped = /Import "([^"]+)" not a dependency/.exec(reason);
  if (unmapped) {
    return ` (no import map maps "${
      unmapped[1]
    }" for the plugin: a sandboxed plugin is resolved by the deno.json at or above its folder, not by the host's; add one that maps it, for Tack's names with "links" and "imports" as in the README's "Depend on Tack from your own project")`;
  }
  if (/lockfile is out of date/.test(reason)) {
    return ` (the plugin's module graph is not in its project's frozen deno.lock: run \`deno cache --frozen=false ${module}\` where its deno.json is, so the lock records it, then load it again)`;
  }
  return "";
}

/**
 * The hint {@linkcode loadFailureHint} appended to a load error, found again in its text (a
 * caller that shows only an error's first line keeps it: Deno's words before it can run to
 * many lines, a lockfile's diff), or `""`.
 *
 * @param text A load error's whole text.
 * @returns The hint, starting with a space, or `""`.
 *
 * @example
 * ```ts
 * import { trailingLoadHint } from "./load_failure_hint.ts";
 * import { equal } from "node:assert/strict";
 *
 * const hint = " (the package \"x\" is not in the host's Deno cache: run `deno cache /p.ts` where the plugin's deno.json is, with the network, then load it again)";
 * equal(trailingLoadHint(`Cannot load plugin "./p.ts": error\nmore${hint}`), hint);
 * equal(trailingLoadHint("Cannot load plugin"), "");
 * ```
 */
export function trailingLoadHint(text: string): string {
  // Only the last line can end with it: matched against the whole text, each ` (` on a long
  // line before it was tried to that line's end (found by the review: a plugin importing a
  // 4 MB specifier that repeats a hint's start held the CLI for minutes, quadratic in it).
  const last = text.slice(text.lastIndexOf("\n") + 1);
  if (!last.endsWith(")")) return "";
  return / \((?:the package "[^"\n]*" is not in the host's Deno cache|the plugin's module graph is not in its project's frozen deno\.lock|no import map maps "[^"\n]*" for the plugin)[^\n]*\)$/
    .exec(last)?.[0] ?? "";
}
