/**
 * When the loop stops waiting for a call's hooks (they did not answer within the agent's
 * hookTimeoutMs, or the run was aborted), the call does not run, and the hooks listed after
 * the slow one must not act on it either: budget must not count it, audit must not write an
 * intent line for it (after its end line, as if it had started).
 */

import { createAgent, definePlugin, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
import { audit } from "@tack/agent/plugins/audit";
import { budget } from "@tack/agent/plugins/budget";
import { Type } from "typebox";
import { deepEqual, equal } from "node:assert/strict";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const stage of ["beforeToolCall", "verifyToolCall"] as const) {
  for (const how of ["timeout", "abort"] as const) {
    Deno.test(`hooks after a slow ${stage} do not act on a call the loop gave up on (${how})`, async () => {
      const dir = await Deno.makeTempDir({ prefix: "tack_give_up_" });
      try {
        let ran = 0;
        const echo = defineTool({
          name: "echo",
          description: "Echoes",
          parameters: Type.Object({}),
          execute: () => {
            ran++;
            return { content: [{ type: "text", text: "echo" }] };
          },
        });
        const slow = definePlugin({ name: "slow", [stage]: () => sleep(150) });
        const log = audit({ path: `${dir}/audit.jsonl` });
        const limit = budget({ maxToolCalls: 5 });
        const agent = createAgent({
          hookTimeoutMs: how === "timeout" ? 30 : undefined,
          model: scriptedModel([[toolCall("echo", {}, "c1")], [text("done")]]),
          tools: [echo],
          plugins: [slow, log, limit],
        });
        if (how === "abort") setTimeout(() => agent.abort(), 30);
        await agent.prompt("go");
        await sleep(250); // the slow hook has answered by now
        equal(ran, 0);
        const lines = Deno.readTextFileSync(log.path).trim().split("\n").map((l) => JSON.parse(l));
        // Before: an intent line followed the end line, and the budget counted the call.
        deepEqual(lines.map((l) => `${l.phase} ${l.toolCallId}`), ["end c1"]);
        equal(limit.spent.toolCalls, stage === "beforeToolCall" ? 0 : 1);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
}
