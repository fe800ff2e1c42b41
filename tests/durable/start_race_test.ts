// Starting a run is atomic: of two processes that start one id on one KV file at the same
// moment, exactly one runs it, and the other is told the id has a run, never replacing it.
import {
  type AgentState,
  kvRunStore,
  openRunStore,
  RunExistsError,
  type RunStore,
  scriptedModel,
  startRun,
  text,
} from "@tack/agent";
import { deepEqual, equal, ok, rejects } from "node:assert/strict";

const STARTER = new URL("../support/durable_start_main.ts", import.meta.url).pathname;
const ROUNDS = 40;

interface Outcome {
  round: number;
  ok: boolean;
  name?: string;
  message?: string;
}

async function starter(kvPath: string, dir: string, name: string): Promise<Outcome[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", STARTER, kvPath, dir, String(ROUNDS), name],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  equal(output.code, 0, stderr);
  return new TextDecoder().decode(output.stdout).trim().split("\n").map((line) => JSON.parse(line));
}

Deno.test(`two processes start the same ids at the same moment on one KV file (${ROUNDS} rounds): one runs each, the other gets RunExistsError`, async () => {
  const dir = Deno.makeTempDirSync({ prefix: "tack_start_race_" });
  const kvPath = `${dir}/runs.sqlite`;
  const [a, b] = await Promise.all(["a", "b"].map((name) => starter(kvPath, dir, name)));
  const store = await openRunStore(kvPath);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const outcomes = [a[round], b[round]];
      deepEqual(outcomes.map((o) => o.round), [round, round]);
      deepEqual(outcomes.map((o) => o.ok).sort(), [false, true], JSON.stringify(outcomes));
      const winner = a[round].ok ? "a" : "b";
      const loser = outcomes.find((o) => !o.ok)!;
      // The winner's run may still run, or be done, when the loser looks.
      const status = /\(it is (running|done)\)$/.exec(loser.message!)?.[1];
      equal(
        loser.message,
        `Cannot start run run-${round}: a run with this id exists (it is ${status})`,
      );
      equal(loser.name, "RunExistsError");
      // The stored run is the winner's, never replaced by the loser's.
      const run = await store.get(`run-${round}`);
      equal(run?.status, "done");
      deepEqual(run?.state.messages.at(-1)?.content, [{ type: "text", text: `by ${winner}` }]);
    }
  } finally {
    store.close();
  }
});

const state = (): AgentState => ({
  version: 1,
  messages: [],
  pending: [],
  completed: [],
  running: [],
  sticky: [],
  config: { provider: "p", model: "m", tools: [] },
});

Deno.test("the KV store's create writes a run only where none is: of twenty creates through two KV handles on one file one writes, the others get RunExistsError", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "tack_create_" });
  const stores = [0, 1].map(async () => kvRunStore(await Deno.openKv(`${dir}/runs.sqlite`)));
  const [one, two] = await Promise.all(stores);
  try {
    const creates = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).create!("r1", state())),
    );
    equal(creates.filter((c) => c.status === "fulfilled").length, 1);
    for (const create of creates) {
      if (create.status === "fulfilled") continue;
      ok(create.reason instanceof RunExistsError);
      equal(create.reason.message, "Cannot create run r1: a run with this id exists (it is done)");
      equal(create.reason.status, "done");
    }
    // A saved run is there too, whatever its status; nothing was written over it.
    const saved = await one.save("r2", state(), { status: "running", worker: "w" });
    await rejects(two.create!("r2", state()), {
      name: "RunExistsError",
      message: "Cannot create run r2: a run with this id exists (it is running)",
    });
    deepEqual(await two.get("r2"), saved);
  } finally {
    one.close();
    two.close();
  }
});

Deno.test("a store written before create (no create method) still works: startRun checks with get, then saves", async () => {
  const kvStore = kvRunStore(await Deno.openKv(":memory:"), { closeKv: true });
  const { create: _, ...older } = kvStore;
  const store: RunStore = older;
  try {
    await startRun(store, "r1", { model: scriptedModel([[text("one")]]) }, "hi");
    equal((await store.get("r1"))?.status, "done");
    await rejects(startRun(store, "r1", { model: scriptedModel([[text("two")]]) }, "hi"), {
      name: "RunExistsError",
      message: "Cannot start run r1: a run with this id exists (it is done)",
    });
    deepEqual((await store.get("r1"))?.state.messages.at(-1)?.content, [
      { type: "text", text: "one" },
    ]);
  } finally {
    store.close();
  }
});
