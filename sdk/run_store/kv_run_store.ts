/**
 * The default `RunStore`: Deno KV, on a local SQLite file or a remote KV (Deno Deploy, a
 * self-hosted `denokv`), with the same code. Needs `--unstable-kv` (or
 * `"unstable": ["kv"]` in deno.json) in Deno 2.x.
 *
 * @module
 */

import type { ListenOptions, RunStore, StoredRun } from "./run_store.ts";
import type { AgentState } from "../agent_state.ts";
import { decisionsProblem } from "../resolve_decisions.ts";
import { firstClaim, writeRun } from "./kv_write_run.ts";
import { retryLocked } from "./retry_locked.ts";
import {
  checkId,
  headKey,
  headOf,
  headProblem,
  PREFIX,
  readState,
  type RunHead,
} from "./kv_run_record.ts";

/** Options of {@linkcode kvRunStore}. */
export interface KvRunStoreOptions {
  /**
   * How long a claim (or a save as `running`) through this store holds a run (ms; default
   * 10 min): a worker that wrote nothing for this long may lose it. The lease is kept with
   * the run, so a store with a shorter one does not take a run sooner.
   */
  leaseMs?: number;
  /** Closes the KV with the store (default true when `openRunStore` opened it). */
  closeKv?: boolean;
  /**
   * Told about each run `list` leaves out because it cannot read it (its state is not JSON or
   * not an agent state, a chunk is missing, its record is damaged), with the error naming it.
   * Default: `console.error`.
   */
  onUnreadable?: (id: string, error: Error) => void;
}

interface QueuedResume {
  tackResume: string;
}

function isQueuedResume(value: unknown): value is QueuedResume {
  return typeof value === "object" && value !== null &&
    typeof (value as QueuedResume).tackResume === "string";
}

/**
 * A `RunStore` on a Deno KV. Runs live under `["tack", "runs", id]`; a state larger than a
 * KV value is split into chunks written in the same atomic operation (the whole write is
 * bounded by KV's 800 KiB per atomic operation). Claims use `kv.atomic().check(…)`, so two
 * workers never resume the same run, and so does `create`, so two starts of one id never both
 * write it; `decide` queues the run with `kv.enqueue`.
 *
 * @param kv An open KV (`await Deno.openKv(path)` or a remote URL).
 * @param options Lease and closing.
 * @returns The store.
 *
 * @example Save, decide, claim once
 * ```ts
 * import { kvRunStore } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const store = kvRunStore(await Deno.openKv(":memory:"), { closeKv: true });
 * const state = {
 *   version: 1 as const, messages: [], completed: [], running: [], sticky: [],
 *   pending: [{ toolCallId: "c1", toolName: "t", args: {}, reason: "r", argsHash: "h" }],
 *   config: { provider: "p", model: "m", tools: [] },
 * };
 * await store.save("run-1", state);
 * await store.decide("run-1", [{ toolCallId: "c1", approve: false }]);
 * equal((await store.claim("run-1", "a"))?.status, "running");
 * equal(await store.claim("run-1", "b"), undefined);
 * store.close();
 * ```
 */
export function kvRunStore(kv: Deno.Kv, options: KvRunStoreOptions = {}): RunStore {
  const leaseMs = options.leaseMs ?? 600_000;
  const unreadable = options.onUnreadable ??
    ((id: string, error: Error) =>
      console.error(`Tack: run store: list() left out run ${id}:`, error.message));

  const runOf = (head: RunHead, state: AgentState): StoredRun => {
    const run: StoredRun = { id: head.id, status: head.status, state, updatedAt: head.updatedAt };
    if (head.decisions) run.decisions = head.decisions;
    if (head.claimedBy !== undefined) run.claimedBy = head.claimedBy;
    if (head.claimedAt !== undefined) run.claimedAt = head.claimedAt;
    if (head.claim !== undefined) run.claim = head.claim;
    if (head.leaseUntil !== undefined) run.leaseUntil = head.leaseUntil;
    return run;
  };
  const toRun = async (head: RunHead): Promise<StoredRun> => runOf(head, await readState(kv, head));
  /** A write's run: its state parsed from the JSON written, not read back (a fresh copy). */
  const written = ({ head, text }: { head: RunHead; text: string }) =>
    runOf(head, JSON.parse(text));

  const claimable = (head: RunHead, now: number) =>
    head.status === "decided" ||
    (head.status === "running" && (head.leaseUntil ?? (head.claimedAt ?? 0) + leaseMs) < now);

  return {
    save(id, state, saveOptions) {
      return retryLocked(async () => {
        checkId("save", id);
        return written(await writeRun(kv, leaseMs, "save", id, state, saveOptions));
      });
    },

    create(id, state, saveOptions) {
      return retryLocked(async () => {
        checkId("create", id);
        return written(await writeRun(kv, leaseMs, "create", id, state, saveOptions));
      });
    },

    get(id) {
      return retryLocked(async () => {
        checkId("read", id);
        const head = headOf(id, await kv.get(headKey(id)));
        return head ? await toRun(head) : undefined;
      });
    },

    async list(status) {
      // Reported once the listing succeeded: a retry after "database is locked" reads again.
      const { runs, bad } = await retryLocked(async () => {
        const runs: StoredRun[] = [];
        const bad: [string, Error][] = [];
        for await (const entry of kv.list({ prefix: [...PREFIX] })) {
          const id = entry.key[PREFIX.length];
          if (entry.key.length !== PREFIX.length + 2 || entry.key.at(-1) !== "head") continue;
          if (typeof id !== "string") continue;
          try {
            const head = headOf(id, entry)!;
            if (status !== undefined && head.status !== status) continue;
            runs.push(await toRun(head));
          } catch (error) {
            if (/database is locked/.test((error as Error).message)) throw error;
            bad.push([id, error as Error]);
          }
        }
        return { runs, bad };
      });
      for (const [id, error] of bad) unreadable(id, error);
      return runs;
    },

    decide(id, decisions) {
      return retryLocked(async () => {
        checkId("decide", id);
        const current = await kv.get<RunHead>(headKey(id));
        const currentHead = headOf(id, current);
        if (!currentHead) throw new Error(`Cannot decide run ${id}: there is no such run`);
        if (currentHead.status !== "pending") {
          throw new Error(`Cannot decide run ${id}: it is ${currentHead.status}, not pending`);
        }
        // Refused here, not only when a worker resumes it (then the run went back to pending).
        const state = await readState(kv, currentHead);
        const { pending } = state;
        const problem = decisionsProblem(pending, decisions);
        if (problem !== undefined) {
          const waiting = pending.map((call) => call.toolCallId).join(", ") || "none";
          throw new Error(`Cannot decide run ${id}: ${problem} (waiting: ${waiting})`);
        }
        const head: RunHead = {
          ...currentHead,
          status: "decided",
          decisions: [...decisions],
          updatedAt: Date.now(),
        };
        const queued: QueuedResume = { tackResume: id };
        const result = await kv.atomic().check(current).set(headKey(id), head).enqueue(queued)
          .commit();
        if (!result.ok) throw new Error(`Cannot decide run ${id}: it was changed concurrently`);
        return runOf(head, state); // as read: its chunks change only with the head the commit checked
      });
    },

    claim(id, worker) {
      return retryLocked(async () => {
        checkId("claim", id);
        const current = await kv.get<RunHead>(headKey(id));
        const currentHead = headOf(id, current);
        const now = Date.now();
        if (!currentHead || !claimable(currentHead, now)) return undefined;
        const head: RunHead = {
          ...currentHead,
          status: "running",
          claimedBy: worker,
          claimedAt: now,
          claim: (currentHead.claim ?? firstClaim()) + 1,
          leaseUntil: now + leaseMs,
          updatedAt: now,
        };
        const result = await kv.atomic().check(current).set(headKey(id), head).commit();
        return result.ok ? await toRun(head) : undefined;
      });
    },

    async listen(handler, listenOptions: ListenOptions = {}) {
      const { signal } = listenOptions;
      const pollMs = listenOptions.pollMs ?? 1000;
      if (signal?.aborted) return;
      const seen = (id: string) =>
        Promise.resolve(handler(id)).catch((error) => {
          console.error(`Tack: resuming run ${id} failed:`, error);
        });
      // Queue messages are ignored once the listener stops; the poll finds the runs anyway.
      const queue = kv.listenQueue((message) => {
        if (!signal?.aborted && isQueuedResume(message)) return seen(message.tackResume);
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      // Never rejects (it runs from a timer: that would end the process): a damaged record is
      // left out, and a failed listing (`database is locked`) is reported and tried next time.
      const poll = async () => {
        if (signal?.aborted) return;
        try {
          for await (const entry of kv.list({ prefix: [...PREFIX] })) {
            const id = entry.key[PREFIX.length];
            if (entry.key.length !== PREFIX.length + 2 || entry.key.at(-1) !== "head") continue;
            if (typeof id !== "string" || headProblem(id, entry.value) !== undefined) continue;
            if (claimable(entry.value as RunHead, Date.now())) await seen(id);
          }
        } catch (error) {
          console.error("Tack: run store: looking for decided runs failed:", error);
        }
        if (!signal?.aborted) timer = setTimeout(poll, pollMs);
      };
      if (pollMs > 0) timer = setTimeout(poll, 0);
      await new Promise<void>((resolve) => {
        if (!signal) return;
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve();
        }, { once: true });
      });
      void queue;
    },

    close() {
      if (options.closeKv) kv.close();
    },
  };
}
