/**
 * What a KV run store keeps of a run, read back and checked: its head (status, claim, lease,
 * decisions) and its state in chunks. A damaged or hand-edited record is refused with a
 * message naming it, never taken as it is.
 *
 * @module
 */

import type { AgentState, Decision } from "../agent_state.ts";
import type { RunStatus } from "./run_store.ts";

/** Where runs live in the KV: `[...PREFIX, id, "head"]`, `[...PREFIX, id, "state", i]`. */
export const PREFIX = ["tack", "runs"] as const;
/**
 * Deno KV values are at most 64 KiB; states are stored in chunks below that. In UTF-16 code
 * units: a string with any character past Latin-1 is stored at two bytes a unit.
 */
export const CHUNK = 30_000;

/**
 * The key of run `id`'s head: `[...PREFIX, id, "head"]`.
 *
 * @param id The run's id.
 * @returns The key.
 *
 * @example
 * ```ts
 * import { headKey } from "./kv_run_record.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(headKey("r1"), ["tack", "runs", "r1", "head"]);
 * ```
 */
export function headKey(id: string): Deno.KvKey {
  return [...PREFIX, id, "head"];
}

/** A run's head record. */
export interface RunHead {
  id: string;
  status: RunStatus;
  chunks: number;
  decisions?: Decision[];
  claimedBy?: string;
  claimedAt?: number;
  /** The latest claim's number (kept after the run is released, so the next one is new). */
  claim?: number;
  leaseUntil?: number;
  updatedAt: number;
}

/** A head has at most this many chunks: each but the last is one KV write's 30 000 units. */
const MAX_CHUNKS = Math.ceil(819_200 / CHUNK);
const STATUSES: readonly string[] = ["pending", "decided", "running", "done"];

/**
 * What is wrong with a stored head of run `id`, if anything (a damaged or hand-edited record).
 *
 * @param id The run's id.
 * @param value What its head key holds.
 * @returns The problem, or `undefined` for a sound head.
 *
 * @example
 * ```ts
 * import { headProblem } from "./kv_run_record.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(headProblem("r1", null), "not an object");
 * equal(headProblem("r1", { id: "r1", status: "done", chunks: 1, updatedAt: 0 }), undefined);
 * ```
 */
export function headProblem(id: string, value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not an object";
  const head = value as Partial<Record<keyof RunHead, unknown>>;
  if (head.id !== id) return `its id is ${JSON.stringify(head.id)}`;
  if (!STATUSES.includes(head.status as string)) {
    return `its status is ${JSON.stringify(head.status)}`;
  }
  const { chunks } = head;
  if (!Number.isInteger(chunks) || (chunks as number) < 1 || (chunks as number) > MAX_CHUNKS) {
    return `its chunk count is ${JSON.stringify(chunks)}, not 1 to ${MAX_CHUNKS}`;
  }
  const numbers = ["claim", "claimedAt", "leaseUntil", "updatedAt"] as const;
  for (const field of numbers) {
    const number = head[field];
    if (number !== undefined && typeof number !== "number") return `its ${field} is not a number`;
  }
  if (head.claimedBy !== undefined && typeof head.claimedBy !== "string") {
    return "its claimedBy is not a string";
  }
  if (head.decisions !== undefined && !Array.isArray(head.decisions)) {
    return "its decisions are not a list";
  }
  return undefined;
}

/**
 * The head of run `id` in `entry`, `undefined` when there is none.
 *
 * @param id The run's id.
 * @param entry Its head key's entry.
 * @returns The head, or `undefined`.
 * @throws {Error} `Cannot read run <id>: its record is damaged (…)`.
 *
 * @example
 * ```ts
 * import { headOf } from "./kv_run_record.ts";
 * import { equal, throws } from "node:assert/strict";
 *
 * equal(headOf("r1", { key: [], value: null, versionstamp: null }), undefined);
 * throws(() => headOf("r1", { key: [], value: null, versionstamp: "1" }), /record is damaged/);
 * ```
 */
export function headOf(id: string, entry: Deno.KvEntryMaybe<unknown>): RunHead | undefined {
  if (entry.versionstamp === null) return undefined;
  const problem = headProblem(id, entry.value);
  if (problem !== undefined) {
    throw new Error(`Cannot read run ${id}: its record is damaged (${problem})`);
  }
  return entry.value as RunHead;
}

/** A run id's most bytes (UTF-8): a KV key, prefix and chunk number included, is at most 2 KiB. */
const MAX_ID_BYTES = 1024;

/**
 * Refuses an id longer than a KV key holds, naming the action (`save`, `read`, …).
 *
 * @param action What was to be done with the run.
 * @param id The run's id.
 * @throws {Error} `Cannot <action> run <id…>: its id is <n> bytes in UTF-8, more than 1024`.
 *
 * @example
 * ```ts
 * import { checkId } from "./kv_run_record.ts";
 * import { throws } from "node:assert/strict";
 *
 * checkId("save", "run-1");
 * throws(() => checkId("save", "x".repeat(1025)), /1025 bytes in UTF-8, more than 1024/);
 * ```
 */
export function checkId(action: string, id: string): void {
  const bytes = new TextEncoder().encode(id).length;
  if (bytes <= MAX_ID_BYTES) return;
  throw new Error(
    `Cannot ${action} run ${
      id.slice(0, 40)
    }…: its id is ${bytes} bytes in UTF-8, more than ${MAX_ID_BYTES}`,
  );
}

/**
 * Reads a run's state from its chunks and checks it is an `agent.state()` of version 1.
 *
 * @param kv The store's KV.
 * @param head The run's head (its id and chunk count).
 * @returns The state.
 * @throws {Error} `Cannot read run <id>: a chunk of its state is missing`, `… is not JSON
 *   (…)` or `… is not an agent.state() of version 1 (…)`.
 *
 * @example A chunk that is not there
 * ```ts
 * import { readState } from "./kv_run_record.ts";
 * import { rejects } from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const head = { id: "r1", status: "done" as const, chunks: 1, updatedAt: 0 };
 * await rejects(readState(kv, head), /a chunk of its state is missing/);
 * kv.close();
 * ```
 */
export async function readState(kv: Deno.Kv, head: RunHead): Promise<AgentState> {
  const keys = Array.from({ length: head.chunks }, (_, i) => [...PREFIX, head.id, "state", i]);
  let text = "";
  for (let i = 0; i < keys.length; i += 10) {
    const entries = await kv.getMany<string[]>(keys.slice(i, i + 10));
    for (const entry of entries) {
      if (typeof entry.value !== "string") {
        throw new Error(`Cannot read run ${head.id}: a chunk of its state is missing`);
      }
      text += entry.value;
    }
  }
  let state: AgentState;
  try {
    state = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `Cannot read run ${head.id}: its state is not JSON (${(error as Error).message})`,
    );
  }
  const lists = [state?.messages, state?.pending, state?.completed, state?.running, state?.sticky];
  if (state?.version !== 1 || !lists.every(Array.isArray)) {
    throw new Error(
      `Cannot read run ${head.id}: its state is not an agent.state() of version 1 ` +
        "(messages, pending, completed, running, sticky)",
    );
  }
  return state;
}
