/**
 * Arguments with a cycle (`prepareArguments` returning an object that
 * holds itself): the frozen copy the hooks see walked the cycle forever, holding the host's
 * event loop at 100% CPU.
 */

import {
  copyForHooks,
  createAgent,
  definePlugin,
  defineTool,
  scriptedModel,
  text,
  toolCall,
} from "@tack/agent";
import { Type } from "typebox";
import { equal } from "node:assert/strict";
import { resultsOf } from "../support/agent_harness.ts";

function cyclic(): Record<string, unknown> {
  const args: Record<string, unknown> = { line: "ls", list: [] };
  args.self = args;
  (args.list as unknown[]).push(args);
  return args;
}

Deno.test("copyForHooks: a cyclic object is copied and frozen, cycle and all", () => {
  const seen = copyForHooks(cyclic());
  equal(Object.isFrozen(seen), true);
  equal(seen.self, seen);
  equal(Object.isFrozen(seen.list), true);
});

Deno.test("prepareArguments returning a cyclic object does not hang the run's hooks", async () => {
  const sh = defineTool({
    name: "sh",
    description: "Runs a line",
    parameters: Type.Object({ line: Type.String() }),
    prepareArguments: () => cyclic(),
    execute: ({ line }) => ({ content: [{ type: "text", text: line }] }),
  });
  let seen: unknown;
  const verifier = definePlugin({
    name: "verifier",
    verifyToolCall: ({ args }) => void (seen = args.line),
  });
  const agent = createAgent({
    model: scriptedModel([[toolCall("sh", { line: "pwd" }, "c1")], [text("ok")]]),
    tools: [sh],
    plugins: [verifier],
  });
  const results = resultsOf(await agent.prompt("go"));
  equal(results.length, 1);
  equal(seen, "ls");
});
