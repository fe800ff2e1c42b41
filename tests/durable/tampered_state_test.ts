// A stored state an attacker can write, and a person who clicks twice: one approval runs
// one call, once; a rejected resume leaves no "always" behind.
import { approveCall, createAgent, resumeAgent, scriptedModel, text, toolCall } from "@tack/agent";
import { deepEqual, equal, rejects } from "node:assert/strict";
import { durableOptions, executions, loggingTools } from "../support/durable_fixture.ts";
import { confirm } from "@tack/agent/plugins/confirm";

function tempLog(): string {
  return `${Deno.makeTempDirSync({ prefix: "tack_tampered_" })}/executions.log`;
}

Deno.test("a stored state whose last message repeats a pending call's id is refused: one approval never runs the call twice", async () => {
  const log = tempLog();
  const agent = createAgent(
    durableOptions(log, [[toolCall("deploy", { target: "prod" }, "c1")], [text("done")]]),
  );
  await agent.prompt("ship it");
  const state = JSON.parse(JSON.stringify(agent.state()));
  const last = state.messages.at(-1);
  last.content.push(
    structuredClone(last.content.find((b: { type: string }) => b.type === "toolCall")),
  );
  const options = durableOptions(log, [[text("done")]]);
  await rejects(
    resumeAgent(state, { ...options, decisions: [approveCall(state.pending[0])] }),
    /Cannot resume agent: .*c1/,
  );
  deepEqual(executions(log), []);
});

Deno.test("two resumes at once: exactly one goes on; the other is refused and its 'always' is not kept", async () => {
  for (let round = 0; round < 5; round++) {
    const log = tempLog();
    const agent = createAgent({
      model: scriptedModel([[toolCall("deploy", { target: "prod" }, "c1")], [text("done")]]),
      tools: loggingTools(log),
      plugins: [confirm({ whenNonInteractive: "defer" })],
    });
    await agent.prompt("ship it");
    const [pending] = agent.pending;
    const [once, always] = await Promise.allSettled([
      agent.resume([approveCall(pending)]),
      agent.resume([approveCall(pending, "tool")]),
    ]);
    equal([once, always].filter((r) => r.status === "fulfilled").length, 1);
    const refused = once.status === "rejected" ? once : always as PromiseRejectedResult;
    equal(refused.reason.message, "Cannot resume: another resume or an abort came first");
    deepEqual(executions(log), ["deploy prod"]);
    // Only the resume that went on leaves its decisions behind.
    deepEqual(agent.state().sticky, always.status === "fulfilled" ? [{ toolName: "deploy" }] : []);
  }
});
