// Interrupt and resume: a deferred call stops the run after the batch's other calls; a
// person decides later, in this process or another; nothing runs twice.
import {
  type AgentEvent,
  type AgentState,
  approveCall,
  createAgent,
  defineTool,
  type Message,
  rejectCall,
  resumeAgent,
  scriptedModel,
  text,
  toolCall,
  type ToolResultMessage,
} from "@tack/agent";
import { deepEqual, equal, match, rejects } from "node:assert/strict";
import { Type } from "typebox";
import { durableOptions, executions } from "../support/durable_fixture.ts";
import { recordEvents } from "../support/agent_harness.ts";

const results = (messages: readonly Message[]) =>
  messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
const textOf = (m: ToolResultMessage) =>
  m.content.map((c) => c.type === "text" ? c.text : "").join("");

function tempLog(): string {
  return `${Deno.makeTempDirSync({ prefix: "tack_durable_" })}/executions.log`;
}

/** A batch of three: a lookup (runs), a deploy (deferred), a lookup (runs). */
function batchScript() {
  return [
    [
      toolCall("lookup", { key: "a" }, "c1"),
      toolCall("deploy", { target: "prod" }, "c2"),
      toolCall("lookup", { key: "b" }, "c3"),
    ],
    (request: { messages: readonly Message[] }) => [
      text(`saw ${request.messages.filter((m) => m.role === "toolResult").length} results`),
    ],
  ];
}

async function resumeInNewProcess(
  state: AgentState,
  decisions: unknown,
  log: string,
): Promise<{ code: number; out: { messages: Message[]; state: AgentState }; stderr: string }> {
  const dir = Deno.makeTempDirSync({ prefix: "tack_resume_" });
  Deno.writeTextFileSync(`${dir}/state.json`, JSON.stringify(state));
  Deno.writeTextFileSync(`${dir}/decisions.json`, JSON.stringify(decisions));
  const child = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../support/durable_resume_main.ts", import.meta.url).pathname,
      `${dir}/state.json`,
      `${dir}/decisions.json`,
      log,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(child.stdout);
  const stderr = new TextDecoder().decode(child.stderr);
  return { code: child.code, out: stdout ? JSON.parse(stdout) : undefined, stderr };
}

Deno.test("a deferred call stops the run after the batch's other calls; pending says what, who and why", async () => {
  const log = tempLog();
  const agent = createAgent(durableOptions(log, batchScript()));
  const events = recordEvents(agent);
  const added = await agent.prompt("ship it");
  // The two lookups ran; the deploy did not; no result was appended yet (call order is kept).
  deepEqual(executions(log), ["lookup a", "lookup b"]);
  equal(added.at(-1)?.role, "assistant");
  equal(agent.isRunning, false);
  equal(agent.pending.length, 1);
  const [pending] = agent.pending;
  deepEqual(
    { ...pending, argsHash: pending.argsHash.length },
    {
      toolCallId: "c2",
      toolName: "deploy",
      args: { target: "prod" },
      reason: "deploy needs approval: deploy has effect exec",
      deferredBy: "confirm",
      key: "deploy for effects",
      argsHash: 64,
    },
  );
  const deferredEvent = events.find((e) => e.type === "tool_execution_deferred");
  equal(deferredEvent?.type === "tool_execution_deferred" && deferredEvent.deferredBy, "confirm");
  // The state is plain JSON.
  const state = agent.state();
  deepEqual(JSON.parse(JSON.stringify(state)), state);
  deepEqual(state.completed.map((r) => r.toolCallId), ["c1", "c3"]);
  deepEqual(state.config, { provider: "scripted", model: "scripted", tools: ["deploy", "lookup"] });
  await rejects(agent.prompt("more"), {
    message:
      "Cannot prompt: 1 tool call waits for a decision; call resume(decisions) or abort() first",
  });
});

Deno.test("approve in a new process: exactly the approved call runs, finished calls are not re-run, results keep call order", async () => {
  const log = tempLog();
  const agent = createAgent(durableOptions(log, batchScript()));
  await agent.prompt("ship it");
  const state = agent.state();
  const { code, out, stderr } = await resumeInNewProcess(
    state,
    [approveCall(state.pending[0])],
    log,
  );
  equal(code, 0, stderr);
  deepEqual(executions(log), ["lookup a", "lookup b", "deploy prod"]);
  const after = results(out.messages);
  deepEqual(after.map((r) => r.toolCallId), ["c1", "c2", "c3"]);
  deepEqual(after.map(textOf), ["value of a", "deployed prod", "value of b"]);
  const last = out.messages.at(-1);
  equal(
    last?.role === "assistant" && last.content[0].type === "text" && last.content[0].text,
    "saw 3 results",
  );
  deepEqual(out.state.pending, []);
});

Deno.test("reject: the call gets an error result with the person's reason, and the loop goes on", async () => {
  const log = tempLog();
  const agent = createAgent(durableOptions(log, batchScript()));
  await agent.prompt("ship it");
  await agent.resume([rejectCall(agent.pending[0], "not on a Friday")]);
  deepEqual(executions(log), ["lookup a", "lookup b"]);
  const deploy = results(agent.messages).find((r) => r.toolCallId === "c2")!;
  equal(deploy.isError, true);
  equal(textOf(deploy), "Tool deploy was rejected: not on a Friday");
  equal(agent.messages.at(-1)?.role, "assistant");
});

Deno.test("reject and 'always' in a new process: the rejection is the result, the sticky decision is in its state", async () => {
  const log = tempLog();
  const agent = createAgent(durableOptions(log, batchScript()));
  await agent.prompt("ship it");
  const state = agent.state();
  const rejected = await resumeInNewProcess(
    state,
    [rejectCall(state.pending[0], "not on a Friday")],
    log,
  );
  equal(rejected.code, 0, rejected.stderr);
  deepEqual(executions(log), ["lookup a", "lookup b"]);
  const deploy = results(rejected.out.messages).find((r) => r.toolCallId === "c2")!;
  equal(deploy.isError, true);
  equal(textOf(deploy), "Tool deploy was rejected: not on a Friday");
  deepEqual(rejected.out.state.sticky, []);

  const approved = await resumeInNewProcess(state, [approveCall(state.pending[0], "tool")], log);
  equal(approved.code, 0, approved.stderr);
  deepEqual(executions(log), ["lookup a", "lookup b", "deploy prod"]);
  deepEqual(approved.out.state.sticky, [{ toolName: "deploy" }]);
});

Deno.test("an approval for other arguments is refused before anything runs; the call stays pending", async () => {
  const log = tempLog();
  const agent = createAgent(durableOptions(log, batchScript()));
  await agent.prompt("ship it");
  const [pending] = agent.pending;
  await rejects(agent.resume([{ toolCallId: "c2", approve: true, argsHash: "0".repeat(64) }]), {
    message: `Cannot resume: the approval of call c2 (deploy) is for arguments with hash ` +
      `000000000000…, but the pending arguments hash to ${pending.argsHash.slice(0, 12)}…; ` +
      `show the person the pending arguments and ask again`,
  });
  equal(agent.pending.length, 1);
  deepEqual(executions(log), ["lookup a", "lookup b"]);
  // A stored state whose arguments were changed after the person saw them: refused too.
  const state = agent.state();
  const decision = approveCall(state.pending[0]);
  state.pending[0].args = { target: "everything" };
  const { code, stderr } = await resumeInNewProcess(state, [decision], log);
  equal(code, 1);
  match(stderr, /Cannot resume: the approval of call c2 \(deploy\) is for arguments with hash/);
  deepEqual(executions(log), ["lookup a", "lookup b"]);
});

Deno.test("resume refuses missing, unknown and duplicate decisions with clear messages", async () => {
  const log = tempLog();
  const agent = createAgent(durableOptions(log, batchScript()));
  await agent.prompt("ship it");
  await rejects(agent.resume([]), { message: "Cannot resume: no decision for call c2 (deploy)" });
  await rejects(agent.resume([{ toolCallId: "c9", approve: false }]), {
    message: "Cannot resume: call c9 is not waiting for a decision",
  });
  // Two decisions for one call, contradicting each other: refused, nothing runs.
  const [deploy] = agent.pending;
  await rejects(agent.resume([rejectCall(deploy, "NO"), approveCall(deploy)]), {
    message: "Cannot resume: call c2 has two decisions",
  });
  deepEqual(agent.pending.map((p) => p.toolCallId), ["c2"]);
  deepEqual(executions(log), ["lookup a", "lookup b"]);
  const done = createAgent({ model: scriptedModel([[text("hi")]]) });
  await done.prompt("hi");
  await rejects(done.resume(), {
    message: "Cannot resume: no tool call is waiting and the run had finished",
  });
});

Deno.test("sticky: 'always' for the tool covers later calls of it, and travels in the state", async () => {
  const log = tempLog();
  const script = [
    [toolCall("deploy", { target: "staging" }, "c1")],
    [toolCall("deploy", { target: "prod" }, "c2")],
    [text("both deployed")],
  ];
  const agent = createAgent(durableOptions(log, script));
  await agent.prompt("deploy twice");
  await agent.resume([approveCall(agent.pending[0], "tool")]);
  // The second deploy ran without asking.
  deepEqual(executions(log), ["deploy staging", "deploy prod"]);
  deepEqual(agent.pending, []);
  deepEqual(agent.state().sticky, [{ toolName: "deploy" }]);
  // In a rebuilt agent too.
  const state = agent.state();
  const again = await resumeAgent(
    state,
    durableOptions(log, [[toolCall("deploy", { target: "eu" })], [text("ok")]]),
  );
  await again.prompt("once more");
  deepEqual(again.pending, []);
  deepEqual(executions(log).at(-1), "deploy eu");
});

Deno.test("sticky by key covers only that key: another reason still defers", async () => {
  const tool = defineTool({
    name: "sh",
    description: "Runs a command",
    parameters: Type.Object({ command: Type.String() }),
    execute: ({ command }) => ({ content: [{ type: "text", text: `ran ${command}` }] }),
  });
  const agent = createAgent({
    model: scriptedModel([
      [toolCall("sh", { command: "ls  -l" }, "c1")],
      [toolCall("sh", { command: "ls -l" }, "c2")],
      [toolCall("sh", { command: "rm -rf /" }, "c3")],
      [text("done")],
    ]),
    tools: [tool],
    beforeToolCall: ({ args }) => ({
      defer: true,
      reason: "commands need approval",
      key: String(args.command).split(/\s+/).join(" "),
    }),
  });
  await agent.prompt("go");
  await agent.resume([approveCall(agent.pending[0], "key")]);
  // "ls -l" normalizes to the approved key and runs; "rm -rf /" is asked about.
  deepEqual(agent.pending.map((p) => [p.toolCallId, p.key]), [["c3", "rm -rf /"]]);
  deepEqual(agent.state().sticky, [{ toolName: "sh", key: "ls -l" }]);
  equal(results(agent.messages).map(textOf).join(), "ran ls  -l,ran ls -l");
});

Deno.test("abort while pending: the deferred call gets an 'aborted' result and the agent takes prompts again", async () => {
  const log = tempLog();
  const agent = createAgent(durableOptions(log, [...batchScript(), [text("fresh")]]));
  await agent.prompt("ship it");
  agent.abort();
  deepEqual(agent.pending, []);
  const after = results(agent.messages);
  deepEqual(after.map((r) => r.toolCallId), ["c1", "c2", "c3"]);
  equal(
    textOf(after[1]),
    "Tool deploy was not run: the run was aborted while the call waited for approval",
  );
  await agent.prompt("next");
  deepEqual(executions(log), ["lookup a", "lookup b"]);
});

Deno.test("abort during the batch: a call deferred in it does not become pending", async () => {
  const ref: { agent?: ReturnType<typeof createAgent> } = {};
  const slow = defineTool({
    name: "slow",
    description: "Aborts the run while it runs",
    parameters: Type.Object({}),
    execute: () => {
      ref.agent!.abort();
      return { content: [{ type: "text", text: "slow done" }] };
    },
  });
  const log = tempLog();
  const options = durableOptions(log, [[
    toolCall("deploy", { target: "x" }, "c1"),
    toolCall("slow", {}, "c2"),
  ]]);
  const agent = createAgent({ ...options, tools: [...options.tools!, slow] });
  ref.agent = agent;
  await agent.prompt("go");
  deepEqual(agent.pending, []);
  const [deploy] = results(agent.messages);
  equal(
    textOf(deploy),
    "Tool deploy was not run: the run was aborted while the call waited for approval",
  );
});

/** A migrate tool during which the agent's state is taken, as a store checkpoints before a crash. */
function checkpointedMigrate(ref: { agent?: ReturnType<typeof createAgent> }, log?: string) {
  const taken: { state?: AgentState } = {};
  const tool = defineTool({
    name: "migrate",
    description: "Runs a migration; the process 'crashes' while it runs",
    parameters: Type.Object({}),
    execute: () => {
      if (log) Deno.writeTextFileSync(log, "migrate\n", { append: true });
      taken.state = ref.agent!.state();
      return { content: [{ type: "text", text: "migrated" }] };
    },
  });
  return { tool, taken };
}

/** A prepareTurn that offers every tool but lookup. */
const hideLookup = ({ tools }: { tools: readonly { name: string }[] }) => ({
  tools: tools.filter((tool) => tool.name !== "lookup") as never,
});

Deno.test("a call executing when the state was taken is reported as 'may have completed' and not re-run", async () => {
  const log = tempLog();
  const ref: { agent?: ReturnType<typeof createAgent> } = {};
  const { tool: crashy, taken } = checkpointedMigrate(ref, log);
  const options = durableOptions(log, [[
    toolCall("lookup", { key: "a" }, "c1"),
    toolCall("migrate", {}, "c2"),
  ], [text("x")]]);
  const tools = [...options.tools!, crashy];
  const agent = createAgent({ ...options, tools, toolExecution: "sequential" });
  ref.agent = agent;
  await agent.prompt("go");
  deepEqual(taken.state!.running, ["c2"]);
  deepEqual(taken.state!.completed.map((r) => r.toolCallId), ["c1"]);
  const restored = await resumeAgent(JSON.parse(JSON.stringify(taken.state)), {
    ...durableOptions(log, [[text("checked")]]),
    tools,
    toolExecution: "sequential",
    decisions: [],
  });
  deepEqual(executions(log), ["lookup a", "migrate"]);
  const [lookup, migrate] = results(restored.messages);
  equal(textOf(lookup), "value of a");
  equal(migrate.isError, true);
  match(
    textOf(migrate),
    /^Tool migrate was interrupted while it was running .*it may have completed\. It was not run again/,
  );
});

Deno.test("a block after a defer wins: the call is blocked, nothing is pending", async () => {
  const log = tempLog();
  const options = durableOptions(log, [[toolCall("deploy", { target: "prod" }, "c1")], [
    text("ok"),
  ]]);
  const agent = createAgent({
    ...options,
    plugins: [
      ...options.plugins!,
      { name: "freeze", beforeToolCall: () => ({ block: true, reason: "deploy freeze" }) },
    ],
  });
  await agent.prompt("go");
  deepEqual(agent.pending, []);
  equal(textOf(results(agent.messages)[0]), "deploy freeze");
});

Deno.test("resumeAgent refuses another model or missing tools, and malformed states", async () => {
  const log = tempLog();
  const agent = createAgent(durableOptions(log, batchScript()));
  await agent.prompt("ship it");
  const state = agent.state();
  await rejects(
    resumeAgent(state, { ...durableOptions(log, []), model: scriptedModel([], { id: "other" }) }),
    {
      message:
        "Cannot resume agent: the state was taken with model scripted/scripted, not scripted/other",
    },
  );
  await rejects(resumeAgent(state, { ...durableOptions(log, []), tools: [] }), {
    message: "Cannot resume agent: the state's tools deploy, lookup are missing",
  });
  const malformed = "Cannot resume agent: the state is not an agent.state() of version 1 " +
    "(messages, pending, completed, running, sticky, config)";
  await rejects(resumeAgent({ version: 2 } as unknown as AgentState, durableOptions(log, [])), {
    name: "TypeError",
    message: malformed,
  });
  for (const turnTools of ["deploy", [1]]) {
    await rejects(
      resumeAgent({ ...state, turnTools } as unknown as AgentState, durableOptions(log, [])),
      { name: "TypeError", message: malformed },
    );
  }
});

Deno.test("sequential batch: the calls after a deferred one wait with it and run after it, in order", async () => {
  const log = tempLog();
  const options = durableOptions(log, [
    [
      toolCall("lookup", { key: "a" }, "c1"),
      toolCall("deploy", { target: "prod" }, "c2"),
      toolCall("lookup", { key: "b" }, "c3"),
    ],
    [text("done")],
  ]);
  const agent = createAgent({ ...options, toolExecution: "sequential" });
  await agent.prompt("go");
  deepEqual(executions(log), ["lookup a"]);
  deepEqual(agent.pending.map((p) => p.toolCallId), ["c2"]);
  deepEqual(agent.state().completed.map((r) => r.toolCallId), ["c1"]);
  await agent.resume([approveCall(agent.pending[0])]);
  deepEqual(executions(log), ["lookup a", "deploy prod", "lookup b"]);
  deepEqual(results(agent.messages).map((r) => r.toolCallId), ["c1", "c2", "c3"]);
});

Deno.test("abort while pending in a sequential batch: the calls that never started say so", async () => {
  const log = tempLog();
  const options = durableOptions(log, [
    [toolCall("deploy", { target: "prod" }, "c1"), toolCall("lookup", { key: "b" }, "c2")],
  ]);
  const agent = createAgent({ ...options, toolExecution: "sequential" });
  await agent.prompt("go");
  agent.abort();
  deepEqual(results(agent.messages).map(textOf), [
    "Tool deploy was not run: the run was aborted while the call waited for approval",
    "Tool lookup was not run: the run was aborted before it started",
  ]);
  deepEqual(executions(log), []);
});

/** The tool and message events of a run, as `<type> <toolCallId>`. */
function callEvents(events: readonly AgentEvent[]): string[] {
  return events.flatMap((event) => {
    if (event.type.startsWith("tool_execution_")) {
      return [
        `${event.type.slice("tool_execution_".length)} ${
          (event as { toolCallId: string }).toolCallId
        }`,
      ];
    }
    if (event.type === "message_end" && event.message.role === "toolResult") {
      return [`message ${event.message.toolCallId}`];
    }
    return [];
  });
}

Deno.test("abort as a sequential batch defers a call: it and the calls after it get results, each with its start and end, in call order", async () => {
  const log = tempLog();
  const options = durableOptions(log, [[
    toolCall("lookup", { key: "a" }, "c1"),
    toolCall("deploy", { target: "prod" }, "c2"),
    toolCall("lookup", { key: "b" }, "c3"),
  ]]);
  const agent = createAgent({ ...options, toolExecution: "sequential" });
  const events = recordEvents(agent);
  agent.subscribe((event) => {
    if (event.type === "tool_execution_deferred") agent.abort();
  });
  await agent.prompt("go");
  deepEqual(agent.pending, []);
  deepEqual(results(agent.messages).map((r) => [r.toolCallId, textOf(r)]), [
    ["c1", "value of a"],
    ["c2", "Tool deploy was not run: the run was aborted while the call waited for approval"],
    ["c3", "Tool lookup was not run: the run was aborted before it started"],
  ]);
  deepEqual(callEvents(events), [
    "start c1",
    "end c1",
    "message c1",
    "start c2",
    "deferred c2",
    "end c2",
    "start c3",
    "end c3",
    "message c2",
    "message c3",
  ]);
  deepEqual(executions(log), ["lookup a"]);
  await agent.prompt("again"); // the transcript is whole: a new prompt is taken
});

Deno.test("abort as a parallel batch defers a call: its end event and its message come in call order", async () => {
  const log = tempLog();
  const options = durableOptions(log, [[
    toolCall("deploy", { target: "prod" }, "c1"),
    toolCall("lookup", { key: "b" }, "c2"),
  ]]);
  const agent = createAgent(options);
  const events = recordEvents(agent);
  agent.subscribe((event) => {
    if (event.type === "tool_execution_deferred") agent.abort();
  });
  await agent.prompt("go");
  deepEqual(callEvents(events), [
    "start c1",
    "deferred c1",
    "start c2",
    "end c2",
    "end c1",
    "message c1",
    "message c2",
  ]);
  deepEqual(results(agent.messages).map(textOf), [
    "Tool deploy was not run: the run was aborted while the call waited for approval",
    "Tool lookup was not run: the run was aborted before it started",
  ]);
});

Deno.test("abort from a listener of a batch's last message: the deferred call does not stay pending", async () => {
  const log = tempLog();
  const agent = createAgent(durableOptions(log, [...batchScript(), [text("fresh")]]));
  agent.subscribe((event) => {
    if (event.type === "message_end" && event.message.role === "toolResult") agent.abort();
  });
  await agent.prompt("ship it");
  deepEqual(agent.pending, []);
  deepEqual(results(agent.messages).map((r) => [r.toolCallId, textOf(r)]), [
    ["c1", "value of a"],
    ["c2", "Tool deploy was not run: the run was aborted while the call waited for approval"],
    ["c3", "value of b"],
  ]);
});

Deno.test("a resumed sequential batch keeps its turn's tools: a call to a tool prepareTurn hid is not found, in this process or another", async () => {
  for (const where of ["same agent", "resumeAgent"]) {
    const log = tempLog();
    const options = {
      ...durableOptions(log, [
        [toolCall("deploy", { target: "prod" }, "c1"), toolCall("lookup", { key: "b" }, "c2")],
        [text("done")],
      ]),
      toolExecution: "sequential" as const,
      prepareTurn: hideLookup, // this turn offers deploy alone
    };
    const first = createAgent(options);
    await first.prompt("go");
    const state = JSON.parse(JSON.stringify(first.state())) as AgentState;
    deepEqual(state.turnTools, ["deploy"], where);
    const agent = where === "same agent"
      ? first
      : await resumeAgent(state, { ...options, messages: undefined });
    await agent.resume([approveCall(agent.pending[0])]);
    deepEqual(executions(log), ["deploy prod"], where);
    deepEqual(results(agent.messages).map(textOf), [
      "deployed prod",
      "Tool lookup not found. Available tools: deploy",
    ], where);
  }
});

Deno.test("a state taken mid-batch keeps its turn's tools: on resume a call to a tool prepareTurn hid is not found", async () => {
  const log = tempLog();
  const ref: { agent?: ReturnType<typeof createAgent> } = {};
  const { tool: crashy, taken } = checkpointedMigrate(ref);
  const options = {
    ...durableOptions(log, [[
      toolCall("migrate", {}, "c1"),
      toolCall("lookup", { key: "b" }, "c2"),
    ]]),
    toolExecution: "sequential" as const,
    prepareTurn: hideLookup, // this turn offers migrate alone
  };
  const tools = [...options.tools!, crashy];
  const agent = createAgent({ ...options, tools });
  ref.agent = agent;
  await agent.prompt("go");
  deepEqual(taken.state!.turnTools?.sort(), ["deploy", "migrate"]);
  const restored = await resumeAgent(JSON.parse(JSON.stringify(taken.state)), {
    ...options,
    model: scriptedModel([[text("checked")]]),
    tools,
    decisions: [],
  });
  deepEqual(executions(log), []);
  deepEqual(results(restored.messages).map((r) => r.toolCallId + " " + textOf(r).slice(0, 40)), [
    "c1 Tool migrate was interrupted while it wa",
    "c2 Tool lookup not found. Available tools: ",
  ]);
});

Deno.test("a state taken while a resumed call executes keeps the batch's earlier results", async () => {
  const log = tempLog();
  const ref: { agent?: ReturnType<typeof createAgent>; snapshot?: AgentState } = {};
  const options = durableOptions(log, batchScript());
  const tools = options.tools!.map((tool) =>
    tool.name !== "deploy" ? tool : {
      ...tool,
      execute: (args: Record<string, unknown>, context: Parameters<typeof tool.execute>[1]) => {
        ref.snapshot = ref.agent!.state();
        return tool.execute(args, context);
      },
    }
  );
  const agent = createAgent({ ...options, tools });
  ref.agent = agent;
  await agent.prompt("ship it");
  await agent.resume([approveCall(agent.pending[0])]);
  deepEqual(ref.snapshot!.completed.map((r) => r.toolCallId), ["c1", "c3"]);
  deepEqual(ref.snapshot!.running, ["c2"]);
});
