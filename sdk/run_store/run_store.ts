/**
 * Where interrupted runs wait for people: a small interface, so the default (Deno KV)
 * can be swapped for a database of your own.
 *
 * @module
 */

import type { AgentState, Decision } from "../agent_state.ts";

/**
 * Where a run is: waiting for decisions, decided (ready for a worker), running in a
 * worker, or done.
 */
export type RunStatus = "pending" | "decided" | "running" | "done";

/** A run as a store keeps it. */
export interface StoredRun {
  /** The run's id (yours). */
  id: string;
  /** Where it is. */
  status: RunStatus;
  /** The agent's state (`agent.state()`). */
  state: AgentState;
  /** The people's decisions, once given. */
  decisions?: Decision[];
  /** The worker resuming it (while `running`). */
  claimedBy?: string;
  /** When that worker claimed it (ms since the epoch). */
  claimedAt?: number;
  /**
   * The number of the run's latest claim (each `claim`, and each save as `running` of a run
   * nobody holds, takes the next one; a run's first is random). A worker's checkpoints carry
   * it: once another claim replaced it, they are refused (`RunLostError`).
   */
  claim?: number;
  /** While `running`: when the worker's lease lapses unless a checkpoint renews it (ms since the epoch). */
  leaseUntil?: number;
  /** Last write (ms since the epoch). */
  updatedAt: number;
}

/** Options of `RunStore.save`. */
export interface SaveOptions {
  /** The status to write (default: from the state). */
  status?: RunStatus;
  /** The worker writing, for `running`. */
  worker?: string;
  /**
   * The claim the worker holds the run by (`StoredRun.claim` of its claim, or of its first
   * save as `running`): its checkpoints and its last save carry it, and are refused with a
   * `RunLostError` when the run is no longer held by it.
   */
  claim?: number;
}

/**
 * A worker's save refused because the run is no longer its own: its lease lapsed (it wrote
 * nothing for longer than the lease, e.g. the process was stopped) and another worker
 * claimed the run, which may have finished it since. The worker must stop: `startRun` and
 * `resumeStoredRun` abort their agent and reject with it, and nothing it did after its last
 * accepted checkpoint is kept.
 *
 * @example
 * ```ts
 * import { RunLostError } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const error = new RunLostError("run-1", "w1", "worker w2 claimed it");
 * equal(error.message, "Cannot save run run-1: worker w1 lost it (worker w2 claimed it)");
 * ```
 */
export class RunLostError extends Error {
  /** The run. */
  readonly runId: string;
  /** The worker that lost it. */
  readonly worker: string;

  /**
   * The refusal of `worker`'s save of `runId`.
   *
   * @param runId The run.
   * @param worker The worker whose save was refused.
   * @param where Where the run is now (`worker w2 claimed it`, `it is done now`).
   */
  constructor(runId: string, worker: string, where: string) {
    super(`Cannot save run ${runId}: worker ${worker} lost it (${where})`);
    this.name = "RunLostError";
    this.runId = runId;
    this.worker = worker;
  }
}

/**
 * A run refused because its id already has one: `RunStore.create` (and `startRun`) never
 * replace a stored run, whatever its status.
 *
 * @example
 * ```ts
 * import { RunExistsError } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const error = new RunExistsError("run-1", "pending", "start");
 * equal(error.message, "Cannot start run run-1: a run with this id exists (it is pending)");
 * ```
 */
export class RunExistsError extends Error {
  /** The run's id. */
  readonly runId: string;
  /** The status of the run stored under it. */
  readonly status: RunStatus;

  /**
   * The refusal to `action` run `runId`.
   *
   * @param runId The id.
   * @param status The status of the run stored under it.
   * @param action What was refused (default `create`; `startRun` says `start`).
   * @param options The error's cause.
   */
  constructor(runId: string, status: RunStatus, action = "create", options?: ErrorOptions) {
    super(`Cannot ${action} run ${runId}: a run with this id exists (it is ${status})`, options);
    this.name = "RunExistsError";
    this.runId = runId;
    this.status = status;
  }
}

/** Options of `RunStore.listen`. */
export interface ListenOptions {
  /** Stops listening. */
  signal?: AbortSignal;
  /**
   * Also look for decided runs this often (ms; default 1000; 0: never). Needed on a local
   * SQLite KV, where a message queued by another process reaches a listener only when it
   * starts; harmless elsewhere (claims are atomic).
   */
  pollMs?: number;
}

/**
 * Persists runs and hands decided ones to exactly one worker.
 *
 * Contract: `claim` is atomic: of any number of concurrent claims of a decided run (in
 * any number of processes), exactly one gets the run. So is `create`, when a store has it:
 * of concurrent creates of one id, exactly one writes the run.
 */
export interface RunStore {
  /**
   * Writes a run's state; the status is `pending` when calls wait, else `done`, unless
   * given. While the run is `running`, only its holder may write it: a save must carry
   * the holder's `worker` and `claim` (a `RunLostError` when it carries a claim that no longer
   * holds the run, a plain error when it carries none). Saving as `running` renews the
   * lease; saving a run nobody holds as `running` claims it (the next `claim` number).
   */
  save(id: string, state: AgentState, options?: SaveOptions): Promise<StoredRun>;
  /**
   * Writes a new run as `save` does, only if no run has this id: the check and the write are
   * one atomic operation, so of any number of concurrent creates of one id (in any number of
   * processes) exactly one succeeds; the others reject with a `RunExistsError` (unless the run
   * was deleted meanwhile). `startRun` uses it.
   *
   * Optional, so stores written before it keep working: without it `startRun` reads (`get`),
   * then saves, and a run another process starts under the same id in between is replaced.
   */
  create?(id: string, state: AgentState, options?: SaveOptions): Promise<StoredRun>;
  /** Reads a run; rejects naming it when its state cannot be read (`Cannot read run <id>: …`). */
  get(id: string): Promise<StoredRun | undefined>;
  /**
   * Lists runs, optionally of one status. A run whose state cannot be read is left out and
   * reported (by the store's own means: `kvRunStore`'s `onUnreadable`), not an error for
   * every run.
   */
  list(status?: RunStatus): Promise<StoredRun[]>;
  /**
   * Records the decisions of a pending run (status `decided`) and queues it for a worker.
   * Rejects when the run is not pending, the decisions are not exactly one per waiting call
   * (one names a call that does not wait, two name one call, or a waiting call has none), or
   * the run was changed meanwhile.
   */
  decide(id: string, decisions: readonly Decision[]): Promise<StoredRun>;
  /**
   * Takes a decided run (or one whose worker's lease expired) for `worker`: status
   * `running`. Resolves `undefined` when someone else has it or it is not ready.
   */
  claim(id: string, worker: string): Promise<StoredRun | undefined>;
  /** Calls `handler` with the id of each run queued for a worker, until the signal aborts. */
  listen(handler: (id: string) => void | Promise<void>, options?: ListenOptions): Promise<void>;
  /** Closes the store. */
  close(): void;
}
