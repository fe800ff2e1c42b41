/**
 * Asks Deno before the fs tools write, so a host without the grant is never prompted.
 *
 * @module
 */

import { hostMay } from "../../sdk/sandbox/host_may.ts";

/**
 * Throws Deno's own denial when this process may not write `path` (asked first: a host on a
 * terminal sees no prompt; the model reads the denial, as from a sandbox).
 *
 * @param path The absolute path about to be written.
 * @throws {Deno.errors.NotCapable} `Requires write access to "<path>", run again with the --allow-write flag`.
 *
 * @example A path this process may write
 * ```ts
 * import { requireWrite } from "./require_write.ts";
 *
 * requireWrite(Deno.makeTempFileSync());
 * ```
 */
export function requireWrite(path: string): void {
  if (!hostMay({ name: "write", path })) {
    throw new Deno.errors.NotCapable(
      `Requires write access to "${path}", run again with the --allow-write flag`,
    );
  }
}
