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
  /** Last write (ms since the epoch). */
  updatedAt: number;
}

/** Options of `RunStore.save`. */
export interface SaveOptions {
  /** The status to write (default: from the state). */
  status?: RunStatus;
  /** The worker writing, for `running`. */
  worker?: string;
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
 * any number of processes), exactly one gets the run.
 */
export interface RunStore {
  /**
   * Writes a run's state; the status is `pending` when calls wait, else `done`, unless
   * given. Saving as `running` (a checkpoint) renews `worker`'s lease, and is refused when
   * another worker holds the run.
   */
  save(id: string, state: AgentState, options?: SaveOptions): Promise<StoredRun>;
  /** Reads a run. */
  get(id: string): Promise<StoredRun | undefined>;
  /** Lists runs, optionally of one status. */
  list(status?: RunStatus): Promise<StoredRun[]>;
  /**
   * Records the decisions of a pending run (status `decided`) and queues it for a worker.
   * Rejects when the run is not pending, a decision names a call that does not wait, or the
   * run was changed meanwhile.
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
