/**
 * Durable runs: a `RunStore` (default Deno KV on local SQLite, the same code on a remote
 * KV), `startRun` and `resumeStoredRun`.
 *
 * @module
 */

export type { ListenOptions, RunStatus, RunStore, SaveOptions, StoredRun } from "./run_store.ts";
export { RunExistsError, RunLostError } from "./run_store.ts";
export { kvRunStore, type KvRunStoreOptions } from "./kv_run_store.ts";
export { openRunStore } from "./open_run_store.ts";
export { resumeStoredRun, startRun } from "./durable_run.ts";
