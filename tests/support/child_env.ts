/**
 * The environment of a child a test runs as a user would (`clearEnv: true`): only what a
 * shell on a new machine has, plus how this machine reaches the npm registry (proxy and
 * CA settings), which `deno install` needs on an empty cache. API keys never pass.
 *
 * @module
 */

import { PREPARATION_ENV } from "../../sdk/sandbox/run_deno.ts";

// What the sandbox passes to `deno info` in a plugin's own project: the same needs.
const PASSED = PREPARATION_ENV;

/**
 * The child's environment: `extra` over the passed host variables that are set.
 *
 * @param extra Variables for this child (they win).
 * @returns The environment to pass with `clearEnv: true`.
 */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of PASSED) {
    const value = Deno.env.get(name);
    if (value !== undefined) out[name] = value;
  }
  return { ...out, ...extra };
}
