/**
 * Which tests need the OS layer (bubblewrap) and what to do without it: skip them with
 * one loud line saying how to install it, or fail when `TACK_REQUIRE_BWRAP=1` (as
 * `.ci/run` sets it), so CI never passes by skipping.
 *
 * @module
 */

import { bwrapAvailable } from "../../sdk/sandbox/bwrap.ts";

/** Whether bubblewrap works on this machine. */
export const HAVE_BWRAP: boolean = await bwrapAvailable();

/** Whether a missing bubblewrap must fail the run instead of skipping (`TACK_REQUIRE_BWRAP=1`). */
export const REQUIRE_BWRAP: boolean = Deno.env.get("TACK_REQUIRE_BWRAP") === "1";

const SKIP_LINE =
  "bubblewrap is not installed: the OS-layer sandbox tests are SKIPPED (apt-get install bubblewrap; TACK_REQUIRE_BWRAP=1 makes this a failure)";

/**
 * The `ignore` value of a test that needs bubblewrap: skipped without it (loudly), run
 * (and so failing) when `TACK_REQUIRE_BWRAP=1`.
 *
 * @param name The test's name, for the skip line.
 * @returns `true` to skip.
 */
export function skipWithoutBwrap(name: string): boolean {
  if (HAVE_BWRAP || REQUIRE_BWRAP) return false;
  if (skipped.length === 0) {
    globalThis.addEventListener("unload", () => {
      console.error(`\n*** ${SKIP_LINE}: ${skipped.map((n) => JSON.stringify(n)).join(", ")}\n`);
    });
  }
  skipped.push(name);
  return true;
}

const skipped: string[] = [];
