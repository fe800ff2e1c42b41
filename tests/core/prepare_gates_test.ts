import { createAgent, definePlugin, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
import { Type } from "typebox";
import { z } from "zod";
import { deepEqual, equal, match } from "node:assert/strict";
import { echoTool, resultsOf, textOf } from "../support/agent_harness.ts";

const weather = defineTool({
  name: "get_weather",
  description: "Weather for a city",
  parameters: Type.Object({
    city: Type.String(),
    days: Type.Optional(Type.Integer({ minimum: 1 })),
  }),
  execute: ({ city, days }) => ({
    content: [{ type: "text", text: `Sunny in ${city}${days ? ` for ${days} days` : ""}` }],
  }),
});

async function runOne(
  call: ReturnType<typeof toolCall>,
  options: Partial<Parameters<typeof createAgent>[0]> = {},
) {
  const model = scriptedModel([[call], [text("ok")]]);
  const agent = createAgent({ model, tools: [weather], ...options });
  const added = await agent.prompt("go");
  const [result] = resultsOf(added);
  return { result, model, added };
}

Deno.test("gate 1: an unknown tool is an error result that lists the tools that exist", async () => {
  const { result, model } = await runOne(toolCall("banana", {}, "b1"), {
    tools: [weather, echoTool()],
  });
  equal(result.toolCallId, "b1");
  equal(result.toolName, "banana");
  equal(result.isError, true);
  equal(textOf(result), "Tool banana not found. Available tools: get_weather, echo");
  // The model reads that result in its next turn.
  deepEqual(model.requests[1].messages.at(-1), result);
});

Deno.test("gate 1: a call with no name says so, not 'Tool  not found'", async () => {
  const { result } = await runOne(toolCall("", {}, "n1"), { tools: [echoTool()] });
  equal(result.isError, true);
  equal(
    textOf(result),
    'Tool "" not found (the call came with no tool name). Available tools: echo',
  );
});

Deno.test("gate 1: with no tools at all, the text says so", async () => {
  const { result } = await runOne(toolCall("banana"), { tools: [] });
  equal(textOf(result), "Tool banana not found. No tools are available.");
});

Deno.test("gate 2: prepareArguments reshapes raw arguments before validation", async () => {
  const legacy = defineTool({
    name: "legacy",
    description: "Takes a city",
    parameters: Type.Object({ city: Type.String() }),
    prepareArguments: (raw) => ("town" in raw ? { city: raw.town } : raw),
    execute: ({ city }) => ({ content: [{ type: "text", text: city }] }),
  });
  const { result } = await runOne(toolCall("legacy", { town: "Oslo" }), { tools: [legacy] });
  equal(result.isError, false);
  equal(textOf(result), "Oslo");
});

Deno.test("gate 2: a prepareArguments that throws is an error result naming the tool", async () => {
  const broken = defineTool({
    name: "broken",
    description: "",
    parameters: Type.Object({}),
    prepareArguments: () => {
      throw new Error("cannot read town");
    },
    execute: () => ({ content: [] }),
  });
  const { result } = await runOne(toolCall("broken"), { tools: [broken] });
  equal(textOf(result), 'Cannot prepare arguments for tool "broken": cannot read town');
});

Deno.test("gate 3: invalid arguments name the tool, each failing path, the expectation and the input", async () => {
  const { result } = await runOne(toolCall("get_weather", { city: ["Paris"], days: 0, extra: 1 }));
  equal(result.isError, true);
  equal(
    textOf(result),
    'Invalid arguments for tool "get_weather":\n' +
      '  - city: must be string (received ["Paris"])\n' +
      "  - days: must be >= 1 (received 0)\n" +
      'Received arguments: {"city":["Paris"],"days":0,"extra":1}',
  );
});

Deno.test("gate 3: a missing required property says it is required", async () => {
  const { result } = await runOne(toolCall("get_weather", {}));
  equal(
    textOf(result),
    'Invalid arguments for tool "get_weather":\n  - city: is required\nReceived arguments: {}',
  );
});

Deno.test("gate 3: the obvious slips are coerced as the seed does", async () => {
  const { result } = await runOne(toolCall("get_weather", { city: "Paris", days: "3" }));
  equal(result.isError, false);
  equal(textOf(result), "Sunny in Paris for 3 days");
});

Deno.test("gate 4: a block ends the call with the hook's reason and the tool never runs", async () => {
  let ran = false;
  const guarded = defineTool({
    name: "write",
    description: "",
    parameters: Type.Object({}),
    execute: () => {
      ran = true;
      return { content: [] };
    },
  });
  const readOnly = definePlugin({
    name: "read-only",
    beforeToolCall: (
      { tool },
    ) => (tool.name === "write" ? { block: true, reason: "read-only mode" } : undefined),
  });
  const { result } = await runOne(toolCall("write"), { tools: [guarded], plugins: [readOnly] });
  equal(ran, false);
  equal(result.isError, true);
  equal(textOf(result), "read-only mode");
});

Deno.test("gate 4: a block without a reason names the plugin", async () => {
  const silent = definePlugin({ name: "silent", beforeToolCall: () => ({ block: true }) });
  const { result } = await runOne(toolCall("get_weather", { city: "Rome" }), { plugins: [silent] });
  equal(textOf(result), 'Tool get_weather was blocked by plugin "silent"');
});

Deno.test("gate 4: rewritten arguments are validated again before execution", async () => {
  const rewriter = definePlugin({
    name: "rewriter",
    beforeToolCall: ({ args }) => ({ args: { ...args, days: -2 } }),
  });
  const { result } = await runOne(toolCall("get_weather", { city: "Rome" }), {
    plugins: [rewriter],
  });
  equal(result.isError, true);
  equal(
    textOf(result),
    'Invalid arguments for tool "get_weather" (arguments rewritten by plugin "rewriter"):\n' +
      "  - days: must be >= 1 (received -2)\n" +
      'Received arguments: {"city":"Rome","days":-2}',
  );
});

Deno.test("gate 4: valid rewritten arguments are what the tool receives (coerced too)", async () => {
  const rewriter = definePlugin({
    name: "rewriter",
    beforeToolCall: ({ args }) => ({ args: { ...args, city: "Lyon", days: "2" } }),
  });
  const { result, added } = await runOne(toolCall("get_weather", { city: "Rome" }), {
    plugins: [rewriter],
  });
  equal(textOf(result), "Sunny in Lyon for 2 days");
  // The transcript keeps what the model sent.
  const call = added[1].role === "assistant" ? added[1].content[0] : undefined;
  deepEqual(call?.type === "toolCall" && call.arguments, { city: "Rome" });
});

Deno.test("gate 4: hooks see a frozen copy: a change made in place fails closed, naming the plugin; the transcript keeps the model's", async () => {
  const cases: [string, Parameters<typeof definePlugin>[0]][] = [
    ["beforeToolCall", {
      name: "mutator",
      beforeToolCall: ({ args }) => {
        args.days = -2;
        return { args };
      },
    }],
    ["verifyToolCall", {
      name: "mutator",
      verifyToolCall: ({ args }) => {
        args.days = -2;
      },
    }],
  ];
  for (const [stage, plugin] of cases) {
    const { result, added } = await runOne(toolCall("get_weather", { city: "Rome", days: 2 }), {
      plugins: [definePlugin(plugin)],
    });
    equal(result.isError, true);
    equal(
      textOf(result),
      `Tool get_weather was blocked: plugin "mutator" failed in ${stage}: ` +
        "Cannot assign to read only property 'days' of object '#<Object>'",
    );
    const call = added[1].role === "assistant" ? added[1].content[0] : undefined;
    deepEqual(call?.type === "toolCall" && call.arguments, { city: "Rome", days: 2 }, stage);
  }
  // A new object returned is the way to rewrite.
  const { result } = await runOne(toolCall("get_weather", { city: "Rome", days: 2 }), {
    plugins: [
      definePlugin({
        name: "rewriter",
        beforeToolCall: ({ args }) => ({ args: { ...args, days: 3 } }),
      }),
    ],
  });
  equal(textOf(result), "Sunny in Rome for 3 days");
});

Deno.test("gate 4: hooks after a rewrite see it validated and frozen, as the first saw the model's", async () => {
  // Found by a review: the hooks after a rewriter got its raw object: a change in place took
  // effect silently, and a policy saw a JSON string the loop later coerced into what ran.
  const normalizer = definePlugin({
    name: "normalizer",
    beforeToolCall: ({ args }) => ({ args: { city: args.city } }),
  });
  const mutator = definePlugin({
    name: "mutator",
    beforeToolCall: ({ args }) => {
      args.city = "Atlantis";
    },
  });
  const { result: mutated } = await runOne(toolCall("get_weather", { city: "Rome" }), {
    plugins: [normalizer, mutator],
  });
  equal(
    textOf(mutated),
    'Tool get_weather was blocked: plugin "mutator" failed in beforeToolCall: ' +
      "Cannot assign to read only property 'city' of object '#<Object>'",
  );
  const seen: unknown[] = [];
  const shim = definePlugin({
    name: "shim",
    beforeToolCall: ({ args }) => ({
      args: JSON.stringify({ city: `${args.city} North` }) as never,
    }),
  });
  const policy = definePlugin({
    name: "policy",
    beforeToolCall: ({ args }) => {
      seen.push(args);
      return args.city === "Rome North" ? { block: true, reason: "not the north" } : undefined;
    },
  });
  const { result: blocked } = await runOne(toolCall("get_weather", { city: "Rome" }), {
    plugins: [shim, policy],
  });
  deepEqual(seen, [{ city: "Rome North" }]);
  equal(Object.isFrozen(seen[0]), true);
  equal(textOf(blocked), "not the north");
  // A rewrite that does not fit the schema ends the chain: the hooks after it are not asked.
  seen.length = 0;
  const breaker = definePlugin({
    name: "breaker",
    beforeToolCall: () => ({ args: { town: "Rome" } }),
  });
  const { result: refused } = await runOne(toolCall("get_weather", { city: "Rome" }), {
    plugins: [breaker, policy],
  });
  deepEqual(seen, []);
  equal(refused.isError, true);
  match(textOf(refused), /arguments rewritten by plugin "breaker"/);
});

Deno.test("gate 4: a schema that transforms applies once to a rewrite, however many hooks see it", async () => {
  // Found by a review: the chain validated each rewrite and the loop validated it again, so
  // zod's .transform(n => n + 1) ran twice (12, not 11).
  let ran: unknown;
  const counter = defineTool({
    name: "counter",
    description: "",
    parameters: z.object({ n: z.number().transform((n) => n + 1) }),
    execute: ({ n }) => {
      ran = n;
      return { content: [{ type: "text", text: String(n) }] };
    },
  });
  const seen: unknown[] = [];
  const agent = createAgent({
    model: scriptedModel([[toolCall("counter", { n: 1 }, "c1")], [text("ok")]]),
    tools: [counter],
    plugins: [
      definePlugin({ name: "rewriter", beforeToolCall: () => ({ args: { n: 10 } }) }),
      definePlugin({ name: "watcher", beforeToolCall: ({ args }) => void seen.push(args) }),
    ],
  });
  await agent.prompt("go");
  equal(ran, 11);
  deepEqual(seen, [{ n: 11 }]);
});

Deno.test("the tool and afterToolCall work on a copy: the transcript keeps what the model sent", async () => {
  // Found by a review: a tool that changed its params in place rewrote the transcript's call,
  // the next request and tool_execution_start's args.
  const search = defineTool({
    name: "search",
    description: "",
    parameters: Type.Object({ q: Type.String(), tags: Type.Array(Type.String()) }),
    execute: (params) => {
      params.q = params.q.toLowerCase();
      params.tags.push("added");
      return { content: [{ type: "text", text: params.q }] };
    },
  });
  const model = scriptedModel([
    [toolCall("search", { q: "Deno Tack", tags: ["a"] }, "c1")],
    [text("ok")],
  ]);
  const agent = createAgent({
    model,
    tools: [search],
    afterToolCall: ({ args }) => {
      (args as { tags: string[] }).tags.push("after");
      return undefined;
    },
  });
  const started: unknown[] = [];
  agent.subscribe((event) => {
    if (event.type === "tool_execution_start") started.push(event.args);
  });
  await agent.prompt("go");
  const sent = { q: "Deno Tack", tags: ["a"] };
  const call = agent.messages[1].role === "assistant" ? agent.messages[1].content[0] : undefined;
  deepEqual(call?.type === "toolCall" && call.arguments, sent);
  deepEqual(started, [sent]);
  const next = model.requests[1].messages[1];
  deepEqual(
    next.role === "assistant" && next.content[0].type === "toolCall" && next.content[0].arguments,
    sent,
  );
  equal(textOf(resultsOf(agent.messages)[0]), "deno tack");
});

Deno.test("gate 4: arguments that cannot be copied (a function from prepareArguments) are shown to hooks as they are", async () => {
  let seen: unknown;
  const odd = defineTool({
    name: "odd",
    description: "Adds a function to its arguments",
    parameters: Type.Object({ city: Type.String() }),
    prepareArguments: (raw) => ({ ...(raw as object), then: () => {} }),
    execute: () => ({ content: [{ type: "text", text: "ran" }] }),
  });
  const model = scriptedModel([[toolCall("odd", { city: "Rome" })], [text("ok")]]);
  const agent = createAgent({
    model,
    tools: [odd],
    plugins: [definePlugin({ name: "watcher", beforeToolCall: ({ args }) => void (seen = args) })],
  });
  const [result] = resultsOf(await agent.prompt("go"));
  equal(textOf(result), "ran");
  equal(typeof (seen as { then?: unknown }).then, "function");
});

Deno.test("gate 4: hooks that change nothing leave a transforming schema's output as it was validated", async () => {
  let received: unknown;
  const length = defineTool({
    name: "length",
    description: "The length of a text",
    parameters: z.object({ text: z.string().transform((text) => text.length) }),
    execute: (args) => {
      received = args;
      return { content: [{ type: "text", text: String(args.text) }] };
    },
  });
  const model = scriptedModel([[toolCall("length", { text: "hello" })], [text("ok")]]);
  const agent = createAgent({
    model,
    tools: [length],
    plugins: [definePlugin({ name: "watcher", beforeToolCall: () => undefined })],
  });
  const [result] = resultsOf(await agent.prompt("go"));
  // Validated once: a second pass would check 5 against z.string() (and coerce it to "5").
  equal(textOf(result), "5");
  deepEqual(received, { text: 5 });
});

Deno.test("a tool that throws becomes an error result with the error's message", async () => {
  const failing = defineTool({
    name: "failing",
    description: "",
    parameters: Type.Object({}),
    execute: () => Promise.reject(new Error("disk full")),
  });
  const { result } = await runOne(toolCall("failing"), { tools: [failing] });
  equal(result.isError, true);
  equal(textOf(result), "disk full");
});

Deno.test("a tool whose fetch fails: the result says why (the error's cause), not just 'fetch failed'", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close(); // nothing listens there now: the connection is refused
  const fetcher = defineTool({
    name: "fetcher",
    description: "Fetches a closed port",
    parameters: Type.Object({}),
    execute: async () => {
      await fetch(`http://127.0.0.1:${port}/`);
      return { content: [{ type: "text", text: "unreachable" }] };
    },
  });
  const model = scriptedModel([[toolCall("fetcher", {})], [text("ok")]]);
  const [result] = resultsOf(await createAgent({ model, tools: [fetcher] }).prompt("go"));
  equal(result.isError, true);
  match(textOf(result), /^fetch failed \(.*Connection refused.*\)$/);
});

Deno.test("a tool that throws a non-Error or returns garbage still yields one error result", async () => {
  const throwsString = defineTool({
    name: "throws_string",
    description: "",
    parameters: Type.Object({}),
    execute: () => {
      throw "plain string";
    },
  });
  const garbage = defineTool({
    name: "garbage",
    description: "",
    parameters: Type.Object({}),
    // deno-lint-ignore no-explicit-any
    execute: () => "not a result" as any,
  });
  const model = scriptedModel([[toolCall("throws_string"), toolCall("garbage")], [text("ok")]]);
  const agent = createAgent({ model, tools: [throwsString, garbage] });
  const results = resultsOf(await agent.prompt("go"));
  deepEqual(results.map(textOf), [
    "plain string",
    "Tool garbage returned an invalid result: expected { content: [...] }",
  ]);
  deepEqual(results.map((r) => r.isError), [true, true]);
});

Deno.test("gate 3: a call whose provider flagged its argument text never runs", async () => {
  const call = {
    ...toolCall("get_weather", {}, "x"),
    argumentsError: "the arguments are not valid JSON. Received: {",
  };
  const { result } = await runOne(call);
  equal(result.isError, true);
  equal(
    textOf(result),
    'Invalid arguments for tool "get_weather": the arguments are not valid JSON. Received: {',
  );
});
