/**
 * Timeouts longer than `setTimeout` can wait (2^31 - 1 ms, ~24.8 days): a timer asked for
 * more fires at once, so a hook bound of 30 days refused every call as timed out, and a tool
 * timeout of 30 days had the watch's timer fire (and re-arm) every millisecond.
 */

import { createAgent, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
import { Type } from "typebox";
import { equal, ok } from "node:assert/strict";
import { resultsOf, textOf } from "../support/agent_harness.ts";

const THIRTY_DAYS_MS = 30 * 24 * 3600 * 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function slowTool(ms: number) {
  return defineTool({
    name: "slow",
    description: "Answers after a while",
    parameters: Type.Object({}),
    execute: async () => {
      await sleep(ms);
      return { content: [{ type: "text", text: "done" }] };
    },
  });
}

Deno.test("a hook bound of 30 days does not time the hook out at once", async () => {
  const agent = createAgent({
    hookTimeoutMs: THIRTY_DAYS_MS,
    model: scriptedModel([[toolCall("slow", {}, "c1")], [text("ok")]]),
    tools: [slowTool(0)],
    beforeToolCall: () => sleep(20).then(() => undefined),
  });
  const [result] = resultsOf(await agent.prompt("go"));
  equal(textOf(result), "done");
});

Deno.test("a tool timeout of 30 days does not spin the watch's timer while the call runs", async () => {
  const agent = createAgent({
    toolTimeoutMs: THIRTY_DAYS_MS,
    model: scriptedModel([[toolCall("slow", {}, "c1")], [text("ok")]]),
    tools: [slowTool(100)],
  });
  const original = globalThis.setTimeout;
  let timers = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    timers++;
    return original(...args);
  }) as typeof setTimeout;
  try {
    const [result] = resultsOf(await agent.prompt("go"));
    equal(textOf(result), "done");
  } finally {
    globalThis.setTimeout = original;
  }
  // The tool's own sleep, the watch's one timer, a few of the run's own: not one a millisecond.
  ok(timers < 10, `${timers} timers were set for one 100 ms call`);
});
