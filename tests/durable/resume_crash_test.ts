// A worker that dies right after saving a resumed batch's approved calls as executing: the
// worker that takes the run over goes on with the decisions people gave for the batch's other
// calls, instead of asking them again.
import {
  approveCall,
  kvRunStore,
  rejectCall,
  resumeStoredRun,
  type RunStore,
  startRun,
  text,
  toolCall,
} from "@tack/agent";
import { deepEqual, equal, match } from "node:assert/strict";
import { durableOptions, executions } from "../support/durable_fixture.ts";

Deno.test("a worker that dies right after saving its approved call as executing: the next worker keeps the batch's rejection, reports the call as 'may have completed', and runs nothing", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "tack_resume_crash_" });
  const kvPath = `${dir}/runs.sqlite`;
  const log = `${dir}/log`;
  // w1's lease lapses at once; its process dies once its first save (the executing mark) is in.
  const kvStore = kvRunStore(await Deno.openKv(kvPath), { leaseMs: -1, closeKv: true });
  const dying: RunStore = {
    ...kvStore,
    save: async (...args) => {
      await kvStore.save(...args);
      throw new Error("the process died");
    },
  };
  const other = kvRunStore(await Deno.openKv(kvPath), { closeKv: true });
  const step = (request: { messages: readonly { role: string }[] }) =>
    request.messages.some((m) => m.role === "toolResult") ? [text("end")] : [
      toolCall("deploy", { target: "prod" }, "c1"),
      toolCall("deploy", { target: "staging" }, "c2"),
    ];
  const options = () => durableOptions(log, [step, step]);
  try {
    await startRun(other, "r", options(), "go");
    const [c1, c2] = (await other.get("r"))!.state.pending;
    await other.decide("r", [approveCall(c1), rejectCall(c2, "not staging")]);
    await resumeStoredRun(dying, "r", "w1", options()).catch(() => {});
    deepEqual((await other.get("r"))?.state.running, ["c1"]);
    const agent = await resumeStoredRun(other, "r", "w2", options());
    equal((await other.get("r"))?.status, "done");
    const results = agent!.messages.filter((m) => m.role === "toolResult");
    match(JSON.stringify(results[0].content), /interrupted while it was running/);
    match(JSON.stringify(results[1].content), /not staging/);
    deepEqual(executions(log), []);
  } finally {
    dying.close();
    other.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
