/**
 * `@mariozechner/pi-agent-core` on the loop workload: its `Agent` class (the stateful
 * wrapper, as Tack's `Agent`) with a `streamFn` that pushes the very events Tack's
 * `scriptedModel` pushes (start, toolcall_start/delta/end per call, done) into pi-ai's own
 * `AssistantMessageEventStream`. Same tool, TypeBox schema, parallel execution, no
 * listeners.
 *
 * @module
 */

import { Agent, type AgentTool, type StreamFn } from "@mariozechner/pi-agent-core";
import {
  type AssistantMessage,
  createAssistantMessageEventStream,
  type ToolCall,
} from "@mariozechner/pi-ai";
import { Type } from "typebox";
import {
  callsOfTurn,
  FINAL_TEXT,
  type LoopRunner,
  type RunOutcome,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  TOOL_RESULT,
} from "../workload.ts";

function usage(): AssistantMessage["usage"] {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/**
 * Runs the workload on pi-agent-core.
 *
 * @param turns Tool turns before the final answer.
 * @returns What the run did.
 */
export const runPi: LoopRunner = async (turns: number): Promise<RunOutcome> => {
  let executions = 0;
  const parameters = Type.Object({ value: Type.String() }, { additionalProperties: false });
  const echo: AgentTool<typeof parameters> = {
    name: TOOL_NAME,
    label: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters,
    execute: () => {
      executions++;
      return Promise.resolve({
        content: [{ type: "text", text: TOOL_RESULT }],
        details: undefined,
      });
    },
  };
  let turn = 0;
  const streamFn: StreamFn = (model) => {
    const stream = createAssistantMessageEventStream();
    const current = turn++;
    const play = async () => {
      await Promise.resolve();
      const content: AssistantMessage["content"] = current === turns
        ? [{ type: "text", text: FINAL_TEXT }]
        : callsOfTurn(current).map((call): ToolCall => ({
          type: "toolCall",
          id: call.id,
          name: call.name,
          arguments: call.arguments,
        }));
      const message: AssistantMessage = {
        role: "assistant",
        content,
        api: model.api,
        provider: model.provider,
        model: model.id,
        usage: usage(),
        stopReason: current === turns ? "stop" : "toolUse",
        timestamp: Date.now(),
      };
      const partial: AssistantMessage = { ...message, content: [] };
      stream.push({ type: "start", partial });
      for (const block of content) {
        const contentIndex = partial.content.length;
        partial.content.push(block);
        if (block.type === "text") {
          stream.push({ type: "text_start", contentIndex, partial });
          stream.push({ type: "text_delta", contentIndex, delta: block.text, partial });
          stream.push({ type: "text_end", contentIndex, content: block.text, partial });
        } else if (block.type === "toolCall") {
          stream.push({ type: "toolcall_start", contentIndex, partial });
          stream.push({
            type: "toolcall_delta",
            contentIndex,
            delta: JSON.stringify(block.arguments),
            partial,
          });
          stream.push({ type: "toolcall_end", contentIndex, toolCall: block, partial });
        }
      }
      stream.push({ type: "done", reason: message.stopReason as "stop" | "toolUse", message });
    };
    play();
    return stream;
  };
  const agent = new Agent({ initialState: { tools: [echo] }, streamFn });
  await agent.prompt("go");
  const messages = agent.state.messages;
  let toolResults = 0;
  for (const message of messages) if (message.role === "toolResult") toolResults++;
  const last = messages.at(-1);
  const finalText = last?.role === "assistant" && last.content[0]?.type === "text"
    ? last.content[0].text
    : "";
  return { executions, modelTurns: turn, toolResults, finalText, transcript: messages };
};
