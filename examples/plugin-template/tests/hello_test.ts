import hello, { blockedMessage, GREETING_ENV } from "../mod.ts";
import { createAgent, type Message, type ToolResultMessage } from "@tack/agent/sdk";
import { scriptedModel, text, toolCall } from "@tack/agent/sdk/testing";
import { deepEqual, equal, match, throws } from "node:assert/strict";

function results(messages: readonly Message[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}

function textOf(result: ToolResultMessage): string {
  const block = result.content[0];
  return block?.type === "text" ? block.text : "";
}

async function run(
  options: Parameters<typeof hello>[0],
  args: Record<string, unknown>,
) {
  const agent = createAgent({
    model: scriptedModel([[toolCall("greet", args, "c1")], [text("done")]]),
    plugins: [hello(options)],
  });
  const [result] = results(await agent.prompt("greet"));
  return result;
}

Deno.test("greet returns the greeting and its details", async () => {
  const previous = Deno.env.get(GREETING_ENV);
  Deno.env.delete(GREETING_ENV);
  try {
    const result = await run({ greeting: "Hi" }, { name: "Ada" });
    equal(result.isError, false);
    equal(textOf(result), "Hi, Ada!");
    deepEqual(result.details, { greeting: "Hi" });
  } finally {
    if (previous !== undefined) Deno.env.set(GREETING_ENV, previous);
  }
});

Deno.test("HELLO_GREETING overrides the configured greeting", async () => {
  const previous = Deno.env.get(GREETING_ENV);
  Deno.env.set(GREETING_ENV, "Bonjour");
  try {
    equal(
      textOf(await run({ greeting: "Hi" }, { name: "Ada" })),
      "Bonjour, Ada!",
    );
  } finally {
    if (previous === undefined) Deno.env.delete(GREETING_ENV);
    else Deno.env.set(GREETING_ENV, previous);
  }
});

Deno.test("a blocked name ends as an error result with the policy's reason", async () => {
  const result = await run({ blockedNames: ["Voldemort"] }, {
    name: "  voldemort ",
  });
  equal(result.isError, true);
  equal(textOf(result), blockedMessage("  voldemort "));
  equal(
    textOf(result),
    `Not allowed to greet "  voldemort ": the name is on the plugin's block list`,
  );
});

Deno.test("names not on the list are greeted", async () => {
  const result = await run({ blockedNames: ["Voldemort"] }, { name: "Harry" });
  equal(result.isError, false);
  equal(textOf(result), "Hello, Harry!");
});

Deno.test("invalid arguments name the tool, the path and the expectation", async () => {
  const empty = await run({}, { name: "" });
  equal(empty.isError, true);
  match(textOf(empty), /^Invalid arguments for tool "greet":\n {2}- name: /);
  const extra = await run({}, { name: "Ada", loud: true });
  equal(extra.isError, true);
  match(textOf(extra), /loud: is not an allowed property/);
  const missing = await run({}, {});
  match(textOf(missing), /name: is required/);
});

Deno.test("the policy leaves other tools alone", async () => {
  const plugin = hello({ blockedNames: ["ls"] });
  const decision = await plugin.beforeToolCall!({
    assistantMessage: {
      role: "assistant",
      content: [],
      stopReason: "toolUse",
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      provider: "test",
      model: "test",
      timestamp: 0,
    },
    toolCall: {
      type: "toolCall",
      id: "x",
      name: "ls",
      arguments: { name: "ls" },
    },
    tool: { ...plugin.tools![0], name: "ls" },
    args: { name: "ls" },
    context: { systemPrompt: "", messages: [], tools: [] },
  }, new AbortController().signal);
  equal(decision, undefined);
});

Deno.test("the plugin declares exactly the env permission it uses", () => {
  const plugin = hello();
  equal(plugin.name, "hello");
  deepEqual(plugin.permissions, { env: [GREETING_ENV] });
  deepEqual(plugin.tools?.map((tool) => tool.name), ["greet"]);
});

Deno.test("bad options fail at load with a clear message", () => {
  throws(
    () => hello({ blockedNames: "Voldemort" as unknown as string[] }),
    new TypeError(
      "Cannot create plugin hello: blockedNames must be an array of strings",
    ),
  );
  throws(
    () => hello({ blockedNames: [1 as unknown as string] }),
    new TypeError(
      "Cannot create plugin hello: blockedNames must be an array of strings",
    ),
  );
});
