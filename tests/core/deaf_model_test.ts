// A model that ignores the run's abort signal (a hung connection, a wedged local server)
// cannot hold the run: a moment after the abort (MODEL_ABORT_GRACE_MS), the turn ends with
// an aborted message and the run ends with agent_end. Before, prompt() never settled.
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  AssistantMessageStream,
  createAgent,
  emptyUsage,
  type Model,
  scriptedModel,
  text,
} from "@tack/agent";
import { MODEL_ABORT_GRACE_MS } from "../../core/model_wait.ts";
import { deepEqual, equal, ok } from "node:assert/strict";
import { recordEvents } from "../support/agent_harness.ts";

const partial: AssistantMessage = {
  role: "assistant",
  content: [],
  stopReason: "stop",
  usage: emptyUsage(),
  provider: "custom",
  model: "deaf",
  timestamp: 0,
};

/** Starts a message, then never sends another event, whatever the signal says. */
const deafStream: Model = {
  provider: "custom",
  id: "deaf",
  stream() {
    const stream = new AssistantMessageStream();
    stream.push({ type: "start", partial });
    return stream;
  },
};

/** The same through a plain async iterable (not Tack's stream class). */
const deafIterable: Model = {
  provider: "custom",
  id: "deaf",
  stream() {
    const events: AssistantMessageEvent[] = [{ type: "start", partial }];
    return {
      async *[Symbol.asyncIterator]() {
        yield* events;
        await new Promise(() => {});
      },
      result: () => new Promise<AssistantMessage>(() => {}),
    };
  },
};

/** Never even returns its stream. */
const deafCall: Model = {
  provider: "custom",
  id: "deaf",
  stream: () => new Promise(() => {}),
};

for (const [name, model] of Object.entries({ deafStream, deafIterable, deafCall })) {
  Deno.test(`abort ends a run whose model ignores the signal (${name})`, async () => {
    const agent = createAgent({ model });
    const events = recordEvents(agent);
    const running = agent.prompt("hi");
    await new Promise((resolve) => setTimeout(resolve, 20));
    const abortedAt = performance.now();
    agent.abort();
    await running;
    const waited = performance.now() - abortedAt;
    ok(waited >= MODEL_ABORT_GRACE_MS - 20, `ended after ${waited} ms, before its grace`);
    const last = agent.messages.at(-1) as AssistantMessage;
    equal(last.stopReason, "aborted");
    equal(last.errorMessage, "The request was aborted");
    equal(agent.isRunning, false);
    deepEqual(events.slice(-3).map((event) => event.type), [
      "message_end",
      "turn_end",
      "agent_end",
    ]);
  });
}

Deno.test("a model that honours the abort ends its own turn (its message is kept)", async () => {
  const agent = createAgent({ model: scriptedModel([[text("late")]], { delayMs: 10_000 }) });
  const running = agent.prompt("hi");
  await new Promise((resolve) => setTimeout(resolve, 20));
  const abortedAt = performance.now();
  agent.abort();
  await running;
  ok(performance.now() - abortedAt < MODEL_ABORT_GRACE_MS);
  const last = agent.messages.at(-1) as AssistantMessage;
  equal(last.stopReason, "aborted");
  equal(last.provider, "scripted");
});

Deno.test("a deaf model that keeps streaming after the abort is cut off once, keeping what it streamed", async () => {
  // Found by a review: the grace was per wait, so an event every 300 ms held the run forever.
  const trickling: Model = {
    provider: "custom",
    id: "deaf",
    stream() {
      const stream = new AssistantMessageStream();
      const message = { ...partial, content: [{ type: "text" as const, text: "" }] };
      stream.push({ type: "start", partial: message });
      let n = 0;
      const tick = setInterval(() => {
        if (stream.ended) return clearInterval(tick);
        message.content[0].text += `${n++} `;
        stream.push({ type: "text_delta", contentIndex: 0, delta: `${n} `, partial: message });
      }, 100);
      setTimeout(() => clearInterval(tick), 5_000);
      return stream;
    },
  };
  const agent = createAgent({ model: trickling });
  const running = agent.prompt("hi");
  await new Promise((resolve) => setTimeout(resolve, 250));
  const abortedAt = performance.now();
  agent.abort();
  await running;
  ok(performance.now() - abortedAt < 4 * MODEL_ABORT_GRACE_MS, "held past its grace");
  const last = agent.messages.at(-1) as AssistantMessage;
  equal(last.stopReason, "aborted");
  equal(last.content.length, 1);
  ok(last.content[0].type === "text" && last.content[0].text.startsWith("0 1 "), "kept its text");
});
