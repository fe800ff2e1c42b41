/**
 * Usage a server got wrong cannot switch `budget({ maxTokens })` off: the provider takes a
 * count that is not a number as 0, and the budget ignores a non-finite one.
 */

import { createAgent, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
import type { AssistantMessage, AssistantMessageEventStream, Model } from "@tack/agent";
import { budget } from "@tack/agent/plugins/budget";
import { openai } from "@tack/agent/sdk/providers/openai";
import { deepEqual, equal } from "node:assert/strict";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";

const step = defineTool({
  name: "step",
  description: "A step",
  parameters: { type: "object" } as const,
  execute: () => ({ content: [{ type: "text", text: "ok" }] }),
});

/** What a broken server puts in `usage`, past the fake server's types. */
const broken = (value: unknown) => value as number;

Deno.test("a server's non-numeric prompt_tokens does not switch maxTokens off", async () => {
  // Before, `prompt_tokens: "many"` made usage.input NaN, the budget's sum NaN, and
  // `NaN >= 2500` false for the rest of the run: all 8 scripted tool turns ran.
  const turn = (n: number) => ({
    toolCalls: [{ name: "step", arguments: {} }],
    usage: { input: n === 0 ? broken("many") : 1000, output: 5 },
  });
  await using server = await startFakeOpenAI({
    turns: [...Array.from({ length: 8 }, (_, n) => turn(n)), { text: "done" }],
  });
  const limit = budget({ maxTokens: 2500 });
  const agent = createAgent({
    model: openai({ model: "m", baseURL: server.baseURL, apiKey: "k" }),
    tools: [step],
    plugins: [limit],
  });
  const added = await agent.prompt("go");
  const usage = added.filter((m): m is AssistantMessage => m.role === "assistant")
    .map((m) => m.usage.totalTokens);
  deepEqual(usage, [5, 1005, 1005, 1005]); // "many" counted as 0; the fourth turn passes 2500
  equal(server.requests.length, 4);
  deepEqual(limit.spent, { toolCalls: 3, tokens: 3020, cost: 0 });
  await agent.dispose();
});

Deno.test("the provider's usage is finite whatever the server reports", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ text: "hi", usage: { input: broken(null), output: -5, cached: 1e308 } }],
  });
  const model = openai({ model: "m", baseURL: server.baseURL, apiKey: "k" });
  const stream = await model.stream({
    systemPrompt: "",
    messages: [{ role: "user", content: "hi", timestamp: 0 }],
    tools: [],
  }, {});
  const message = await stream.result();
  deepEqual(
    [message.usage.input, message.usage.output, message.usage.cacheRead, message.usage.totalTokens],
    [0, 0, 1_000_000_000, 1_000_000_000],
  );
});

/** A model whose messages report `totalTokens` and `cost.total` as given. */
function reporting(inner: Model, totalTokens: number, cost: number): Model {
  const report = (message: AssistantMessage): AssistantMessage => ({
    ...message,
    usage: { ...message.usage, totalTokens, cost: { ...message.usage.cost, total: cost } },
  });
  return {
    provider: inner.provider,
    id: inner.id,
    async stream(request, options): Promise<AssistantMessageEventStream> {
      const stream = await inner.stream(request, options);
      return {
        async *[Symbol.asyncIterator]() {
          for await (const event of stream) {
            if (event.type === "done") yield { ...event, message: report(event.message) };
            else yield event;
          }
        },
        result: async () => report(await stream.result()),
      };
    },
  };
}

for (const value of [NaN, Infinity, -1]) {
  Deno.test(`the budget ignores a reported ${value} and keeps counting`, async () => {
    const limit = budget({ maxTokens: 10, maxCost: 1 });
    const agent = createAgent({
      model: reporting(scriptedModel([[toolCall("step")], [text("done")]]), value, value),
      tools: [step],
      plugins: [limit],
    });
    await agent.prompt("go");
    deepEqual(limit.spent, { toolCalls: 1, tokens: 0, cost: 0 });
    equal(limit.exhausted, undefined);
    await agent.dispose();
  });
}
