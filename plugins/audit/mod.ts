/**
 * The audit log: one JSONL line per finished tool call (tool, arguments, outcome,
 * duration, who blocked or rewrote it), written synchronously so a crash loses at most the calls in
 * flight.
 *
 * @example
 * ```ts
 * import audit from "@tack/agent/plugins/audit";
 * import { equal } from "node:assert/strict";
 *
 * const dir = Deno.makeTempDirSync();
 * equal(audit({ path: `${dir}/audit.jsonl` }).name, "audit");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 *
 * @module
 */

export { audit, auditFailureMessage, type AuditOptions, type AuditPlugin } from "./audit.ts";
export type { AuditEntry, AuditIntent, AuditOutcome } from "./audit_entry.ts";
export { appendJsonlSync } from "./append_jsonl_sync.ts";
export { truncateStrings } from "./truncate_strings.ts";
export { audit as default } from "./audit.ts";
