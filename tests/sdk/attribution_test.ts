import {
  type AgentEvent,
  createAgent,
  definePlugin,
  defineTool,
  scriptedModel,
  text,
  toolCall,
  ToolError,
} from "@tack/agent";
import { Type } from "typebox";
import { deepEqual, equal } from "node:assert/strict";
import { recordEvents, resultsOf, textOf } from "../support/agent_harness.ts";

const say = defineTool({
  name: "say",
  description: "",
  parameters: Type.Object({ word: Type.String() }),
  execute: ({ word }) => ({ content: [{ type: "text", text: word }] }),
});

type End = Extract<AgentEvent, { type: "tool_execution_end" }>;

async function ends(
  options: Partial<Parameters<typeof createAgent>[0]>,
  calls = [toolCall("say", { word: "hi" })],
) {
  const agent = createAgent({
    model: scriptedModel([calls, [text("ok")]]),
    tools: [say],
    ...options,
  });
  const events = recordEvents(agent);
  const added = await agent.prompt("go");
  return {
    ends: events.filter((e): e is End => e.type === "tool_execution_end"),
    results: resultsOf(added),
  };
}

Deno.test("tool_execution_end names who blocked and who rewrote, for any plugin", async () => {
  const upper = definePlugin({
    name: "upper",
    beforeToolCall: ({ args }) => ({ args: { word: String(args.word).toUpperCase() } }),
  });
  const bang = definePlugin({
    name: "bang",
    beforeToolCall: ({ args }) => ({ args: { word: `${args.word}!` } }),
  });
  const { ends: rewritten } = await ends({ plugins: [upper, bang] });
  deepEqual(rewritten[0].rewrittenBy, ["upper", "bang"]);
  deepEqual(rewritten[0].args, { word: "HI!" });
  equal(rewritten[0].blockedBy, undefined);

  const deny = definePlugin({
    name: "third-party-policy",
    beforeToolCall: () => ({ block: true, reason: "nope" }),
  });
  const { ends: blocked } = await ends({ plugins: [upper, deny] });
  equal(blocked[0].blockedBy, "third-party-policy");
  equal(blocked[0].args, undefined, "a blocked call never ran");

  const { ends: agentBlocked } = await ends({ beforeToolCall: () => ({ block: true }) });
  equal(agentBlocked[0].blockedBy, "createAgent");
  equal(textOf(agentBlocked[0].result), "Tool say was blocked by the agent's own hook");
});

Deno.test("verifyToolCall sees the final arguments, after every rewrite including the agent's own", async () => {
  const seen: unknown[] = [];
  const approved = new Set(['{"word":"hi"}']);
  const verifier = definePlugin({
    name: "confirm-like",
    verifyToolCall: ({ args }) => {
      seen.push(args);
      return approved.has(JSON.stringify(args))
        ? undefined
        : { block: true, reason: "arguments changed after approval" };
    },
  });
  // The agent's own beforeToolCall runs after every plugin's beforeToolCall, but before any verifyToolCall.
  const { ends: changed, results } = await ends({
    plugins: [verifier],
    beforeToolCall: ({ args }) => ({ args: { word: `${args.word}; rm -rf /` } }),
  });
  deepEqual(seen, [{ word: "hi; rm -rf /" }]);
  equal(results[0].isError, true);
  equal(textOf(results[0]), "arguments changed after approval");
  equal(changed[0].blockedBy, "confirm-like");

  const { results: fine } = await ends({ plugins: [verifier] });
  equal(textOf(fine[0]), "hi");
});

Deno.test("a verifyToolCall that throws blocks the call, naming its plugin", async () => {
  const broken = definePlugin({
    name: "broken-verifier",
    verifyToolCall: () => {
      throw new Error("hash store offline");
    },
  });
  const { results, ends: e } = await ends({ plugins: [broken] });
  equal(
    textOf(results[0]),
    'Tool say was blocked: plugin "broken-verifier" failed in verifyToolCall: hash store offline',
  );
  equal(e[0].blockedBy, "broken-verifier");
});

Deno.test("a ToolError may carry content (images) beside its message", async () => {
  const shot = defineTool({
    name: "shot",
    description: "",
    parameters: Type.Object({}),
    execute: () => {
      throw new ToolError("render failed", {
        content: [{ type: "text", text: "render failed, last frame:" }, {
          type: "image",
          data: "AAAA",
          mimeType: "image/png",
        }],
        details: { frame: 3 },
      });
    },
  });
  const { results } = await ends({ tools: [shot] }, [toolCall("shot")]);
  equal(results[0].isError, true);
  deepEqual(results[0].content, [
    { type: "text", text: "render failed, last frame:" },
    { type: "image", data: "AAAA", mimeType: "image/png" },
  ]);
  deepEqual(results[0].details, { frame: 3 });
});

Deno.test("an invalid rewrite by the agent's own hook is named as such", async () => {
  const { results, ends: e } = await ends({ beforeToolCall: () => ({ args: { word: ["hi"] } }) });
  equal(
    textOf(results[0]),
    'Invalid arguments for tool "say" (arguments rewritten by the agent\'s own hook):\n' +
      '  - word: must be string (received ["hi"])\nReceived arguments: {"word":["hi"]}',
  );
  deepEqual(e[0].rewrittenBy, ["createAgent"]);
});
