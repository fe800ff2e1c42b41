/**
 * Two or more calls with one id in a message (a custom model or a script can send that):
 * the loop gives them unique ids, so each gets its own end line, with its own arguments
 * and duration.
 */

import { createAgent, definePlugin, scriptedModel, text, toolCall } from "@tack/agent";
import { audit, type AuditEntry, type AuditIntent } from "@tack/agent/plugins/audit";
import { deepEqual, ok } from "node:assert/strict";
import { sleepTool as sleep } from "../support/agent_harness.ts";

Deno.test("audit: calls sharing one id each get their own end line, arguments and duration", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tack_audit_" });
  try {
    const log = audit({ path: `${dir}/audit.jsonl` });
    const agent = createAgent({
      // The first call runs longest, so the calls end in another order than they started;
      // its "150" is coerced to 150 (the end line keeps the model's as originalArgs); the
      // third is blocked in its gates while the first two wait to run.
      model: scriptedModel([
        [
          toolCall("sleep", { ms: "150" }, "dup"),
          toolCall("sleep", { ms: 1 }, "dup"),
          toolCall("sleep", { ms: 2 }, "dup"),
        ],
        [text("done")],
      ]),
      tools: [sleep],
      plugins: [
        log,
        definePlugin({
          name: "policy",
          beforeToolCall: ({ args }) =>
            args.ms === 2 ? { block: true, reason: "not 2" } : undefined,
        }),
      ],
    });
    await agent.prompt("go");
    const lines = Deno.readTextFileSync(log.path).trim().split("\n").map((l) => JSON.parse(l));
    const intents: AuditIntent[] = lines.filter((l) => l.phase === "intent");
    const ends: AuditEntry[] = lines.filter((l) => l.phase === "end");
    deepEqual(intents.map((l) => [l.toolCallId, l.args, l.originalArgs]), [
      ["dup", { ms: 150 }, { ms: "150" }],
      ["dup_2", { ms: 1 }, undefined],
    ]);
    // Before, each start replaced the state of the one before under the id: the blocked
    // call's end took the last, and the two that ran found none (0 ms each, and the
    // model's "150" lost).
    deepEqual(ends.map((l) => [l.toolCallId, l.args, l.originalArgs, l.outcome, l.error]), [
      ["dup_3", { ms: 2 }, undefined, "blocked", "not 2"],
      ["dup_2", { ms: 1 }, undefined, "ok", undefined],
      ["dup", { ms: 150 }, { ms: "150" }, "ok", undefined],
    ]);
    const [, short, long] = ends;
    ok(long.durationMs >= 149, `the 150 ms call took ${long.durationMs} ms`);
    ok(short.durationMs < long.durationMs, `${short.durationMs} ms, then ${long.durationMs} ms`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
