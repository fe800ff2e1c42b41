// What the lease promises, each sentence of docs/durable.md's "Crashes and leases" that no
// process test covers: a store with a shorter lease takes a run no sooner, a clock that jumps
// past the lease hands a live worker's run on safely, and a run deleted while held is lost to
// its worker, even when a new run takes its id.
import {
  approveCall,
  defineTool,
  kvRunStore,
  resumeStoredRun,
  scriptedModel,
  startRun,
  text,
  toolCall,
} from "@tack/agent";
import { deepEqual, equal, match, rejects } from "node:assert/strict";
import { Type } from "typebox";
import { durableOptions } from "../support/durable_fixture.ts";

/** Two stores on one SQLite file, as two processes have. */
async function twoStores(leaseMs: [number, number]) {
  const dir = Deno.makeTempDirSync({ prefix: "tack_claims_" });
  const open = async (lease: number) =>
    kvRunStore(await Deno.openKv(`${dir}/runs.sqlite`), { leaseMs: lease, closeKv: true });
  const stores = [await open(leaseMs[0]), await open(leaseMs[1])] as const;
  return {
    dir,
    stores,
    [Symbol.dispose]() {
      for (const store of stores) store.close();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

/** A run whose one call runs `during` (w1 holds the run meanwhile), then the model ends. */
function heldOptions(ran: string[], during: () => Promise<void>) {
  const step = (request: { messages: readonly { role: string }[] }) =>
    request.messages.some((m) => m.role === "toolResult")
      ? [text("end")]
      : [toolCall("slow", {}, "c1")];
  return {
    model: scriptedModel([step, step]),
    tools: [defineTool({
      name: "slow",
      description: "slow",
      parameters: Type.Object({}),
      execute: async () => {
        ran.push("slow");
        await during();
        return { content: [{ type: "text", text: "ok" }] };
      },
    })],
  };
}

Deno.test("a store opened with a shorter lease takes a held run no sooner: the lease is kept with the run", async () => {
  using setup = await twoStores([600_000, 1]);
  const [long, short] = setup.stores;
  const log = `${setup.dir}/log`;
  await startRun(
    long,
    "r",
    durableOptions(log, [[toolCall("deploy", { target: "a" }, "c1")]]),
    "go",
  );
  await long.decide("r", [approveCall((await long.get("r"))!.state.pending[0])]);
  equal((await long.claim("r", "w1"))?.claimedBy, "w1");
  await new Promise((resolve) => setTimeout(resolve, 20));
  equal(await short.claim("r", "w2"), undefined);
  equal(await resumeStoredRun(short, "r", "w2", durableOptions(log, [[text("end")]])), undefined);
  equal((await short.get("r"))?.claimedBy, "w1");
});

Deno.test("a clock that jumps past the lease hands a live worker's run on: its next save is refused, and its call is not run again", async () => {
  using setup = await twoStores([600_000, 600_000]);
  const [mine, theirs] = setup.stores;
  const ran: string[] = [];
  const realNow = Date.now;
  let taken: Awaited<ReturnType<typeof resumeStoredRun>>;
  try {
    const options = heldOptions(ran, async () => {
      const jumped = realNow() + 11 * 60_000;
      Date.now = () => jumped; // NTP stepping the clock, mid-call
      taken = await resumeStoredRun(theirs, "r", "w2", heldOptions(ran, async () => {}));
    });
    await rejects(startRun(mine, "r", options, "go", "w1"), {
      name: "RunLostError",
      message: "Cannot save run r: worker w1 lost it (it is done now)",
    });
  } finally {
    Date.now = realNow;
  }
  deepEqual(ran, ["slow"]);
  match(
    JSON.stringify(taken!.messages[2].content),
    /Tool slow was interrupted while it was running/,
  );
  const kept = await mine.get("r");
  equal(kept?.status, "done");
  deepEqual(kept?.state.messages, JSON.parse(JSON.stringify(taken!.messages)));
});

Deno.test("a run deleted while its worker holds it is lost to that worker, even once a new run took its id under the same worker name", async () => {
  using setup = await twoStores([600_000, 600_000]);
  const [mine, theirs] = setup.stores;
  const kv = await Deno.openKv(`${setup.dir}/runs.sqlite`);
  const ran: string[] = [];
  try {
    const deleteAndRestart = async () => {
      for await (const entry of kv.list({ prefix: ["tack", "runs", "r"] })) {
        await kv.delete(entry.key);
      }
      // A new run under the id, started by a worker of the same name, still running.
      const state = {
        version: 1 as const,
        messages: [{ role: "user" as const, content: "new", timestamp: 1 }],
        pending: [],
        completed: [],
        running: [],
        sticky: [],
        config: { provider: "p", model: "m", tools: [] },
      };
      await theirs.save("r", state, { status: "running", worker: "w1" });
    };
    await rejects(startRun(mine, "r", heldOptions(ran, deleteAndRestart), "go", "w1"), {
      name: "RunLostError",
      message:
        /^Cannot save run r: worker w1 lost it \(its lease lapsed and worker w1 claimed it\)$/,
    });
    const kept = await theirs.get("r");
    deepEqual(kept?.state.messages.map((m) => m.content), ["new"]);
  } finally {
    kv.close();
  }
});

Deno.test("a run deleted while its worker holds it: the worker's next save is refused (it is gone) and nothing is written back", async () => {
  using setup = await twoStores([600_000, 600_000]);
  const [mine] = setup.stores;
  const kv = await Deno.openKv(`${setup.dir}/runs.sqlite`);
  const ran: string[] = [];
  try {
    const remove = async () => {
      for await (const entry of kv.list({ prefix: ["tack", "runs", "r"] })) {
        await kv.delete(entry.key);
      }
    };
    await rejects(startRun(mine, "r", heldOptions(ran, remove), "go", "w1"), {
      name: "RunLostError",
      message: "Cannot save run r: worker w1 lost it (it is gone)",
    });
    equal(await mine.get("r"), undefined);
    deepEqual(ran, ["slow"]);
  } finally {
    kv.close();
  }
});

for (const hook of ["beforeToolCall", "verifyToolCall"] as const) {
  Deno.test(`a worker whose run was taken while a call's ${hook} ran does not start the call: its start was saved before, so it saves again first`, async () => {
    using setup = await twoStores([600_000, 600_000]);
    const [mine, theirs] = setup.stores;
    const ran: string[] = [];
    const realNow = Date.now;
    let release!: () => void;
    const hookWaits = new Promise<void>((resolve) => (release = resolve));
    const options = {
      ...heldOptions(ran, async () => {}),
      // A hook that takes its time (a person asked on a terminal, a slow policy service).
      [hook]: () => hookWaits.then(() => undefined),
    };
    const running = startRun(mine, "r", options, "go", "w1");
    try {
      while (!(await mine.get("r"))?.state.running.includes("c1")) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // Meanwhile the clock steps past the lease and w2 takes the run.
      const jumped = realNow() + 11 * 60_000;
      Date.now = () => jumped;
      equal((await theirs.claim("r", "w2"))?.claimedBy, "w2");
      release();
      await rejects(running, {
        name: "RunLostError",
        message: "Cannot save run r: worker w1 lost it (its lease lapsed and worker w2 claimed it)",
      });
    } finally {
      Date.now = realNow;
    }
    deepEqual(ran, []);
  });
}

Deno.test("a save whose run is taken between its read and its write says the run was lost (RunLostError), not that it changed", async () => {
  // Found by the suite: a worker stopped (SIGSTOP) in the middle of a save came back to
  // `Cannot save run r: it was changed concurrently`, a plain Error its host could not tell
  // from a bug, where the run had been taken from it.
  const dir = Deno.makeTempDirSync({ prefix: "tack_claims_" });
  const path = `${dir}/runs.sqlite`;
  const kv = await Deno.openKv(path);
  let beforeCommit: (() => Promise<void>) | undefined;
  // The KV as the store sees it, but a write's commit runs `beforeCommit` first: the other
  // worker's claim lands between this one's read and its write.
  const slowKv = new Proxy(kv, {
    get(target, name) {
      if (name !== "atomic") {
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        const op = target.atomic();
        const commit = op.commit.bind(op);
        op.commit = async () => {
          const hook = beforeCommit;
          beforeCommit = undefined;
          await hook?.();
          return commit();
        };
        return op;
      };
    },
  });
  const mine = kvRunStore(slowKv, { leaseMs: 50 });
  const theirs = kvRunStore(await Deno.openKv(path), { leaseMs: 50, closeKv: true });
  try {
    const log = `${dir}/log`;
    await startRun(
      mine,
      "r",
      durableOptions(log, [[toolCall("deploy", { target: "a" }, "c1")]]),
      "go",
    );
    await mine.decide("r", [approveCall((await mine.get("r"))!.state.pending[0])]);
    const held = (await mine.claim("r", "w1"))!;
    beforeCommit = async () => {
      await new Promise((resolve) => setTimeout(resolve, 80)); // the lease lapses
      equal((await theirs.claim("r", "w2"))?.claimedBy, "w2");
    };
    const error = await mine.save("r", held.state, {
      worker: "w1",
      claim: held.claim,
      status: "running",
    }).then(() => undefined, (error: Error) => error);
    equal(error?.name, "RunLostError");
    equal(
      error?.message,
      "Cannot save run r: worker w1 lost it (its lease lapsed and worker w2 claimed it)",
    );
    equal((await theirs.get("r"))?.claimedBy, "w2");
  } finally {
    mine.close();
    kv.close();
    theirs.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("the agent startRun returns, prompted again once the run is saved as done, runs its calls: the gate saves only while the run is held", async () => {
  using setup = await twoStores([600_000, 600_000]);
  const [store] = setup.stores;
  const ran: string[] = [];
  const step = (request: { messages: readonly { role: string }[] }) =>
    request.messages.filter((m) => m.role === "user").length < 2
      ? [text("hi")]
      : request.messages.at(-1)?.role === "toolResult"
      ? [text("end")]
      : [toolCall("slow", {}, "c1")];
  const options = { ...heldOptions(ran, async () => {}), model: scriptedModel([step, step, step]) };
  const agent = await startRun(store, "r", options, "hello");
  equal((await store.get("r"))?.status, "done");
  await agent.prompt("more");
  deepEqual(ran, ["slow"]);
  equal(agent.messages.at(-1)?.role, "assistant");
  // Nothing more is written to the run the store has as done.
  deepEqual((await store.get("r"))?.state.messages.map((m) => m.role), ["user", "assistant"]);
});
