// What the KV store reads to write a run: its head (for the atomic check), never the chunks of
// the state it has just written. A real KV, its reads counted on the way through.
import { type AgentState, approveCall, kvRunStore } from "@tack/agent";
import { deepEqual, equal, notStrictEqual } from "node:assert/strict";

/** A real KV whose reads (`get`, `getMany`) are counted. */
function countingKv(kv: Deno.Kv): { kv: Deno.Kv; reads: Record<string, number> } {
  const reads: Record<string, number> = { get: 0, getMany: 0 };
  const counted = new Proxy(kv, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (typeof property === "string" && property in reads) reads[property]++;
        return value.apply(target, args);
      };
    },
  });
  return { kv: counted, reads };
}

const waiting = (text: string): AgentState => ({
  version: 1,
  messages: [{ role: "user", content: text, timestamp: 0 }],
  pending: [{ toolCallId: "c1", toolName: "deploy", args: {}, reason: "r", argsHash: "h" }],
  completed: [],
  running: [],
  sticky: [],
  config: { provider: "p", model: "m", tools: [] },
});

Deno.test("save, create and decide read no chunk they wrote or read already; what they return is the stored run", async () => {
  const { kv, reads } = countingKv(await Deno.openKv(":memory:"));
  const store = kvRunStore(kv, { closeKv: true });
  try {
    // Three chunks of state: the old save read each back after writing them.
    const state = waiting("x".repeat(70_000));
    const created = await store.create!("r1", state);
    deepEqual(reads, { get: 1, getMany: 0 });
    const saved = await store.save("r1", state);
    deepEqual(reads, { get: 2, getMany: 0 });
    const decided = await store.decide("r1", [approveCall(state.pending[0])]);
    // decide reads the head, and the state once, to check the decisions.
    deepEqual(reads, { get: 3, getMany: 1 });
    equal(created.status, "pending");
    equal(decided.status, "decided");
    deepEqual(saved, { ...created, updatedAt: saved.updatedAt });
    deepEqual(decided, await store.get("r1"));
    // A copy of what was written, not the caller's object.
    deepEqual(saved.state, state);
    notStrictEqual(saved.state, state);
  } finally {
    store.close();
  }
});
