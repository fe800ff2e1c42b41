import { deepEqual, equal } from "node:assert/strict";
import { type AgentEvent, type AssistantMessageEvent, emptyUsage } from "@tack/agent";
import { compactAssistantEvent, jsonLine, jsonOutput } from "../../cli/json_output.ts";

const partial = {
  role: "assistant" as const,
  content: [],
  stopReason: "stop" as const,
  usage: emptyUsage(),
  provider: "p",
  model: "m",
  timestamp: 0,
};
const call = { type: "toolCall" as const, id: "c1", name: "ls", arguments: { path: "." } };

Deno.test("every streaming step keeps its type and what it adds, never the partial", () => {
  const cases: [AssistantMessageEvent, unknown][] = [
    [{ type: "start", partial }, { type: "start" }],
    [{ type: "text_start", contentIndex: 0, partial }, { type: "text_start", contentIndex: 0 }],
    [
      { type: "text_delta", contentIndex: 0, delta: "Hi", partial },
      { type: "text_delta", contentIndex: 0, delta: "Hi" },
    ],
    [
      { type: "text_end", contentIndex: 0, content: "Hi", partial },
      { type: "text_end", contentIndex: 0 },
    ],
    [{ type: "thinking_start", contentIndex: 1, partial }, {
      type: "thinking_start",
      contentIndex: 1,
    }],
    [
      { type: "thinking_delta", contentIndex: 1, delta: "hm", partial },
      { type: "thinking_delta", contentIndex: 1, delta: "hm" },
    ],
    [
      { type: "thinking_end", contentIndex: 1, content: "hm", partial },
      { type: "thinking_end", contentIndex: 1 },
    ],
    [{ type: "toolcall_start", contentIndex: 2, partial }, {
      type: "toolcall_start",
      contentIndex: 2,
    }],
    [
      { type: "toolcall_delta", contentIndex: 2, delta: '{"p', partial },
      { type: "toolcall_delta", contentIndex: 2, delta: '{"p' },
    ],
    [
      { type: "toolcall_end", contentIndex: 2, toolCall: call, partial },
      { type: "toolcall_end", contentIndex: 2, toolCall: call },
    ],
    [{ type: "done", reason: "toolUse", message: partial }, { type: "done", reason: "toolUse" }],
    [{ type: "error", reason: "aborted", error: partial }, { type: "error", reason: "aborted" }],
  ];
  for (const [event, expected] of cases) deepEqual(compactAssistantEvent(event), expected);
});

Deno.test("message_update lines carry only the compact step", () => {
  const event: AgentEvent = {
    type: "message_update",
    message: partial,
    assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "Hi", partial },
  };
  equal(
    jsonLine(event),
    '{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"Hi"}}',
  );
});

Deno.test("other events are written whole, one line each", () => {
  const events: AgentEvent[] = [
    { type: "agent_start" },
    { type: "message_end", message: { ...partial, content: [{ type: "text", text: "a\nb" }] } },
    {
      type: "tool_execution_end",
      toolCallId: "c1",
      toolName: "ls",
      result: { content: [{ type: "text", text: "x" }], details: { n: 1 } },
      isError: false,
    },
    { type: "agent_end", messages: [] },
  ];
  const lines: string[] = [];
  const listener = jsonOutput((line) => lines.push(line));
  for (const event of events) listener(event);
  equal(lines.length, 4);
  for (const [i, line] of lines.entries()) {
    equal(line.endsWith("\n"), true);
    equal(line.slice(0, -1).includes("\n"), false);
    deepEqual(JSON.parse(line), events[i]);
  }
});
