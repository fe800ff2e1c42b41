/**
 * Read-only mode: blocks every tool call with a `write` or `exec` effect.
 *
 * @example
 * ```ts
 * import readOnly from "@tack/agent/plugins/read_only";
 * import { equal } from "node:assert/strict";
 *
 * equal(readOnly().name, "read-only");
 * ```
 *
 * @module
 */

export { readOnly, readOnlyMessage, type ReadOnlyOptions } from "./read_only.ts";
export { readOnly as default } from "./read_only.ts";
