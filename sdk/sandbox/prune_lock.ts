/**
 * The child's lockfile: the host's, cut down to the npm packages the plugin's graph uses.
 * Deno sets up every npm package a lockfile names, so the full lock would need the whole
 * npm cache mounted; the pruned one needs only the graph's packages.
 *
 * @module
 */

interface Lock {
  version?: string;
  specifiers?: Record<string, string>;
  npm?: Record<string, unknown>;
  workspace?: { dependencies?: string[] } & Record<string, unknown>;
  [key: string]: unknown;
}

function npmName(specifier: string): string | undefined {
  const found = /^npm:(@?[^@]+)@/.exec(specifier);
  return found?.[1];
}

/**
 * Keeps only the npm packages in `keep` (ids as `deno info` names them, e.g.
 * `openai@7.59.0_zod@4.6.7`), the `npm:` specifiers that resolve to them and the
 * workspace dependencies among those; everything else (jsr, remote) stays.
 *
 * @param text The lockfile's text.
 * @param keep The npm package ids the graph needs.
 * @returns The pruned lockfile's text; the input unchanged when it is not a lockfile
 * this understands.
 *
 * @example Only typebox stays
 * ```ts
 * import { pruneLock } from "./prune_lock.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const lock = JSON.stringify({
 *   version: "5",
 *   specifiers: { "npm:typebox@1.4.3": "1.4.3", "npm:openai@7.59.0": "7.59.0_zod@4.6.7" },
 *   npm: { "typebox@1.4.3": { integrity: "a" }, "openai@7.59.0_zod@4.6.7": { integrity: "b" } },
 *   workspace: { dependencies: ["npm:openai@7.59.0", "npm:typebox@1.4.3"] },
 * });
 * deepEqual(JSON.parse(pruneLock(lock, new Set(["typebox@1.4.3"]))), {
 *   version: "5",
 *   specifiers: { "npm:typebox@1.4.3": "1.4.3" },
 *   npm: { "typebox@1.4.3": { integrity: "a" } },
 *   workspace: { dependencies: ["npm:typebox@1.4.3"] },
 * });
 * ```
 */
export function pruneLock(text: string, keep: ReadonlySet<string>): string {
  let lock: Lock;
  try {
    lock = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof lock !== "object" || lock === null) return text;
  const out: Lock = { ...lock };
  if (lock.npm !== undefined) {
    out.npm = Object.fromEntries(Object.entries(lock.npm).filter(([id]) => keep.has(id)));
  }
  const kept = new Set<string>();
  if (lock.specifiers !== undefined) {
    out.specifiers = Object.fromEntries(
      Object.entries(lock.specifiers).filter(([specifier, resolved]) => {
        const name = npmName(specifier);
        if (name === undefined) return true;
        const ok = keep.has(`${name}@${resolved}`);
        if (ok) kept.add(specifier);
        return ok;
      }),
    );
  }
  if (Array.isArray(lock.workspace?.dependencies)) {
    out.workspace = {
      ...lock.workspace,
      dependencies: lock.workspace.dependencies.filter((specifier) =>
        npmName(specifier) === undefined || kept.has(specifier)
      ),
    };
  }
  return JSON.stringify(out, null, 2) + "\n";
}
