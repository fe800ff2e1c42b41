/**
 * The environment a shell command gets: an allowlist of the host's variables, never its
 * API keys or tokens.
 *
 * @module
 */

import { permittedEnv, permittedEnvObject } from "../../sdk/permitted_env.ts";

/**
 * What `bash` inherits from the host by default: the variables a shell and common tools
 * need to behave (paths, user, locale, terminal, temp dir, time zone). A name ending in
 * `*` is a prefix.
 */
export const DEFAULT_INHERITED_ENV: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "TMPDIR",
  "TZ",
];

/** Locale variables tried by name when the host may not list its whole environment. */
const LC_NAMES = [
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "LC_COLLATE",
  "LC_NUMERIC",
  "LC_TIME",
  "LC_MONETARY",
];

/**
 * Picks the host variables a command may see. Names are exact or end in `*` (a prefix);
 * variables the host has no permission to read are left out. Without permission to list
 * the whole environment, a prefix is expanded only for `LC_*` (to the usual locale names).
 *
 * @param names The allowlist (see {@linkcode DEFAULT_INHERITED_ENV}).
 * @returns The variables and their values.
 *
 * @example Keys stay with the host
 * ```ts
 * import { inheritedEnv } from "@tack/agent/plugins/shell";
 * import { equal } from "node:assert/strict";
 *
 * Deno.env.set("OPENAI_API_KEY", "sk-secret");
 * const env = inheritedEnv(["PATH", "HOME"]);
 * equal(env.PATH, Deno.env.get("PATH"));
 * equal(env.OPENAI_API_KEY, undefined);
 * ```
 */
export function inheritedEnv(names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  // What the host may not read (it would be prompted for) is not passed on.
  const all = permittedEnvObject();
  for (const name of names) {
    if (!name.endsWith("*")) {
      const value = all ? all[name] : permittedEnv(name);
      if (value !== undefined) out[name] = value;
      continue;
    }
    const prefix = name.slice(0, -1);
    const candidates = all ? Object.keys(all) : prefix === "LC_" ? LC_NAMES : [];
    for (const key of candidates) {
      if (!key.startsWith(prefix)) continue;
      const value = all ? all[key] : permittedEnv(key);
      if (value !== undefined) out[key] = value;
    }
  }
  return out;
}
