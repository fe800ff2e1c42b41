// Host bugs get clear errors: the misuse paths of the Agent and the stream.
import { AssistantMessageStream, createAgent, emptyUsage, scriptedModel, text } from "@tack/agent";
import { deepEqual, equal, rejects, throws } from "node:assert/strict";

Deno.test("continue() on an empty transcript rejects with a clear message", async () => {
  const agent = createAgent({ model: scriptedModel([[text("x")]]) });
  await rejects(agent.continue(), { message: "Cannot continue: the transcript is empty" });
  equal(agent.isRunning, false);
});

Deno.test("reset() while a run is in progress throws; afterwards it clears the transcript", async () => {
  const agent = createAgent({ model: scriptedModel([{ content: [text("slow")], delayMs: 10 }]) });
  const running = agent.prompt("hi");
  throws(() => agent.reset(), { message: "Cannot reset: a run is in progress" });
  await running;
  equal(agent.messages.length, 2);
  agent.reset();
  equal(agent.messages.length, 0);
});

Deno.test("pushing to a stream after done is a provider bug, named", () => {
  const message = {
    role: "assistant" as const,
    content: [],
    stopReason: "stop" as const,
    usage: emptyUsage(),
    provider: "p",
    model: "m",
    timestamp: 0,
  };
  const stream = new AssistantMessageStream();
  stream.push({ type: "done", reason: "stop", message });
  throws(() => stream.push({ type: "start", partial: message }), {
    message: 'Cannot push "start": the stream has ended',
  });
});

Deno.test("continue() after the model's answer rejects, unless a message is queued (as pi's)", async () => {
  // Found by a review: the model was asked again with a transcript ending in its own answer.
  const model = scriptedModel([[text("4")], [text("and 5")]]);
  const agent = createAgent({ model });
  await agent.prompt("2+2?");
  await rejects(agent.continue(), {
    message:
      "Cannot continue: the run ended with the model's answer (send a prompt, or queue a message with steer or followUp)",
  });
  equal(model.requests.length, 1);
  agent.followUp("and 2+3?");
  const added = await agent.continue();
  deepEqual(added.map((m) => m.role), ["user", "assistant"]);
  equal(model.requests[1].messages.at(-1)?.role, "user");
});

Deno.test("continue() after the model's answer takes queued steering one at a time, as pi's", async () => {
  // Found by a review: continue() drained one steering message and the loop's first poll
  // took the next, so two went in before the first model call.
  const model = scriptedModel([[text("a")], [text("b")], [text("c")]]);
  const agent = createAgent({ model });
  await agent.prompt("first");
  agent.steer("second");
  agent.steer("third");
  await agent.continue();
  deepEqual(agent.messages.map((m) => m.role), [
    "user",
    "assistant",
    "user",
    "assistant",
    "user",
    "assistant",
  ]);
});

Deno.test("an abandoned stream ends with the reader's message and drops what is pushed later", async () => {
  const stream = new AssistantMessageStream();
  const message = {
    role: "assistant" as const,
    content: [],
    stopReason: "aborted" as const,
    usage: emptyUsage(),
    provider: "p",
    model: "m",
    timestamp: 0,
  };
  stream.abandon(message);
  equal(stream.ended, true);
  equal(await stream.result(), message);
  stream.push({ type: "done", reason: "stop", message: { ...message, stopReason: "stop" } });
  equal(stream.shift()?.type, "error");
  equal(stream.shift(), undefined);
  // A stream that ended on its own is not changed by abandon().
  const done = new AssistantMessageStream();
  done.push({ type: "done", reason: "stop", message: { ...message, stopReason: "stop" } });
  done.abandon(message);
  equal((await done.result()).stopReason, "stop");
  throws(() => done.push({ type: "start", partial: message }), /the stream has ended/);
});
