import { type AssistantMessage, emptyUsage, type Message } from "@tack/agent";
import {
  normalizeHistory,
  toChatMessages,
  toResponsesInput,
} from "@tack/agent/sdk/providers/openai";
import { deepEqual } from "node:assert/strict";

function assistant(
  content: AssistantMessage["content"],
  stopReason: AssistantMessage["stopReason"] = "stop",
): AssistantMessage {
  return {
    role: "assistant",
    content,
    stopReason,
    usage: emptyUsage(),
    provider: "openai",
    model: "m",
    timestamp: 0,
  };
}

const user = (text: string): Message => ({ role: "user", content: text, timestamp: 0 });
const call = (id: string) => ({ type: "toolCall" as const, id, name: "t", arguments: { x: 1 } });

Deno.test("failed turns keep only their text, and empty ones are left out", () => {
  const messages: Message[] = [
    user("one"),
    assistant([{ type: "thinking", thinking: "hm" }, call("c1")], "error"),
    user("two"),
    assistant([{ type: "text", text: "half an ans" }, call("c2")], "aborted"),
    user("three"),
    assistant([{ type: "text", text: "  " }], "error"),
  ];
  deepEqual(toChatMessages({ systemPrompt: "", tools: [], messages }), [
    { role: "user", content: "one" },
    { role: "user", content: "two" },
    { role: "assistant", content: "half an ans" },
    { role: "user", content: "three" },
  ]);
});

Deno.test("unanswered tool calls get an error result; stray results are dropped", () => {
  const history = normalizeHistory([
    user("go"),
    assistant([call("a"), call("b")], "toolUse"),
    {
      role: "toolResult",
      toolCallId: "b",
      toolName: "t",
      content: [{ type: "text", text: "done" }],
      isError: false,
      timestamp: 0,
    },
    user("next"),
    {
      role: "toolResult",
      toolCallId: "zzz",
      toolName: "t",
      content: [],
      isError: false,
      timestamp: 0,
    },
    assistant([call("c")], "toolUse"),
  ]);
  deepEqual(
    history.map((m) => m.role === "toolResult" ? `${m.toolCallId}:${m.isError}` : m.role),
    ["user", "assistant", "b:false", "a:true", "user", "assistant", "c:true"],
  );
  deepEqual(toChatMessages({ systemPrompt: "", tools: [], messages: history }).slice(3, 4), [
    { role: "tool", tool_call_id: "a", content: "No result provided" },
  ]);
});

Deno.test("assistant text is joined and sent with its tool calls; empty results say so", () => {
  const messages: Message[] = [
    user("go"),
    assistant([{ type: "text", text: "Let me " }, { type: "text", text: "check." }, call("a")]),
    {
      role: "toolResult",
      toolCallId: "a",
      toolName: "t",
      content: [],
      isError: false,
      timestamp: 0,
    },
  ];
  deepEqual(toChatMessages({ systemPrompt: "", tools: [], messages }).slice(1), [
    {
      role: "assistant",
      content: "Let me check.",
      tool_calls: [{ id: "a", type: "function", function: { name: "t", arguments: '{"x":1}' } }],
    },
    { role: "tool", tool_call_id: "a", content: "(no output)" },
  ]);
});

Deno.test("Responses input keeps text and calls in order, images as input_image", () => {
  const image = { type: "image" as const, data: "AAAA", mimeType: "image/jpeg" };
  const messages: Message[] = [
    { role: "user", content: [{ type: "text", text: "look" }, image], timestamp: 0 },
    assistant([{ type: "text", text: "First," }, call("a"), { type: "text", text: "then" }]),
    {
      role: "toolResult",
      toolCallId: "a",
      toolName: "t",
      content: [image],
      isError: false,
      timestamp: 0,
    },
  ];
  deepEqual(toResponsesInput({ systemPrompt: "ignored", tools: [], messages }), [
    {
      role: "user",
      content: [
        { type: "input_text", text: "look" },
        { type: "input_image", image_url: "data:image/jpeg;base64,AAAA", detail: "auto" },
      ],
    },
    { role: "assistant", content: "First," },
    { type: "function_call", call_id: "a", name: "t", arguments: '{"x":1}' },
    { role: "assistant", content: "then" },
    { type: "function_call_output", call_id: "a", output: "(see the attached image)" },
    {
      role: "user",
      content: [
        { type: "input_text", text: "Attached image(s) from tool result:" },
        { type: "input_image", image_url: "data:image/jpeg;base64,AAAA", detail: "auto" },
      ],
    },
  ]);
});
