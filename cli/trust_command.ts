/**
 * `tack trust`: shows what the folder's `tack.jsonc` would do and records that the user
 * trusts it as it is now (and its local plugin files), as `direnv allow` does. Editing either
 * asks again.
 *
 * @module
 */

import { visibleLine } from "../plugins/confirm/visible_text.ts";
import { loadConfig } from "./config.ts";
import { fingerprintConfig } from "./config_fingerprint.ts";
import { unstableTrust } from "./plugin_imports.ts";
import { recordTrust, TrustStoreDenied, trustStorePath } from "./trust_store.ts";
import { trustReport } from "./workspace_trust.ts";
import { resolve } from "node:path";

/** Where `tack trust` writes. */
export interface TrustCommandIo {
  /** The report and the result (stdout). */
  out: (text: string) => void;
  /** Errors (stderr). */
  err: (text: string) => void;
}

/**
 * Runs `tack trust` in `cwd`.
 *
 * @param cwd The folder whose `tack.jsonc` to trust.
 * @param io Where to write.
 * @param env Reads an environment variable (`XDG_STATE_HOME`, `HOME`).
 * @returns 0 when recorded; 2 when there is no file, it is invalid, or the store refuses.
 *
 * @example A folder with no tack.jsonc
 * ```ts
 * import { trustCommand } from "./trust_command.ts";
 * import { equal } from "node:assert/strict";
 *
 * let said = "";
 * const io = { out() {}, err(text: string) { said += text; } };
 * equal(await trustCommand(await Deno.makeTempDir(), io, () => undefined), 2);
 * equal(said.includes("There is no tack.jsonc"), true);
 * ```
 */
export async function trustCommand(
  cwd: string,
  io: TrustCommandIo,
  env: (name: string) => string | undefined,
): Promise<number> {
  const file = resolve(cwd, "tack.jsonc");
  const fail = (message: string) => {
    io.err(visibleLine(message) + "\n");
    return 2;
  };
  const loaded = await loadConfig(file, false);
  if (loaded.kind === "error") return fail(loaded.message);
  if (!loaded.bytes) return fail(`There is no tack.jsonc in ${cwd}: nothing to trust`);
  const store = trustStorePath(env);
  if (store === undefined) {
    return fail("Cannot record trust: neither XDG_STATE_HOME nor HOME is set (or readable)");
  }
  const fingerprint = await fingerprintConfig(file, loaded.bytes, loaded.config);
  io.out(trustReport(fingerprint.path, loaded.config, "is what you trust"));
  try {
    await recordTrust(store, fingerprint);
  } catch (error) {
    const reason = error instanceof TrustStoreDenied ? error.message : (error as Error).message;
    return fail(`Cannot record trust: ${reason}`);
  }
  io.out(
    visibleLine(
      `Trusted ${fingerprint.path} (sha256 ${fingerprint.sha256.slice(0, 16)}…); ` +
        "editing it, a plugin file it lists or a module those import, asks again",
    ) + "\n",
  );
  const problem = fingerprint.imports?.problem;
  if (problem !== undefined) io.err(visibleLine(unstableTrust(problem)) + "\n");
  return 0;
}
