/**
 * Trusts a folder's `tack.jsonc` for a test, as `tack trust` would: its fingerprint recorded
 * in the trust store under `stateHome` (the child then runs with `XDG_STATE_HOME=stateHome`).
 *
 * @module
 */

import { loadConfig } from "../../cli/config.ts";
import { fingerprintConfig } from "../../cli/config_fingerprint.ts";
import { recordTrust, trustStorePath } from "../../cli/trust_store.ts";

/**
 * Records `configFile` (as it is now, with its local plugin files and what they import) as
 * trusted in the store under `stateHome`.
 *
 * @param stateHome The `XDG_STATE_HOME` the CLI will run with.
 * @param configFile The `tack.jsonc` to trust.
 * @returns The environment variables to give the CLI (`{ XDG_STATE_HOME: stateHome }`).
 */
export async function trustConfig(
  stateHome: string,
  configFile: string,
): Promise<{ XDG_STATE_HOME: string }> {
  const loaded = await loadConfig(configFile, true);
  if (loaded.kind === "error") throw new Error(loaded.message);
  const store = trustStorePath((name) => name === "XDG_STATE_HOME" ? stateHome : undefined)!;
  await recordTrust(store, await fingerprintConfig(configFile, loaded.bytes!, loaded.config));
  return { XDG_STATE_HOME: stateHome };
}
