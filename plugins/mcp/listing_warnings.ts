/**
 * The warnings of a server's tool listings (a listed tool left out, and why), each told once
 * while it lasts: a tool left out for the same reason at every refresh was reported at every
 * refresh, one line each time the server announced a change.
 *
 * @module
 */

/**
 * Tells `warn` of a listing's warnings that the listing before it did not have: a problem that
 * stays is told once; one that changes (another reason) is told again, and so is one that comes
 * back after a listing without it (a tool fixed, then broken again).
 *
 * @param warn Where the warnings go (the plugin's `onWarning`).
 * @returns Called with the warnings of each listing that succeeded, in order.
 *
 * @example The same problem twice, then fixed, then back
 * ```ts
 * import { listingWarnings } from "./listing_warnings.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const told: string[] = [];
 * const listed = listingWarnings((message) => told.push(message));
 * listed(new Set(["bad: no schema"]));
 * listed(new Set(["bad: no schema"]));
 * listed(new Set(["bad: type array"]));
 * listed(new Set());
 * listed(new Set(["bad: type array"]));
 * deepEqual(told, ["bad: no schema", "bad: type array", "bad: type array"]);
 * ```
 */
export function listingWarnings(
  warn: (message: string) => void,
): (warnings: ReadonlySet<string>) => void {
  let before: ReadonlySet<string> = new Set();
  return (warnings) => {
    for (const warning of warnings) {
      if (!before.has(warning)) warn(warning);
    }
    before = warnings;
  };
}
