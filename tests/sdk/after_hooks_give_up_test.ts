/**
 * When the loop stops waiting for a call's afterToolCall hooks (hookTimeoutMs, or the run
 * aborted), their signal aborts and the hooks after the slow one are not called, as for
 * beforeToolCall and verifyToolCall: they ran after the call's end event (and agent_end),
 * acting on a result the transcript never got, and the slow hook was never told.
 */

import {
  type AgentEvent,
  createAgent,
  definePlugin,
  defineTool,
  scriptedModel,
  text,
  toolCall,
} from "@tack/agent";
import { Type } from "typebox";
import { deepEqual, equal } from "node:assert/strict";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const how of ["timeout", "abort"] as const) {
  Deno.test(`afterToolCall hooks after a slow one are not called once the loop gave up (${how})`, async () => {
    const seen: string[] = [];
    let slowSignal: AbortSignal | undefined;
    const echo = defineTool({
      name: "echo",
      description: "Echoes",
      parameters: Type.Object({}),
      execute: () => ({ content: [{ type: "text", text: "echo" }] }),
    });
    const slow = definePlugin({
      name: "slow",
      afterToolCall: async (_context, signal) => {
        slowSignal = signal;
        await sleep(150);
      },
    });
    const after = definePlugin({
      name: "after",
      afterToolCall: () => void seen.push("after's afterToolCall"),
    });
    const agent = createAgent({
      hookTimeoutMs: how === "timeout" ? 30 : undefined,
      model: scriptedModel([[toolCall("echo", {}, "c1")], [text("done")]]),
      tools: [echo],
      plugins: [slow, after],
    });
    agent.subscribe((event: AgentEvent) => {
      if (event.type === "tool_execution_end" || event.type === "agent_end") seen.push(event.type);
    });
    if (how === "abort") setTimeout(() => agent.abort(), 30);
    await agent.prompt("go");
    await sleep(250); // the slow hook has answered by now
    deepEqual(seen, ["tool_execution_end", "agent_end"]);
    equal(slowSignal?.aborted, true);
  });
}
