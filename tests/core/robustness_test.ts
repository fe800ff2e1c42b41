// What a buggy tool, hook, schema or listener can do: at worst, an error result.
import {
  type AgentTool,
  type AssistantMessage,
  AssistantMessageStream,
  createAgent,
  definePlugin,
  defineTool,
  emptyUsage,
  type Message,
  type Model,
  runLoop,
  scriptedModel,
  text,
  toolCall,
  ToolError,
  type ToolResult,
} from "@tack/agent";
import { Type } from "typebox";
import { deepEqual, equal, ok, rejects, throws } from "node:assert/strict";
import { deferred, recordEvents, resultsOf, textOf } from "../support/agent_harness.ts";

function stalled(name: string, aborted: boolean[], timeoutMs?: number) {
  return defineTool({
    name,
    description: "",
    parameters: Type.Object({}),
    timeoutMs,
    execute: (_p, { signal }) =>
      new Promise<never>((_r, reject) =>
        signal.addEventListener("abort", () => (aborted.push(true), reject(signal.reason)))
      ),
  });
}

Deno.test("a malformed result block is an error result; the batch and the run go on", async () => {
  const aborted: boolean[] = [];
  const bad = defineTool({
    name: "bad",
    description: "",
    parameters: Type.Object({}),
    // A realistic bug: `text: out.stdout` where stdout is undefined.
    execute: () => ({ content: [{ type: "text" }] } as unknown as ToolResult),
  });
  const agent = createAgent({
    model: scriptedModel([[toolCall("bad", {}, "b"), toolCall("stall", {}, "s")], [text("ok")]]),
    tools: [bad, stalled("stall", aborted)],
    toolTimeoutMs: 30,
  });
  const results = resultsOf(await agent.prompt("go"));
  deepEqual(results.map((r) => [r.toolCallId, textOf(r)]), [
    ["b", "Tool bad returned an invalid result: content[0].text must be a string"],
    ["s", "Tool stall timed out after 30 ms and was stopped"],
  ]);
  deepEqual(aborted, [true]);
  equal(agent.messages.at(-1)?.role, "assistant");
});

Deno.test("a ToolError's content is checked as a result's: malformed, it is left out, and the error's message kept", async () => {
  const thrower = (name: string, content: unknown[]) =>
    defineTool({
      name,
      description: "",
      parameters: Type.Object({}),
      execute: () => {
        throw new ToolError("it broke", { content: content as ToolResult["content"] });
      },
    });
  const agent = createAgent({
    model: scriptedModel([[toolCall("forged", {}, "f"), toolCall("fine", {}, "g")], [text("ok")]]),
    tools: [
      thrower("forged", [{ type: "toolCall", id: "x", name: "rm", arguments: {} }]),
      thrower("fine", [{ type: "text", text: "what went wrong, in detail" }]),
    ],
  });
  const results = resultsOf(await agent.prompt("go"));
  // Before: the forged block went into the transcript (and the next model request) as it was.
  deepEqual(results.map((r) => [r.isError, r.content]), [
    [true, [{
      type: "text",
      text: "it broke (its error content was left out: content[0] must be a text or image block)",
    }]],
    [true, [{ type: "text", text: "what went wrong, in detail" }]],
  ]);
});

Deno.test("an afterToolCall override with invalid content is an error result", async () => {
  const echo = defineTool({
    name: "echo",
    description: "",
    parameters: Type.Object({}),
    execute: () => ({ content: [] }),
  });
  const broken = definePlugin({
    name: "broken",
    afterToolCall: () => ({ content: [null as never] }),
  });
  const agent = createAgent({
    model: scriptedModel([[toolCall("echo")], [text("ok")]]),
    tools: [echo],
    plugins: [broken],
  });
  const [result] = resultsOf(await agent.prompt("go"));
  equal(
    textOf(result),
    "Tool echo: an afterToolCall hook returned an invalid result: content[0] must be a text or image block",
  );
});

Deno.test("an afterToolCall override whose isError or terminate is not a boolean is an error result", async () => {
  // Found by a review: { isError: "false" } reached the result message as a string (truthy).
  const echo = defineTool({
    name: "echo",
    description: "",
    parameters: Type.Object({}),
    execute: () => ({ content: [{ type: "text", text: "ran" }] }),
  });
  for (
    const [override, why] of [
      [{ isError: "false" }, 'isError must be a boolean, got "false"'],
      [{ terminate: 1 }, "terminate must be a boolean, got number"],
    ] as const
  ) {
    const agent = createAgent({
      model: scriptedModel([[toolCall("echo")], [text("ok")]]),
      tools: [echo],
      plugins: [definePlugin({ name: "odd", afterToolCall: () => override as never })],
    });
    const [result] = resultsOf(await agent.prompt("go"));
    equal(result.isError, true);
    equal(textOf(result), `Tool echo: an afterToolCall hook returned an invalid result: ${why}`);
  }
});

function hookThatNeverAnswers(stage: "beforeToolCall" | "verifyToolCall" | "afterToolCall") {
  return definePlugin({ name: "stuck", [stage]: () => new Promise(() => {}) });
}

Deno.test("a hook that never answers is bounded by the call's timeout", async () => {
  const echo = defineTool({
    name: "echo",
    description: "",
    parameters: Type.Object({}),
    execute: () => ({ content: [{ type: "text", text: "ran" }] }),
  });
  const expected = {
    beforeToolCall: "Tool echo was not run: its beforeToolCall hooks timed out after 20 ms",
    verifyToolCall: "Tool echo was not run: its verifyToolCall hooks timed out after 20 ms",
    afterToolCall:
      "Tool echo: its afterToolCall hooks timed out after 20 ms; the result was withheld",
  };
  for (const stage of ["beforeToolCall", "verifyToolCall", "afterToolCall"] as const) {
    const agent = createAgent({
      model: scriptedModel([[toolCall("echo")], [text("ok")]]),
      tools: [echo],
      plugins: [hookThatNeverAnswers(stage)],
      toolTimeoutMs: 20,
    });
    const [result] = resultsOf(await agent.prompt("go"));
    equal(textOf(result), expected[stage]);
    equal(result.isError, true);
  }
});

Deno.test("hookTimeoutMs: Infinity lets a hook wait (for a person), and abort still ends the wait", async () => {
  const echo = defineTool({
    name: "echo",
    description: "",
    parameters: Type.Object({}),
    execute: () => ({ content: [] }),
  });
  const asking = deferred();
  const agent = createAgent({
    model: scriptedModel([[toolCall("echo"), toolCall("echo")], [text("never")]]),
    tools: [echo],
    plugins: [
      definePlugin({
        name: "asks",
        beforeToolCall: () => (asking.resolve(), new Promise(() => {})),
      }),
    ],
    toolTimeoutMs: 5,
    hookTimeoutMs: Infinity,
  });
  const running = agent.prompt("go");
  await asking.promise;
  await new Promise((r) => setTimeout(r, 30)); // well past toolTimeoutMs: still waiting
  equal(agent.isRunning, true);
  agent.abort();
  const results = resultsOf(await running);
  equal(results.length, 2);
  for (const r of results) {
    equal(textOf(r), "Tool echo was not run: the run was aborted before it started");
  }
});

Deno.test("a schema that cannot compile is a load error, not a rejected prompt", () => {
  const tool: AgentTool = {
    name: "bad_schema",
    description: "",
    parameters: { type: "object", properties: { p: { type: "string", pattern: "(" } } },
    execute: () => ({ content: [] }),
  };
  throws(() => createAgent({ model: scriptedModel([]), tools: [tool] }), {
    message:
      'Cannot create agent: tool "bad_schema" (from createAgent({ tools })) has an invalid parameter schema: ' +
      'pattern "(" is not valid RE2 syntax, which schemas are checked with (no backreferences or lookaround): missing closing ): `(`',
  });
});

Deno.test("runLoop without an agent checks no schema up front: a call of a tool whose schema does not compile gets an error result saying so", async () => {
  // Only registration (createAgent, setTools, loadPlugin) and prepareTurn check schemas;
  // defineTool does not, so the core's lazy compile is what stands between such a tool and
  // its execute: it never runs.
  let ran = false;
  const find = defineTool({
    name: "find",
    description: "Finds",
    parameters: Type.Object({ text: Type.String({ pattern: "(" }) }),
    execute: () => (ran = true, { content: [] }),
  });
  const model = scriptedModel([[toolCall("find", { text: "a" }, "c1")], [text("ok")]]);
  const state = { systemPrompt: "", messages: [] as Message[], tools: [find] };
  const added = await runLoop({
    state,
    prompts: [{ role: "user", content: "hi", timestamp: 0 }],
    config: { model },
    signal: new AbortController().signal,
    emit: () => {},
  });
  equal(ran, false);
  const results = resultsOf(added);
  deepEqual(results.map((r) => r.isError), [true]);
  equal(
    textOf(results[0]),
    'Cannot validate arguments for tool "find": its parameter schema is invalid (pattern "(" ' +
      "is not valid RE2 syntax, which schemas are checked with (no backreferences or lookaround): " +
      "missing closing ): `(`)",
  );
});

Deno.test("an async listener that rejects is reported; the run and the process go on", async () => {
  const agent = createAgent({ model: scriptedModel([[text("ok")]]) });
  agent.subscribe(async () => {
    await Promise.resolve();
    throw new Error("log sink down");
  });
  const reported: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => reported.push(args[0]);
  try {
    const added = await agent.prompt("hi");
    await new Promise((r) => setTimeout(r, 0));
    equal(added.length, 2);
  } finally {
    console.error = original;
  }
  ok(reported.length > 0);
});

Deno.test("transformContext that throws ends the turn with an error message", async () => {
  const agent = createAgent({
    model: scriptedModel([[text("never")]]),
    transformContext: () => {
      throw new Error("pruner bug");
    },
  });
  const events = recordEvents(agent);
  const added = await agent.prompt("hi");
  const last = added.at(-1);
  // Named as the hook it is, not as the model's failure; the model is not called.
  equal(last?.role === "assistant" && last.errorMessage, "transformContext failed: pruner bug");
  equal(events.at(-1)?.type, "agent_end");
});

Deno.test("a model whose final message is malformed ends the turn with an error; prompt() resolves and agent_end is sent", async () => {
  for (
    const [bad, why] of [
      [{ role: "assistant", content: 7 }, "its content is not an array)"],
      [{ role: "user", content: [] }, 'its role is "user", not "assistant")'],
      [{ role: "assistant", content: [null] }, "content[0] has no type)"],
      [
        { role: "assistant", content: [{ type: "toolCall", id: 1, name: "x", arguments: {} }] },
        "content[0] is a tool call without a string id and name)",
      ],
      [
        { role: "assistant", stopReason: "error", errorMessage: "upstream 503" },
        "its content is not an array): upstream 503",
      ],
    ] as const
  ) {
    const model: Model = {
      provider: "custom",
      id: "custom",
      stream: () => {
        const stream = new AssistantMessageStream();
        stream.push({ type: "done", reason: "stop", message: bad as unknown as AssistantMessage });
        return stream;
      },
    };
    const agent = createAgent({ model });
    const events = recordEvents(agent);
    const added = await agent.prompt("hi");
    const last = added.at(-1);
    equal(
      last?.role === "assistant" && last.errorMessage,
      `Model stream failed: its final message is malformed (${why}`,
    );
    equal(events.at(-1)?.type, "agent_end");
  }
});

Deno.test("a call that starts after others in its batch still gets its full timeout", async () => {
  const slowStart = (name: string) =>
    defineTool({
      name,
      description: "",
      parameters: Type.Object({}),
      execute: async () => {
        const until = performance.now() + 150; // synchronous setup, longer than the timeout
        while (performance.now() < until) { /* busy */ }
        await new Promise((r) => setTimeout(r, 10));
        return { content: [{ type: "text", text: `${name} ok` }] };
      },
    });
  const agent = createAgent({
    model: scriptedModel([[toolCall("a"), toolCall("b")], [text("ok")]]),
    tools: [slowStart("a"), slowStart("b")],
    // b joins the batch's timer group only after a's 150 ms of setup, when the group's
    // 120 ms are already up: timed from the group's start, b would be stopped at once.
    toolTimeoutMs: 120,
  });
  const results = resultsOf(await agent.prompt("go"));
  deepEqual(results.map(textOf), ["a ok", "b ok"]);
});

Deno.test("a plugin tool that is a class instance keeps its methods", async () => {
  class Counter implements AgentTool {
    readonly name = "count";
    readonly description = "Counts";
    readonly parameters = { type: "object" };
    #n = 0;
    execute(): ToolResult {
      return { content: [{ type: "text", text: String(++this.#n) }] };
    }
  }
  const agent = createAgent({
    model: scriptedModel([[toolCall("count"), toolCall("count")], [text("ok")]]),
    plugins: [definePlugin({ name: "counter", tools: [new Counter()] })],
    toolExecution: "sequential",
  });
  const results = resultsOf(await agent.prompt("go"));
  deepEqual(results.map(textOf), ["1", "2"]);
  equal(agent.tools[0].plugin, "counter");
});

Deno.test("prompt() while a run is in progress rejects (it does not throw synchronously)", async () => {
  const agent = createAgent({ model: scriptedModel([{ content: [text("slow")], delayMs: 10 }]) });
  const running = agent.prompt("one");
  const second = agent.prompt("two");
  ok(second instanceof Promise);
  await rejects(second, {
    message: "Cannot prompt: a run is in progress; use steer() or followUp() to queue a message",
  });
  await running;
});

Deno.test("a stalled afterToolCall withholds a successful result but leaves an error standing", async () => {
  const failing = defineTool({
    name: "failing",
    description: "",
    parameters: Type.Object({}),
    execute: () => {
      throw new Error("disk full");
    },
  });
  const agent = createAgent({
    model: scriptedModel([[toolCall("failing")], [text("ok")]]),
    tools: [failing],
    plugins: [hookThatNeverAnswers("afterToolCall")],
    toolTimeoutMs: 20,
  });
  const [result] = resultsOf(await agent.prompt("go"));
  equal(textOf(result), "disk full");
  equal(result.isError, true);
});

for (const toolExecution of ["parallel", "sequential"] as const) {
  Deno.test(`an event sink that throws rejects runLoop with its error (${toolExecution}, async tool); nothing is left uncaught`, async () => {
    const slow = defineTool({
      name: "slow",
      description: "Answers after a timer",
      parameters: Type.Object({}),
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return { content: [{ type: "text", text: "x" }] };
      },
    });
    const state = { systemPrompt: "", messages: [] as Message[], tools: [slow] };
    await rejects(
      runLoop({
        state,
        prompts: [{ role: "user", content: "go", timestamp: 0 }],
        config: {
          model: scriptedModel([
            [toolCall("slow", {}, "1"), toolCall("slow", {}, "2")],
            [text("ok")],
          ]),
          toolExecution,
        },
        signal: new AbortController().signal,
        emit: (event) => {
          if (event.type === "tool_execution_end") throw new Error("listener bug");
        },
      }),
      { message: "listener bug" },
    );
  });
}

Deno.test("a message with 200,000 tool calls gets a result each; the prompt does not throw", async () => {
  // Spreading the batch's results into a push overflowed the stack past ~130,000 calls.
  const calls = Array.from({ length: 200_000 }, (_, i) => toolCall("missing", {}, `c${i}`));
  const agent = createAgent({ model: scriptedModel([{ content: calls }, [text("done")]]) });
  const messages = await agent.prompt("go");
  equal(messages.filter((m) => m.role === "toolResult").length, 200_000);
  deepEqual((messages.at(-1) as AssistantMessage).content, [text("done")]);
});

Deno.test("tool calls that came with one id, or none, get unique ids: in the transcript, the events and the results", async () => {
  const echo = defineTool({
    name: "echo",
    description: "",
    parameters: Type.Object({ n: Type.Number() }),
    execute: ({ n }) => ({ content: [{ type: "text", text: `n=${n}` }] }),
  });
  const call = (id: string, n: number) => ({
    type: "toolCall" as const,
    id,
    name: "echo",
    arguments: { n },
  });
  // Small messages are checked pair by pair, long ones (over 32 blocks) through a Set.
  for (const padding of [0, 40]) {
    let turn = 0;
    const model: Model = {
      provider: "custom",
      id: "custom",
      stream: () => {
        const stream = new AssistantMessageStream();
        const content = turn++ === 0
          // "a_2" is the model's own: the second "a" must not take it.
          ? [
            call("a", 1),
            call("a", 2),
            call("", 3),
            call("a_2", 4),
            call("", 5),
            call("a", 6),
            ...Array.from({ length: padding }, () => text("")),
          ]
          : [text("done")];
        const reason = content.length > 1 ? "toolUse" : "stop";
        const message: AssistantMessage = {
          role: "assistant",
          content,
          stopReason: reason,
          usage: emptyUsage(),
          provider: "custom",
          model: "custom",
          timestamp: Date.now(),
        };
        stream.push({ type: "done", reason, message });
        return stream;
      },
    };
    const agent = createAgent({ model, tools: [echo] });
    const events = recordEvents(agent);
    await agent.prompt("go");
    const ids = ["a", "a_3", "call_1", "a_2", "call_2", "a_4"];
    const asked = agent.messages[1];
    deepEqual(
      asked.role === "assistant" &&
        asked.content.flatMap((b) => b.type === "toolCall" ? [b.id] : []),
      ids,
    );
    deepEqual(
      resultsOf(agent.messages).map((r) => [r.toolCallId, textOf(r)]),
      ids.map((id, i) => [id, `n=${i + 1}`]),
    );
    const started = events.flatMap((e) => e.type === "tool_execution_start" ? [e.toolCallId] : []);
    deepEqual(started, ids);
    const ended = events.flatMap((e) => e.type === "tool_execution_end" ? [e.toolCallId] : []);
    deepEqual(ended.sort(), [...ids].sort());
    const end = events.find((e) => e.type === "message_end" && e.message.role === "assistant");
    equal(end?.type === "message_end" && end.message, asked);
  }
});

Deno.test("30,000 calls that came with one id get a, a_2, … a_30000: the ids are found in linear time (the first version took minutes)", async () => {
  const count = 30_000;
  const calls = Array.from({ length: count }, () => toolCall("echo", {}, "a"));
  const agent = createAgent({
    model: scriptedModel([calls, [text("done")]]),
    tools: [defineTool({
      name: "echo",
      description: "",
      parameters: Type.Object({}),
      execute: () => ({ content: [{ type: "text", text: "ok" }] }),
    })],
  });
  await agent.prompt("go");
  const ids = resultsOf(agent.messages).map((result) => result.toolCallId);
  equal(ids.length, count);
  equal(new Set(ids).size, count);
  deepEqual(ids.slice(0, 3), ["a", "a_2", "a_3"]);
  equal(ids.at(-1), `a_${count}`);
});

Deno.test("a tool result whose content getter throws is an error result (sync and async tools); the run goes on", async () => {
  const hostile = () => ({
    get content(): never {
      throw new Error("content exploded");
    },
  });
  const tools = [
    defineTool({
      name: "sync_bad",
      description: "",
      parameters: Type.Object({}),
      execute: () => hostile() as unknown as ToolResult,
    }),
    defineTool({
      name: "async_bad",
      description: "",
      parameters: Type.Object({}),
      execute: () => Promise.resolve(hostile() as unknown as ToolResult),
    }),
  ];
  const agent = createAgent({
    model: scriptedModel([
      [toolCall("sync_bad", {}), toolCall("async_bad", {})],
      [text("done")],
    ]),
    tools,
    toolTimeoutMs: 60_000,
  });
  await agent.prompt("go");
  deepEqual(
    resultsOf(agent.messages).map((r) => [r.toolName, r.isError, textOf(r)]),
    [["sync_bad", true, "content exploded"], ["async_bad", true, "content exploded"]],
  );
  const last = agent.messages.at(-1);
  equal(last?.role === "assistant" && textOf(last), "done");
});

Deno.test("a failed or aborted model message keeps its text but not the tool calls it began (they never run)", async () => {
  // Found by a review: the calls stayed unanswered, and the next request held calls without
  // results (invariant 1), which a provider refuses.
  const quiet = defineTool({
    name: "t",
    description: "",
    parameters: Type.Object({}),
    execute: () => ({ content: [] }),
  });
  for (const stopReason of ["aborted", "error"] as const) {
    const model = scriptedModel([
      { content: [text("let me check"), toolCall("t", {}, "c1")], stopReason, errorMessage: "cut" },
      [text("ok")],
    ]);
    const agent = createAgent({ model, tools: [quiet] });
    const ended: unknown[] = [];
    agent.subscribe((event) => {
      if (event.type === "message_end" && event.message.role === "assistant") {
        ended.push(event.message.content);
      }
    });
    await agent.prompt("first");
    await agent.prompt("second");
    const failed = agent.messages[1] as AssistantMessage;
    equal(failed.stopReason, stopReason);
    deepEqual(failed.content, [{ type: "text", text: "let me check" }]);
    deepEqual(ended[0], failed.content);
    deepEqual(model.requests[1].messages.map((m) => m.role), ["user", "assistant", "user"]);
  }
});
