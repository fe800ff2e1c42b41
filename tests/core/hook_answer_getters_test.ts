/**
 * A hook's answer that throws when the loop reads it (a getter, a proxy) is the call's error
 * result: runLoop rejected, with no result for the call and no agent_end.
 */

import { runLoop, scriptedModel, text, toolCall } from "@tack/agent";
import { deepEqual, equal } from "node:assert/strict";
import { resultsOf, textOf } from "../support/agent_harness.ts";

const sh = {
  name: "sh",
  description: "Runs",
  parameters: { type: "object" },
  execute: () => ({ content: [{ type: "text" as const, text: "ran" }] }),
};

for (const stage of ["beforeToolCall", "verifyToolCall"] as const) {
  // verifyToolCall may only block or defer: its `args` is not read.
  for (const key of stage === "beforeToolCall" ? ["block", "defer", "args"] : ["block", "defer"]) {
    Deno.test(`a ${stage} answer whose ${key} getter throws ends the call with an error result`, async () => {
      const answer = {
        get [key]() {
          throw new Error(`no ${key} for you`);
        },
      };
      const state = { systemPrompt: "", messages: [], tools: [sh] };
      const events: string[] = [];
      const added = await runLoop({
        state,
        prompts: [{ role: "user", content: "go", timestamp: 0 }],
        config: {
          model: scriptedModel([[toolCall("sh", {}, "c1")], [text("ok")]]),
          [stage]: () => answer,
        },
        signal: new AbortController().signal,
        emit: (event) => events.push(event.type),
      });
      const [result] = resultsOf(added);
      equal(result.isError, true);
      equal(textOf(result).includes(`no ${key} for you`), true, textOf(result));
      deepEqual(events.filter((type) => type.startsWith("tool_execution")), [
        "tool_execution_start",
        "tool_execution_end",
      ]);
    });
  }
}
