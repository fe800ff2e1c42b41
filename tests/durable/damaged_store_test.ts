// Records of the run store damaged by hand or by a bad write: each is named and left out,
// never an error for every run, a hang, or the end of a listening worker's process.
import { type AgentState, kvRunStore } from "@tack/agent";
import { deepEqual, equal, rejects } from "node:assert/strict";

const state = (): AgentState => ({
  version: 1,
  messages: [{ role: "user", content: "go", timestamp: 1 }],
  pending: [{ toolCallId: "c1", toolName: "deploy", args: {}, reason: "r", argsHash: "h" }],
  completed: [],
  running: [],
  sticky: [],
  config: { provider: "p", model: "m", tools: [] },
});

Deno.test("damaged records are named and left out: list lists the good runs, get and decide refuse, a listening worker goes on", async () => {
  const kv = await Deno.openKv(":memory:");
  // The listener's next listing fails as a busy SQLite file does.
  let failListing = false;
  const busy = new Proxy(kv, {
    get(target, name) {
      if (name === "list" && failListing) {
        failListing = false;
        return () => {
          throw new Error("database is locked");
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const reported: [string, string][] = [];
  const store = kvRunStore(busy, {
    onUnreadable: (id, error) => reported.push([id, error.message]),
  });
  const head = (id: string) => ["tack", "runs", id, "head"];
  const errors: unknown[][] = [];
  const consoleError = console.error;
  console.error = (...args: unknown[]) => void errors.push(args);
  try {
    await store.save("good", state());
    await store.save("shape", state());
    await kv.set(["tack", "runs", "shape", "state", 0], JSON.stringify({ pending: 5 }));
    await kv.set(head("null"), null);
    // Read as is, a billion chunks would build a billion keys (the process hung).
    await kv.set(head("huge"), { id: "huge", status: "pending", chunks: 1e9, updatedAt: 0 });
    await kv.set(head("alias"), { id: "good", status: "pending", chunks: 1, updatedAt: 0 });

    deepEqual((await store.list()).map((run) => run.id), ["good"]);
    deepEqual(reported, [
      ["alias", 'Cannot read run alias: its record is damaged (its id is "good")'],
      [
        "huge",
        "Cannot read run huge: its record is damaged (its chunk count is 1000000000, not 1 to 28)",
      ],
      ["null", "Cannot read run null: its record is damaged (not an object)"],
      [
        "shape",
        "Cannot read run shape: its state is not an agent.state() of version 1 (messages, pending, completed, running, sticky)",
      ],
    ]);
    await rejects(store.get("null"), {
      message: "Cannot read run null: its record is damaged (not an object)",
    });
    await rejects(store.decide("shape", [{ toolCallId: "c1", approve: false }]), {
      message:
        "Cannot read run shape: its state is not an agent.state() of version 1 (messages, pending, completed, running, sticky)",
    });
    await rejects(store.claim("huge", "w"), {
      message: /^Cannot read run huge: its record is damaged/,
    });

    // Polling only: the first listing fails, the next ones pass the damaged records by.
    const controller = new AbortController();
    const heard: string[] = [];
    failListing = true;
    await store.save("good", state(), { status: "decided" }); // not queued: found by polling
    const listening = store.listen((id) => {
      heard.push(id);
      controller.abort();
    }, { signal: controller.signal, pollMs: 20 });
    await listening;
    deepEqual(heard, ["good"]);
    equal(failListing, false);
    deepEqual(errors.map((args) => [args[0], (args[1] as Error).message]), [
      ["Tack: run store: looking for decided runs failed:", "database is locked"],
    ]);
  } finally {
    console.error = consoleError;
    store.close();
    kv.close();
  }
});
