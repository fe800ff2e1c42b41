/**
 * The environment as far as this process may already read it. Deno prompts on a terminal
 * for a variable it may not read; Tack asks first instead, and a variable it would be
 * prompted for counts as unset. So a script run with `--allow-net` alone, using the
 * provider, the shell plugin or an MCP server, never stops at a prompt for a variable it
 * did not ask for (`HOME`, `LANG`, `OPENAI_ORG_ID`, …).
 *
 * @module
 */

import process from "node:process";
import { hostMay } from "./sandbox/host_may.ts";

/**
 * Whether this process may read `name` without a prompt.
 *
 * @param name A variable name, or `undefined` for the whole environment.
 * @returns `true` when granted (a name Deno refuses to ask about counts as not).
 */
function mayRead(name?: string): boolean {
  try {
    return hostMay(name === undefined ? { name: "env" } : { name: "env", variable: name });
  } catch {
    return false;
  }
}

/**
 * Reads an environment variable where this process may already read it: one it would be
 * prompted for (no `--allow-env` naming it) is `undefined`, as if unset.
 *
 * @param name The variable.
 * @returns Its value, or `undefined`.
 *
 * @example No prompt, whatever the flags
 * ```ts
 * import { permittedEnv } from "@tack/agent/sdk";
 * import { equal } from "node:assert/strict";
 *
 * const home = permittedEnv("HOME");
 * equal(home === undefined || home.length > 0, true);
 * ```
 */
export function permittedEnv(name: string): string | undefined {
  if (!mayRead(name)) return undefined;
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // a name no variable can have (`A=B`, empty)
  }
}

/**
 * The whole environment, when this process may list it (`--allow-env` with no names).
 *
 * @returns Every variable, or `undefined` when listing is not granted.
 *
 * @example
 * ```ts
 * import { permittedEnvObject } from "@tack/agent/sdk";
 * import { equal } from "node:assert/strict";
 *
 * const all = permittedEnvObject();
 * equal(all === undefined || typeof all === "object", true);
 * ```
 */
export function permittedEnvObject(): Record<string, string> | undefined {
  return mayRead() ? Deno.env.toObject() : undefined;
}

/**
 * Runs `make` while `process.env` shows only the variables this process may already read.
 * For a library that reads the environment as it starts: the `openai` client reads seven
 * variables in its constructor (`OPENAI_ORG_ID`, `OPENAI_CUSTOM_HEADERS`, …), each a prompt
 * on a terminal for a host without `--allow-env`. `make` must be synchronous: the real
 * `process.env` is back before this returns.
 *
 * @param make Builds the object.
 * @returns What `make` returned.
 *
 * @example A library that reads HOME at construction
 * ```ts
 * import { withPermittedEnv } from "@tack/agent/sdk";
 * import process from "node:process";
import { hostMay } from "./sandbox/host_may.ts";
 * import { equal } from "node:assert/strict";
 *
 * const home = withPermittedEnv(() => process.env.HOME);
 * equal(home === undefined || home.length > 0, true);
 * ```
 */
export function withPermittedEnv<T>(make: () => T): T {
  const env = process.env;
  try {
    process.env = new Proxy({}, {
      get: (_target, key) => typeof key === "string" && mayRead(key) ? env[key] : undefined,
    });
  } catch {
    return make(); // a runtime whose process.env cannot be replaced: as it is
  }
  try {
    return make();
  } finally {
    process.env = env;
  }
}
