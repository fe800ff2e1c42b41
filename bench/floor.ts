/**
 * The floor: a minimal loop doing the same observable work as the frameworks on the loop
 * workload, and nothing else. Per turn it plays the same model events (start, then
 * toolcall_start/delta/end per call, done) one microtask after the request, emits the same
 * agent events (agent/turn/message start and end, message_update per model event,
 * tool_execution_start/end), validates each call's arguments with a compiled TypeBox check,
 * runs the same asynchronous tool for every call at once, and appends the same messages.
 * No timeouts, no abort, no hooks, no result budget, no error paths: what those cost is the
 * distance from a framework to this row.
 *
 * @module
 */

import { Compile } from "typebox/compile";
import { Type } from "typebox";
import {
  callsOfTurn,
  FINAL_TEXT,
  type LoopRunner,
  type RunOutcome,
  TOOL_NAME,
  TOOL_RESULT,
} from "./workload.ts";

type Block =
  | { type: "text"; text: string }
  | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> };

interface Assistant {
  role: "assistant";
  content: Block[];
  stopReason: "stop" | "toolUse";
  timestamp: number;
}

interface ToolResult {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: { type: "text"; text: string }[];
  isError: boolean;
  timestamp: number;
}

type Event = { type: string; [key: string]: unknown };

/** The model's events for one turn, as the frameworks' model stand-ins push them. */
function modelTurn(turn: number, turns: number): { events: Event[]; message: Assistant } {
  const content: Block[] = turn === turns
    ? [{ type: "text", text: FINAL_TEXT }]
    : callsOfTurn(turn).map((call) => ({ type: "toolCall", ...call }));
  const message: Assistant = {
    role: "assistant",
    content,
    stopReason: turn === turns ? "stop" : "toolUse",
    timestamp: Date.now(),
  };
  const partial: Assistant = { ...message, content: [] };
  const events: Event[] = [{ type: "start", partial }];
  for (const block of content) {
    const contentIndex = partial.content.length;
    partial.content.push(block);
    if (block.type === "text") {
      events.push({ type: "text_start", contentIndex, partial });
      events.push({ type: "text_delta", contentIndex, delta: block.text, partial });
      events.push({ type: "text_end", contentIndex, content: block.text, partial });
    } else {
      events.push({ type: "toolcall_start", contentIndex, partial });
      events.push({
        type: "toolcall_delta",
        contentIndex,
        delta: JSON.stringify(block.arguments),
        partial,
      });
      events.push({ type: "toolcall_end", contentIndex, toolCall: block, partial });
    }
  }
  events.push({ type: "done", message });
  return { events, message };
}

/**
 * Runs the workload on the minimal loop.
 *
 * @param turns Tool turns before the final answer.
 * @returns What the run did.
 */
export const runFloor: LoopRunner = async (turns: number): Promise<RunOutcome> => {
  let executions = 0;
  const check = Compile(Type.Object({ value: Type.String() }, { additionalProperties: false }));
  const execute = (_args: Record<string, unknown>) => {
    executions++;
    return Promise.resolve({ content: [{ type: "text" as const, text: TOOL_RESULT }] });
  };
  const emit = (_event: Event) => {};
  const messages: unknown[] = [{ role: "user", content: "go", timestamp: Date.now() }];
  let modelTurns = 0;
  emit({ type: "agent_start" });
  while (true) {
    emit({ type: "turn_start" });
    await Promise.resolve(); // the model answers asynchronously
    const { events, message } = modelTurn(modelTurns++, turns);
    emit({ type: "message_start", message: events[0].partial });
    for (let i = 1; i < events.length - 1; i++) {
      emit({
        type: "message_update",
        message: events[i].partial,
        assistantMessageEvent: events[i],
      });
    }
    emit({ type: "message_end", message });
    messages.push(message);
    const calls = message.content.filter((block) => block.type === "toolCall");
    if (calls.length === 0) {
      emit({ type: "turn_end", message, toolResults: [] });
      break;
    }
    for (const call of calls) {
      emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name });
    }
    const results = await Promise.all(calls.map(async (call): Promise<ToolResult> => {
      if (call.name !== TOOL_NAME || !check.Check(call.arguments)) throw new Error("bad call");
      const result = await execute(call.arguments);
      emit({ type: "tool_execution_end", toolCallId: call.id, result, isError: false });
      return {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: result.content,
        isError: false,
        timestamp: Date.now(),
      };
    }));
    for (const result of results) {
      emit({ type: "message_start", message: result });
      emit({ type: "message_end", message: result });
      messages.push(result);
    }
    emit({ type: "turn_end", message, toolResults: results });
  }
  emit({ type: "agent_end", messages });
  const last = messages.at(-1) as Assistant;
  return {
    executions,
    modelTurns,
    toolResults: messages.filter((m) => (m as ToolResult).role === "toolResult").length,
    finalText: last.content[0]?.type === "text" ? last.content[0].text : "",
    transcript: messages,
  };
};
