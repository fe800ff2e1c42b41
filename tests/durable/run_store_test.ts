// The run store: Deno KV on a local SQLite file. A pending run survives its process, is
// decided later, and exactly one worker (of several processes) resumes it.
import {
  type AgentState,
  approveCall,
  createAgent,
  defineTool,
  kvRunStore,
  openRunStore,
  resumeStoredRun,
  scriptedModel,
  startRun,
  text,
  toolCall,
} from "@tack/agent";
import { deepEqual, equal, match, rejects } from "node:assert/strict";
import { Type } from "typebox";
import { fileURLToPath } from "node:url";
import { durableOptions, executions } from "../support/durable_fixture.ts";
import { onTerminal } from "../support/on_terminal.ts";

const WORKER = new URL("../support/durable_worker_main.ts", import.meta.url).pathname;
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

function tempDir(): string {
  return Deno.makeTempDirSync({ prefix: "tack_store_" });
}

const deployScript = () => [
  [toolCall("lookup", { key: "a" }, "c1"), toolCall("deploy", { target: "prod" }, "c2")],
  [text("done")],
];

function spawnWorker(args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", WORKER, ...args],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const decoder = new TextDecoder();
  let ready: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const reading = (async () => {
    let buffer = "";
    for await (const chunk of child.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      let i;
      while ((i = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        lines.push(line);
        if (line === "ready") ready!();
      }
    }
  })();
  const stderr = new Response(child.stderr).text();
  return {
    isReady,
    lines,
    done: async () => {
      const status = await child.status;
      await reading;
      return { code: status.code, lines, stderr: await stderr };
    },
  };
}

Deno.test("a pending run is stored, decided later, and resumed from the store; its id cannot start another run", async () => {
  const dir = tempDir();
  const log = `${dir}/log`;
  const store = await openRunStore(`${dir}/runs.sqlite`);
  try {
    await startRun(store, "run-1", durableOptions(log, deployScript()), "ship it");
    const [stored] = await store.list("pending");
    equal(stored.id, "run-1");
    deepEqual(stored.state.pending.map((p) => p.toolName), ["deploy"]);
    deepEqual(executions(log), ["lookup a"]);
    await store.decide("run-1", [approveCall(stored.state.pending[0])]);
    equal((await store.get("run-1"))?.status, "decided");
    const agent = await resumeStoredRun(
      store,
      "run-1",
      "w1",
      durableOptions(log, [[text("deployed it")]]),
    );
    equal(agent?.messages.at(-1)?.role, "assistant");
    deepEqual(executions(log), ["lookup a", "deploy prod"]);
    const done = await store.get("run-1");
    equal(done?.status, "done");
    deepEqual(done?.state.pending, []);
    // Its id is taken: starting another run under it is refused, and it stays as it was.
    await rejects(startRun(store, "run-1", durableOptions(log, deployScript()), "again"), {
      message: "Cannot start run run-1: a run with this id exists (it is done)",
    });
    deepEqual(await store.get("run-1"), done);
    deepEqual(executions(log), ["lookup a", "deploy prod"]);
    // Two starts of a new id at once: one runs, the other is refused by the store's create.
    const starts = await Promise.allSettled(
      [1, 2].map((n) =>
        startRun(store, "run-2", { model: scriptedModel([[text(`run ${n}`)]]) }, "hi")
      ),
    );
    deepEqual(starts.map((start) => start.status).sort(), ["fulfilled", "rejected"]);
    const refused = starts.find((start) => start.status === "rejected") as PromiseRejectedResult;
    match(
      refused.reason.message,
      /^Cannot start run run-2: a run with this id exists \(it is (running|done)\)$/,
    );
  } finally {
    store.close();
  }
});

Deno.test("two worker processes race for one decided run on one local KV file: exactly one resumes it", async () => {
  for (let round = 0; round < 3; round++) {
    const dir = tempDir();
    const log = `${dir}/log`;
    const kvPath = `${dir}/runs.sqlite`;
    const store = await openRunStore(kvPath);
    await startRun(store, "race", durableOptions(log, deployScript()), "ship it");
    const [pending] = (await store.get("race"))!.state.pending;
    await store.decide("race", [approveCall(pending)]);
    store.close();
    const go = `${dir}/go`;
    const workers = [1, 2].map(() => spawnWorker(["race", kvPath, "race", log, go]));
    await Promise.all(workers.map((w) => w.isReady));
    Deno.writeTextFileSync(go, "");
    const outcomes = await Promise.all(workers.map((w) => w.done()));
    for (const outcome of outcomes) equal(outcome.code, 0, outcome.stderr);
    deepEqual(outcomes.map((o) => o.lines.at(-1)).sort(), ["resumed", "skipped"]);
    deepEqual(executions(log), ["lookup a", "deploy prod"]);
    const check = await openRunStore(kvPath);
    equal((await check.get("race"))?.status, "done");
    check.close();
  }
});

Deno.test("a listening worker in another process picks up a run decided after it started", async () => {
  const dir = tempDir();
  const log = `${dir}/log`;
  const kvPath = `${dir}/runs.sqlite`;
  const worker = spawnWorker(["listen", kvPath, log, "1"]);
  await worker.isReady;
  const store = await openRunStore(kvPath);
  try {
    await startRun(store, "late", durableOptions(log, deployScript()), "ship it");
    const [pending] = (await store.get("late"))!.state.pending;
    await store.decide("late", [approveCall(pending)]);
    const outcome = await worker.done();
    equal(outcome.code, 0, outcome.stderr);
    deepEqual(outcome.lines, ["ready", "resumed late"]);
    deepEqual(executions(log), ["lookup a", "deploy prod"]);
    equal((await store.get("late"))?.status, "done");
  } finally {
    store.close();
  }
});

Deno.test("many concurrent claims through two KV handles on one file: one wins", async () => {
  const dir = tempDir();
  const a = await openRunStore(`${dir}/runs.sqlite`);
  const b = await openRunStore(`${dir}/runs.sqlite`);
  try {
    await startRun(a, "r", durableOptions(`${dir}/log`, deployScript()), "go");
    await a.decide("r", [{ toolCallId: "c2", approve: false }]);
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).claim("r", `w${i}`)),
    );
    equal(claims.filter(Boolean).length, 1);
  } finally {
    a.close();
    b.close();
  }
});

Deno.test("store misuse: deciding an unknown or non-pending run, claiming an undecided one", async () => {
  const store = await openRunStore(":memory:");
  try {
    await rejects(store.decide("nope", []), {
      message: "Cannot decide run nope: there is no such run",
    });
    await startRun(store, "done", { model: scriptedModel([[text("hi")]]) }, "hi");
    await rejects(store.decide("done", []), {
      message: "Cannot decide run done: it is done, not pending",
    });
    equal(await store.claim("done", "w"), undefined);
    // A decision for a call that does not wait: refused now (before, accepted as "decided"
    // and refused only when a worker resumed it).
    const dir = tempDir();
    await startRun(store, "r", durableOptions(`${dir}/log`, deployScript()), "go");
    await rejects(store.decide("r", [{ toolCallId: "zzz", approve: false }]), {
      message: "Cannot decide run r: call zzz is not waiting for a decision (waiting: c2)",
    });
    equal((await store.get("r"))?.status, "pending");
  } finally {
    store.close();
  }
});

Deno.test("decide refuses decisions that are not one per waiting call: none for a call, or two contradicting ones", async () => {
  const dir = tempDir();
  const log = `${dir}/log`;
  const store = await openRunStore(`${dir}/runs.sqlite`);
  try {
    await startRun(store, "r", durableOptions(log, deployScript()), "go");
    const [deploy] = (await store.get("r"))!.state.pending;
    await rejects(store.decide("r", []), {
      message: "Cannot decide run r: no decision for call c2 (deploy) (waiting: c2)",
    });
    await rejects(
      store.decide("r", [
        { toolCallId: "c2", approve: false, reason: "NO" },
        approveCall(deploy),
      ]),
      { message: "Cannot decide run r: call c2 has two decisions (waiting: c2)" },
    );
    const run = await store.get("r");
    equal(run?.status, "pending");
    equal(run?.decisions, undefined);
    equal(await resumeStoredRun(store, "r", "w1", durableOptions(log, [[text("x")]])), undefined);
    deepEqual(executions(log), ["lookup a"]);
  } finally {
    store.close();
  }
});

Deno.test("a worker that holds a run blocks others' checkpoints; an expired lease passes the run on", async () => {
  const kv = await Deno.openKv(":memory:");
  const dir = tempDir();
  const store = kvRunStore(kv, { leaseMs: -1 }); // every lease has expired
  try {
    await startRun(store, "r", durableOptions(`${dir}/log`, deployScript()), "go");
    await store.decide("r", [{ toolCallId: "c2", approve: false, reason: "no" }]);
    const first = await store.claim("r", "w1");
    equal(first?.claimedBy, "w1");
    await rejects(store.save("r", first!.state, { status: "running", worker: "w2" }), {
      message: "Cannot save run r: worker w1 holds it",
    });
    const second = await store.claim("r", "w2");
    equal(second?.claimedBy, "w2");
  } finally {
    kv.close();
  }
});

Deno.test("a run that had finished when its worker stopped (before its last save) is saved as done on resume; pending needs a waiting call", async () => {
  const dir = tempDir();
  const kv = await Deno.openKv(`${dir}/runs.sqlite`);
  const store = kvRunStore(kv, { leaseMs: -1 }); // every lease has lapsed
  try {
    const first = createAgent({ model: scriptedModel([[text("hi")]]) });
    await first.prompt("hello");
    // What the last checkpoint (at the turn's end) of a worker that then died holds.
    await store.save("r", first.state(), { status: "running", worker: "dead" });
    const agent = await resumeStoredRun(store, "r", "w2", { model: scriptedModel([]) });
    deepEqual(agent?.messages.map((m) => m.role), ["user", "assistant"]);
    const run = await store.get("r");
    equal(run?.status, "done");
    deepEqual(run?.state, first.state());
    await rejects(store.save("r", first.state(), { status: "pending" }), {
      message: "Cannot save run r as pending: no call in its state waits",
    });
  } finally {
    kv.close();
  }
});

Deno.test("a damaged store names what it cannot read: the file, or the run whose state is not JSON (list leaves it out and reports it)", async () => {
  const dir = tempDir();
  const path = `${dir}/runs.sqlite`;
  const kv = await Deno.openKv(path);
  const unreadable: [string, string][] = [];
  const store = kvRunStore(kv, {
    onUnreadable: (id, error) => void unreadable.push([id, error.message]),
  });
  const state = (text: string): AgentState => ({
    version: 1,
    messages: [{ role: "user", content: text, timestamp: 1 }],
    pending: [],
    completed: [],
    running: [],
    sticky: [],
    config: { provider: "p", model: "m", tools: [] },
  });
  try {
    await store.save("good", state("fine"));
    const waits = { toolCallId: "c1", toolName: "t", args: {}, reason: "r", argsHash: "h" };
    await store.save("bad", { ...state("edited by hand"), pending: [waits] });
    await kv.set(["tack", "runs", "bad", "state", 0], '{"version":1,"messages":[');
    const notJson = /^Cannot read run bad: its state is not JSON \(.+\)$/;
    await rejects(store.get("bad"), { message: notJson });
    deepEqual((await store.list()).map((run) => run.id), ["good"]);
    deepEqual(unreadable.map(([id]) => id), ["bad"]);
    match(unreadable[0][1], notJson);
    await rejects(store.decide("bad", []), { message: notJson });
    // Many runs, then the file cut in half, as a failed copy leaves it.
    for (let i = 0; i < 40; i++) await store.save(`run-${i}`, state("x".repeat(5000)));
  } finally {
    kv.close();
  }
  const bytes = Deno.readFileSync(path);
  Deno.writeFileSync(path, bytes.slice(0, bytes.length / 2));
  await rejects(openRunStore(path), {
    message: `Cannot open run store "${path}": database disk image is malformed`,
  });
});

Deno.test("a state larger than a KV value is stored in chunks and read back whole", async () => {
  const store = await openRunStore(":memory:");
  try {
    const big = "x".repeat(300_000);
    const state: AgentState = {
      version: 1,
      messages: [{ role: "user", content: big, timestamp: 1 }],
      pending: [],
      completed: [],
      running: [],
      sticky: [],
      config: { provider: "p", model: "m", tools: [] },
    };
    await store.save("big", state);
    deepEqual((await store.get("big"))?.state, state);
    await store.save("big", { ...state, messages: [] });
    deepEqual((await store.get("big"))?.state.messages, []);
  } finally {
    store.close();
  }
});

Deno.test("a state with text outside Latin-1 is stored in chunks KV takes (two bytes a character) and read back whole; one too large for a KV write is refused naming the run", async () => {
  const store = await openRunStore(":memory:");
  try {
    // One "€" in 40 000 characters made a 60 000-character chunk 120 000 bytes: `Value too
    // large (max 65536 bytes)`. The odd "a" puts chunk ends inside the emoji's surrogate pairs.
    const state: AgentState = {
      version: 1,
      messages: [
        { role: "user", content: `${"é".repeat(40_000)}€`, timestamp: 1 },
        { role: "user", content: `a${"😀".repeat(100_000)}`, timestamp: 2 },
      ],
      pending: [],
      completed: [],
      running: [],
      sticky: [],
      config: { provider: "p", model: "m", tools: [] },
    };
    await store.save("wide", state);
    deepEqual((await store.get("wide"))?.state, state);
    // More than one atomic write holds: refused naming the run; what was stored stays.
    const huge = {
      ...state,
      messages: [{ role: "user" as const, content: "x".repeat(900_000), timestamp: 3 }],
    };
    await rejects(store.save("wide", huge), {
      message: `Cannot save run wide: its state (${JSON.stringify(huge).length} characters) is ` +
        "more than one Deno KV write holds (Total mutation size too large (max 819200 bytes))",
    });
    deepEqual((await store.get("wide"))?.state, state);
  } finally {
    store.close();
  }
});

Deno.test("a run id is a KV key part, never a path: odd characters are stored as they are, and an id longer than a key holds is refused naming it", async () => {
  const store = await openRunStore(":memory:");
  try {
    const state: AgentState = {
      version: 1,
      messages: [],
      pending: [{ toolCallId: "c1", toolName: "t", args: {}, reason: "r", argsHash: "h" }],
      completed: [],
      running: [],
      sticky: [],
      config: { provider: "p", model: "m", tools: [] },
    };
    const odd = ["../../etc/passwd", "a\0b", "head", "__proto__", "😀", "r1/state/0"];
    for (const id of odd) await store.save(id, state);
    deepEqual((await store.list()).map((run) => run.id).sort(), [...odd].sort());
    for (const id of odd) equal((await store.get(id))?.id, id);
    const long = "k".repeat(3000); // Deno KV: "Key too large for read (max 2049 bytes)"
    const refused = (action: string) =>
      `Cannot ${action} run ${"k".repeat(40)}…: its id is 3000 bytes in UTF-8, more than 1024`;
    await rejects(store.save(long, state), { message: refused("save") });
    await rejects(store.get(long), { message: refused("read") });
    await rejects(store.decide(long, []), { message: refused("decide") });
    await rejects(store.claim(long, "w"), { message: refused("claim") });
  } finally {
    store.close();
  }
});

Deno.test("decisions that do not fit (hash mismatch) send the run back to pending; nothing runs", async () => {
  const dir = tempDir();
  const log = `${dir}/log`;
  const store = await openRunStore(":memory:");
  try {
    await startRun(store, "r", durableOptions(log, deployScript()), "go");
    await store.decide("r", [{ toolCallId: "c2", approve: true, argsHash: "f".repeat(64) }]);
    await rejects(
      resumeStoredRun(store, "r", "w1", durableOptions(log, [[text("x")]])),
      /Cannot resume: the approval of call c2 \(deploy\) is for arguments with hash ffffffffffff…/,
    );
    const run = await store.get("r");
    equal(run?.status, "pending");
    equal(run?.decisions, undefined);
    deepEqual(executions(log), ["lookup a"]);
  } finally {
    store.close();
  }
});

Deno.test("decide queues the run with kv.enqueue: a listener with polling off receives it", async () => {
  const dir = tempDir();
  const store = await openRunStore(`${dir}/runs.sqlite`);
  const controller = new AbortController();
  const received: string[] = [];
  let got!: () => void;
  const arrived = new Promise<void>((resolve) => (got = resolve));
  const listening = store.listen((id) => {
    received.push(id);
    got();
  }, { signal: controller.signal, pollMs: 0 });
  try {
    await startRun(store, "queued", durableOptions(`${dir}/log`, deployScript()), "go");
    await store.decide("queued", [{ toolCallId: "c2", approve: false }]);
    // Bounded, so a lost message fails the test instead of hanging it.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([arrived, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
    clearTimeout(timer);
    deepEqual(received, ["queued"]);
  } finally {
    controller.abort();
    await listening;
    store.close();
  }
});

Deno.test("openRunStore: a store the host may not use is an error naming the flags it lacks, never a prompt on a terminal", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-store-grants-" }));
  try {
    const { prompt, output } = await onTerminal(
      `import { openRunStore } from "@tack/agent";
for (const path of [${
        JSON.stringify(`${dir}/runs.sqlite`)
      }, "http://127.0.0.1:9/kv", "https://kv.example.com/db"]) {
  await openRunStore(path).then(() => console.log("opened"), (error) => console.log(error.message));
}
const store = await openRunStore(${JSON.stringify(`${dir}/read.sqlite`)}).catch((e) => e.message);
console.log(typeof store === "string" ? store : "opened");
`,
      [
        `--config=${CONFIG}`,
        "--cached-only",
        `--allow-read=${ROOT},${dir}/read.sqlite`,
        "--allow-net=kv.example.com:443", // the scheme's port, as Deno connects
      ],
    );
    equal(prompt, undefined, prompt);
    const lines = output.trim().split(/\r?\n/);
    deepEqual(lines, [
      `Cannot open run store "${dir}/runs.sqlite": this process may not use it; add --allow-read=${dir}/runs.sqlite --allow-write=${dir}/runs.sqlite to the host's flags`,
      `Cannot open run store "http://127.0.0.1:9/kv": this process may not use it; add --allow-net=127.0.0.1:9 --allow-env=DENO_KV_ACCESS_TOKEN to the host's flags`,
      `Cannot open run store "https://kv.example.com/db": this process may not use it; add --allow-env=DENO_KV_ACCESS_TOKEN to the host's flags`,
      `Cannot open run store "${dir}/read.sqlite": this process may not use it; add --allow-write=${dir}/read.sqlite to the host's flags`,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a worker that cannot resume a decided run (its tools are missing) leaves it, decisions and all, to one that can once the lease lapses", async () => {
  const dir = tempDir();
  const log = `${dir}/log`;
  const store = await openRunStore(`${dir}/runs.sqlite`, { leaseMs: 200 });
  try {
    await startRun(store, "r", durableOptions(log, deployScript()), "ship it");
    const [pending] = (await store.get("r"))!.state.pending;
    await store.decide("r", [approveCall(pending)]);
    await rejects(
      resumeStoredRun(store, "r", "w1", { model: scriptedModel([]) }),
      /Cannot resume agent: the state's tools .* are missing/,
    );
    const left = await store.get("r");
    equal(left?.status, "running");
    deepEqual(left?.decisions?.length, 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const agent = await resumeStoredRun(store, "r", "w2", durableOptions(log, [[text("done")]]));
    equal(agent?.messages.at(-1)?.role, "assistant");
    deepEqual(executions(log), ["lookup a", "deploy prod"]);
    equal((await store.get("r"))?.status, "done");
  } finally {
    store.close();
  }
});

Deno.test("a state JSON cannot hold (a BigInt in a result's details) stops the run with that error; the lease timer never throws out of its callback", async () => {
  const store = await openRunStore(":memory:", { leaseMs: 150 });
  const ran: string[] = [];
  const tools = [
    defineTool({
      name: "size",
      description: "A size as a BigInt",
      parameters: Type.Object({}),
      execute: () => ({ content: [{ type: "text", text: "12" }], details: { size: 12n } }),
    }),
    defineTool({
      name: "slow",
      description: "Waits past the lease's third",
      parameters: Type.Object({}),
      execute: async () => {
        ran.push("slow");
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { content: [{ type: "text", text: "done" }] };
      },
    }),
  ];
  const model = scriptedModel([
    [toolCall("size", {}, "c1")],
    [toolCall("slow", {}, "c2")],
    [text("ok")],
  ]);
  try {
    await rejects(
      startRun(store, "r", { model, tools }, "go"),
      { name: "TypeError", message: "Do not know how to serialize a BigInt" },
    );
    // Wait past a few of the timer's ticks: an error thrown there would fail this test.
    await new Promise((resolve) => setTimeout(resolve, 200));
    deepEqual(ran, []); // the run stopped at the first state it could not save
  } finally {
    store.close();
  }
});
