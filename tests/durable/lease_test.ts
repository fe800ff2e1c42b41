// Leases of the run store with real worker processes on one SQLite file: a worker busy in
// one long call keeps its run (its lease is renewed), and a worker that lost its run (its
// process stopped past the lease while another worker took the run) saves nothing more and
// runs no other tool.
import {
  approveCall,
  defineTool,
  kvRunStore,
  openRunStore,
  resumeStoredRun,
  type RunStore,
  scriptedModel,
  startRun,
  text,
  toolCall,
} from "@tack/agent";
import { deepEqual, equal, match, rejects } from "node:assert/strict";
import { Type } from "typebox";
import { leaseOptions } from "../support/durable_lease_main.ts";
import { durableOptions, executions } from "../support/durable_fixture.ts";

const WORKER = new URL("../support/durable_lease_main.ts", import.meta.url).pathname;

function spawnWorker(args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", WORKER, ...args],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = child.output();
  return {
    child,
    done: async () => {
      const { code, stdout, stderr } = await output;
      const decoder = new TextDecoder();
      return { code, stdout: decoder.decode(stdout).trim(), stderr: decoder.decode(stderr) };
    },
  };
}

/** The log's lines as [line, pid]. */
function logLines(log: string): [string, number][] {
  try {
    return Deno.readTextFileSync(log).split("\n").filter(Boolean).map((line) => {
      const at = line.lastIndexOf(" ");
      return [line.slice(0, at), Number(line.slice(at + 1))];
    });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, ready: () => boolean, ms = 20_000) {
  const end = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

Deno.test("a worker busy in one call three times longer than its lease keeps the run: a polling worker never takes it", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "tack_lease_" });
  const kvPath = `${dir}/runs.sqlite`;
  const log = `${dir}/log`;
  const starter = spawnWorker(["start", kvPath, "r", log, "600", "chain", "1800"]);
  const store = await openRunStore(kvPath, { leaseMs: 600 });
  try {
    let exited = false;
    const outcome = starter.done().finally(() => (exited = true));
    let tries = 0;
    while (!exited) {
      const taken = await resumeStoredRun(store, "r", "thief", leaseOptions(log, "chain"));
      equal(taken, undefined, "the thief resumed the run while its worker was busy");
      tries++;
      await sleep(50);
    }
    const { code, stdout, stderr } = await outcome;
    equal(code, 0, stderr);
    equal(stdout, "finished");
    const pid = starter.child.pid;
    deepEqual(logLines(log), [["start a", pid], ["end a", pid], ["start b", pid], ["end b", pid]]);
    const run = await store.get("r");
    equal(run?.status, "done");
    deepEqual(run?.state.messages.at(-1)?.content, [{ type: "text", text: "saw 2 results" }]);
    equal(tries > 20, true, `the thief tried only ${tries} times`);
  } finally {
    store.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a worker stopped past its lease loses the run: after SIGCONT its saves are refused with RunLostError and it runs no other tool", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "tack_lease_" });
  const kvPath = `${dir}/runs.sqlite`;
  const log = `${dir}/log`;
  const starter = spawnWorker(["start", kvPath, "r", log, "600", "chain", "2000"]);
  const pid = starter.child.pid;
  const store = await openRunStore(kvPath, { leaseMs: 600 });
  try {
    await until("the slow call to start", () => logLines(log).length > 0);
    starter.child.kill("SIGSTOP");
    await sleep(1200); // twice the lease: it lapsed
    const agent = await resumeStoredRun(store, "r", "w2", leaseOptions(log, "chain"));
    equal(agent !== undefined, true, "w2 could not claim the run of the stopped worker");
    match(
      JSON.stringify(agent!.messages[2].content),
      /Tool slow was interrupted while it was running/,
    );
    starter.child.kill("SIGCONT");
    const { code, stdout, stderr } = await starter.done();
    equal(code, 0, stderr);
    equal(
      stdout,
      `RunLostError: Cannot save run r: worker starter-${pid} lost it (it is done now)`,
    );
    // The stopped worker ran nothing after its lease was lost; b ran once, in w2.
    const lines = logLines(log);
    deepEqual(lines.filter(([, by]) => by === Deno.pid), [["start b", Deno.pid], [
      "end b",
      Deno.pid,
    ]]);
    deepEqual(
      lines.filter(([, by]) => by === pid).map(([line]) => line).filter((l) => l !== "end a"),
      ["start a"],
    );
    // The store keeps w2's run, not the stopped worker's.
    const run = await store.get("r");
    equal(run?.status, "done");
    deepEqual(run?.state.messages, JSON.parse(JSON.stringify(agent!.messages)));
  } finally {
    store.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a worker whose run was taken during a call runs no later tool: the call's start must have been saved first", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "tack_lease_" });
  const kvPath = `${dir}/runs.sqlite`;
  const ran: string[] = [];
  // Every lease has lapsed at once, so the other handle can claim while the first call runs;
  // each save takes 100 ms more (a remote KV), so the refusal comes after the next call began.
  const kvStore = kvRunStore(await Deno.openKv(kvPath), { leaseMs: -1, closeKv: true });
  const store: RunStore = {
    ...kvStore,
    save: async (...args) => (await sleep(100), await kvStore.save(...args)),
  };
  const other = kvRunStore(await Deno.openKv(kvPath), { leaseMs: -1, closeKv: true });
  const step = (request: { messages: readonly { role: string }[] }) => {
    const done = request.messages.filter((m) => m.role === "toolResult").length;
    return done === 0
      ? [toolCall("take", {}, "c1")]
      : done === 1
      ? [toolCall("side", {}, "c2")]
      : [text("end")];
  };
  const tool = (name: string, body: () => Promise<void>) =>
    defineTool({
      name,
      description: name,
      parameters: Type.Object({}),
      execute: async () => {
        ran.push(name);
        await body();
        return { content: [{ type: "text", text: "ok" }] };
      },
    });
  try {
    const options = {
      model: scriptedModel([step, step, step]),
      tools: [
        tool("take", async () => void equal((await other.claim("r", "w2"))?.claimedBy, "w2")),
        tool("side", async () => {}),
      ],
    };
    await rejects(startRun(store, "r", options, "go", "w1"), {
      name: "RunLostError",
      message: "Cannot save run r: worker w1 lost it (its lease lapsed and worker w2 claimed it)",
    });
    deepEqual(ran, ["take"]);
    equal((await other.get("r"))?.claimedBy, "w2");
  } finally {
    store.close();
    other.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("SIGKILL while a parallel batch runs: the call deferred in it is asked about again on resume, not reported as 'may have completed'", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "tack_lease_" });
  const kvPath = `${dir}/runs.sqlite`;
  const log = `${dir}/log`;
  // The lease is renewed after a second: the worker dies before that, mid-batch.
  const starter = spawnWorker(["start", kvPath, "r", log, "3000", "batch", "10000"]);
  const store = await openRunStore(kvPath, { leaseMs: 3000 });
  try {
    await until("the slow call to start", () => logLines(log).length > 0);
    await sleep(100); // the saves of the batch so far land
    starter.child.kill("SIGKILL");
    await starter.done();
    const crashed = await store.get("r");
    equal(crashed?.status, "running");
    deepEqual(crashed?.state.running, ["c1"]); // the deploy never started executing
    await until("the lease to lapse", () => Date.now() > crashed!.leaseUntil!);
    const agent = await resumeStoredRun(store, "r", "w2", leaseOptions(log, "batch"));
    const [slow] = agent!.state().completed;
    equal(slow.toolCallId, "c1");
    match(JSON.stringify(slow.content), /Tool slow was interrupted while it was running/);
    deepEqual(agent!.pending.map((p) => [p.toolCallId, p.toolName, p.args]), [
      ["c2", "deploy", { target: "prod" }],
    ]);
    const waiting = await store.get("r");
    equal(waiting?.status, "pending");
    await store.decide("r", [approveCall(waiting!.state.pending[0])]);
    const done = await resumeStoredRun(store, "r", "w3", leaseOptions(log, "batch"));
    deepEqual(done!.messages.at(-1)?.content, [{ type: "text", text: "saw 2 results" }]);
    deepEqual(done!.messages.at(-2)?.content, [{ type: "text", text: "deployed prod" }]);
    deepEqual(logLines(log), [["start a", starter.child.pid], ["deploy prod", Deno.pid]]);
  } finally {
    store.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("SIGKILL during the first model call: the prompt was saved, and resuming asks the model again", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "tack_lease_" });
  const kvPath = `${dir}/runs.sqlite`;
  const log = `${dir}/log`;
  // The lease is renewed after a second: the worker dies before that.
  const starter = spawnWorker(["start", kvPath, "r", log, "3000", "answer", "60000"]);
  const store = await openRunStore(kvPath, { leaseMs: 3000 });
  try {
    // The worker is in its first model call (it answers after a minute) once the run is stored.
    for (const end = Date.now() + 20_000; !(await store.get("r")); await sleep(20)) {
      if (Date.now() > end) throw new Error("timed out waiting for the run to be stored");
    }
    await sleep(200);
    starter.child.kill("SIGKILL");
    await starter.done();
    const crashed = await store.get("r");
    equal(crashed?.status, "running");
    deepEqual(crashed?.state.messages.map((m) => [m.role, m.content]), [["user", "go"]]);
    await until("the lease to lapse", () => Date.now() > crashed!.leaseUntil!);
    const agent = await resumeStoredRun(store, "r", "w2", leaseOptions(log, "answer", 0));
    deepEqual(agent?.messages.at(-1)?.content, [{ type: "text", text: "answer to: user" }]);
    const done = await store.get("r");
    equal(done?.status, "done");
    deepEqual(done?.state.messages.map((m) => m.role), ["user", "assistant"]);
  } finally {
    store.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a worker whose resumed run is taken before its approved call starts does not run the call: it is saved as executing first", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "tack_lease_" });
  const kvPath = `${dir}/runs.sqlite`;
  const log = `${dir}/log`;
  // w1's lease lapses at once, and each of its saves takes 300 ms (a remote KV, a pause):
  // w2 claims the run between w1's claim and w1's first save.
  const kvStore = kvRunStore(await Deno.openKv(kvPath), { leaseMs: -1, closeKv: true });
  let claimed!: () => void;
  const w1Claimed = new Promise<void>((resolve) => (claimed = resolve));
  const slow: RunStore = {
    ...kvStore,
    claim: async (...args) => {
      const run = await kvStore.claim(...args);
      claimed();
      return run;
    },
    save: async (...args) => (await sleep(300), await kvStore.save(...args)),
  };
  const other = kvRunStore(await Deno.openKv(kvPath), { closeKv: true });
  // The model reads the transcript: each worker's agent starts from the stored one.
  const step = (request: { messages: readonly { role: string }[] }) =>
    request.messages.some((m) => m.role === "toolResult")
      ? [text("deployed")]
      : [toolCall("deploy", { target: "prod" }, "c1")];
  const options = () => durableOptions(log, [step, step]);
  try {
    await startRun(other, "r", options(), "go");
    const waiting = await other.get("r");
    await other.decide("r", [approveCall(waiting!.state.pending[0])]);
    const first = resumeStoredRun(slow, "r", "w1", options());
    await w1Claimed;
    const second = await resumeStoredRun(other, "r", "w2", options());
    deepEqual(second?.messages.at(-1)?.content, [{ type: "text", text: "deployed" }]);
    await rejects(first, {
      name: "RunLostError",
      message: /^Cannot save run r: worker w1 lost it/,
    });
    deepEqual(executions(log), ["deploy prod"]);
    equal((await other.get("r"))?.status, "done");
  } finally {
    slow.close();
    other.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a worker stopped while its approved call runs: the call was saved as executing, so the worker that takes the run reports it as 'may have completed' and it runs once", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "tack_lease_" });
  const kvPath = `${dir}/runs.sqlite`;
  const log = `${dir}/log`;
  const store = await openRunStore(kvPath, { leaseMs: 600 });
  try {
    await startRun(store, "r", leaseOptions(log, "approve", 2000), "go");
    await store.decide("r", [approveCall((await store.get("r"))!.state.pending[0])]);
    const worker = spawnWorker(["resume", kvPath, "r", log, "600", "approve", "2000"]);
    const pid = worker.child.pid;
    await until("the approved call to start", () => logLines(log).length > 0);
    worker.child.kill("SIGSTOP");
    await sleep(1200); // twice the lease: it lapsed
    const agent = await resumeStoredRun(store, "r", "w2", leaseOptions(log, "approve"));
    match(
      JSON.stringify(agent!.messages[2].content),
      /Tool release was interrupted while it was running/,
    );
    worker.child.kill("SIGCONT");
    const { code, stdout, stderr } = await worker.done();
    equal(code, 0, stderr);
    equal(stdout, `RunLostError: Cannot save run r: worker worker-${pid} lost it (it is done now)`);
    // The call started once, in the stopped worker, and w2 never ran it. After SIGCONT that
    // worker's next save (its lease timer's) was refused and it aborted the run (not prevented:
    // had the call finished first, it would have finished after the takeover).
    deepEqual(logLines(log).filter(([line]) => line.startsWith("start")), [["start r", pid]]);
    deepEqual(logLines(log).filter(([, by]) => by !== pid), []);
    equal((await store.get("r"))?.status, "done");
  } finally {
    store.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
