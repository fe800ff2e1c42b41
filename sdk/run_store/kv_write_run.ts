/**
 * A KV run store's write of a run: `save` (over whatever is stored, by its holder) and
 * `create` (only while no run has the id). Both check, in the write's atomic operation, that
 * the run's head is as it was read, so an absent head read before a create is still absent
 * when the create lands.
 *
 * @module
 */

import type { AgentState } from "../agent_state.ts";
import { RunExistsError, RunLostError, type SaveOptions } from "./run_store.ts";
import { CHUNK, headKey, headOf, PREFIX, type RunHead } from "./kv_run_record.ts";

/**
 * The claim number before a run's first claim: random, so a run deleted by hand and started
 * again under its id does not hand out the numbers its old holder still carries.
 *
 * @returns A random number below 2^32.
 *
 * @example
 * ```ts
 * import { firstClaim } from "./kv_write_run.ts";
 * import { ok } from "node:assert/strict";
 *
 * ok(Number.isInteger(firstClaim()));
 * ```
 */
export function firstClaim(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}

/** Refuses a save that does not come from the run's holder (see `RunStore.save`). */
function checkWriter(id: string, current: RunHead | null, worker?: string, claim?: number): void {
  const held = current?.status === "running" ? current : undefined;
  if (claim !== undefined) {
    if (held?.claim === claim && held.claimedBy === worker) return;
    throw new RunLostError(
      id,
      worker ?? "unnamed",
      held
        ? `its lease lapsed and worker ${held.claimedBy} claimed it`
        : current
        ? `it is ${current.status} now`
        : "it is gone",
    );
  }
  if (held) throw new Error(`Cannot save run ${id}: worker ${held.claimedBy} holds it`);
}

/** How a run is written: over what is stored (`save`), or only where nothing is (`create`). */
export type WriteMode = "save" | "create";

/**
 * Writes run `id` (its head and its state's chunks) in one atomic operation that checks its
 * head is as it was read: for a `create`, that there is none.
 *
 * @param kv The store's KV.
 * @param leaseMs The lease a save as `running` takes.
 * @param mode `save` or `create`.
 * @param id The run's id (checked by the caller).
 * @param state The agent's state.
 * @param options As `RunStore.save`'s.
 * @returns The head written, and the state's JSON.
 * @throws {RunExistsError} For a `create` of an id that has a run.
 * @throws {RunLostError} For a save whose claim no longer holds the run.
 * @throws {Error} `Cannot save run <id>: worker <w> holds it`, `… it was changed
 *   concurrently`, `… its state (<n> characters) is more than one Deno KV write holds (…)`.
 *
 * @example Create once
 * ```ts
 * import { writeRun } from "./kv_write_run.ts";
 * import { equal, rejects } from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const state = {
 *   version: 1 as const, messages: [], pending: [], completed: [], running: [], sticky: [],
 *   config: { provider: "p", model: "m", tools: [] },
 * };
 * equal((await writeRun(kv, 1000, "create", "r1", state)).head.status, "done");
 * await rejects(writeRun(kv, 1000, "create", "r1", state), /a run with this id exists/);
 * kv.close();
 * ```
 */
export async function writeRun(
  kv: Deno.Kv,
  leaseMs: number,
  mode: WriteMode,
  id: string,
  state: AgentState,
  options: SaveOptions = {},
): Promise<{ head: RunHead; text: string }> {
  const current = await kv.get<RunHead>(headKey(id));
  const currentHead = headOf(id, current);
  if (mode === "create" && currentHead) throw new RunExistsError(id, currentHead.status);
  const text = JSON.stringify(state);
  const chunks = Math.max(1, Math.ceil(text.length / CHUNK));
  const now = Date.now();
  const { worker, claim } = options;
  checkWriter(id, currentHead ?? null, worker, claim);
  const head: RunHead = {
    id,
    status: options.status ?? (state.pending.length > 0 ? "pending" : "done"),
    chunks,
    updatedAt: now,
  };
  if (head.status === "pending" && state.pending.length === 0) {
    throw new Error(`Cannot save run ${id} as pending: no call in its state waits`);
  }
  const last = currentHead?.claim;
  if (last !== undefined) head.claim = last;
  if (head.status === "running") {
    head.claimedBy = worker ?? "unnamed";
    // A checkpoint keeps its claim; a save that claims the run takes the next number.
    head.claimedAt = claim === undefined ? now : currentHead?.claimedAt ?? now;
    head.claim = claim ?? (last ?? firstClaim()) + 1;
    head.leaseUntil = now + leaseMs;
  }
  // For a create, `current` has no versionstamp: the check is that the head is absent.
  const op = kv.atomic().check(current).set(headKey(id), head);
  for (let i = 0; i < chunks; i++) {
    op.set([...PREFIX, id, "state", i], text.slice(i * CHUNK, (i + 1) * CHUNK));
  }
  for (let i = chunks; i < (currentHead?.chunks ?? 0); i++) {
    op.delete([...PREFIX, id, "state", i]);
  }
  const result = await op.commit().catch((error: Error) => {
    if (!/mutation size too large/.test(error.message)) throw error;
    throw new Error(
      `Cannot save run ${id}: its state (${text.length} characters) is more than one ` +
        `Deno KV write holds (${error.message})`,
    );
  });
  if (!result.ok) {
    // Changed since it was read: created by another start, taken by a worker (the lease
    // lapsed while this one was stopped between its read and its write), done, or gone.
    const stored = headOf(id, await kv.get<RunHead>(headKey(id)));
    if (mode === "create" && stored) throw new RunExistsError(id, stored.status);
    checkWriter(id, stored ?? null, worker, claim);
    throw new Error(`Cannot save run ${id}: it was changed concurrently`);
  }
  return { head, text };
}
