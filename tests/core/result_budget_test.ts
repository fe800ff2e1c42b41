import {
  applyResultBudget,
  createAgent,
  defineTool,
  scriptedModel,
  text,
  toolCall,
} from "@tack/agent";
import { Type } from "typebox";
import { deepEqual, equal, ok } from "node:assert/strict";
import { resultsOf, textOf } from "../support/agent_harness.ts";

const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join("\n");

function bigTool(maxResultChars?: number) {
  return defineTool({
    name: "big",
    description: "",
    parameters: Type.Object({}),
    maxResultChars,
    execute: () => ({ content: [{ type: "text", text: lines }], details: { lines: 2000 } }),
  });
}

Deno.test("an oversized result keeps head and tail; the model reads how much was elided", async () => {
  const agent = createAgent({
    model: scriptedModel([[toolCall("big")], [text("ok")]]),
    tools: [bigTool()],
    maxResultChars: 1000,
  });
  const [result] = resultsOf(await agent.prompt("go"));
  const shown = textOf(result);
  ok(shown.startsWith("line 0\nline 1\n"));
  ok(shown.endsWith("line 1998\nline 1999"));
  const truncation = result.truncation!;
  equal(truncation.originalChars, lines.length);
  const elided = lines.length - truncation.keptChars;
  ok(
    shown.includes(
      `[… ${elided} characters elided from the middle of this result (kept ${truncation.keptChars} of ${lines.length}).`,
    ),
  );
  ok(truncation.keptChars <= 1000);
  // The head is cut at a line boundary.
  ok(shown.split("\n[…")[0].endsWith("\n"));
  // The host keeps the full text; details pass through.
  deepEqual(truncation.fullContent, [{ type: "text", text: lines }]);
  deepEqual(result.details, { lines: 2000 });
});

Deno.test("a tool's own maxResultChars overrides the agent budget", async () => {
  const agent = createAgent({
    model: scriptedModel([[toolCall("big")], [text("ok")]]),
    tools: [bigTool(Infinity)],
    maxResultChars: 10,
  });
  const [result] = resultsOf(await agent.prompt("go"));
  equal(textOf(result), lines);
  equal(result.truncation, undefined);
});

Deno.test("the default budget leaves ordinary results untouched and uncopied", () => {
  const result = { content: [{ type: "text" as const, text: "small" }] };
  equal(applyResultBudget(result, 50_000).result, result);
});

Deno.test("images survive truncation of the text beside them", () => {
  const image = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
  const { result } = applyResultBudget({
    content: [{ type: "text", text: "x".repeat(100) }, image],
  }, 20);
  equal(result.content.length, 2);
  deepEqual(result.content[1], image);
});
