/**
 * `@mariozechner/pi-agent-core` on the loop workload, at two API levels: its `Agent` class
 * (the stateful wrapper, as Tack's `Agent`) and `runAgentLoop` (the bare loop with an event
 * sink, as Tack's `runLoop`; `agentLoop` is the same loop behind an event stream). A
 * `streamFn` pushes the very events Tack's `scriptedModel` pushes (start,
 * toolcall_start/delta/end per call, done) into pi-ai's own `AssistantMessageEventStream`.
 * Same asynchronous tool, TypeBox schema, parallel execution, no listeners.
 *
 * @module
 */

import {
  Agent,
  type AgentMessage,
  type AgentTool,
  runAgentLoop,
  type StreamFn,
} from "@mariozechner/pi-agent-core";
import {
  type AssistantMessage,
  createAssistantMessageEventStream,
  type Model,
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

function setup(turns: number) {
  const counter = { executions: 0, turns: 0 };
  const parameters = Type.Object({ value: Type.String() }, { additionalProperties: false });
  const echo: AgentTool<typeof parameters> = {
    name: TOOL_NAME,
    label: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters,
    execute: () => {
      counter.executions++;
      return Promise.resolve({
        content: [{ type: "text", text: TOOL_RESULT }],
        details: undefined,
      });
    },
  };
  const streamFn: StreamFn = (model) => {
    const stream = createAssistantMessageEventStream();
    const current = counter.turns++;
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
  return { counter, echo, streamFn };
}

function outcomeOf(
  messages: readonly AgentMessage[],
  executions: number,
  modelTurns: number,
): RunOutcome {
  let toolResults = 0;
  for (const message of messages) if (message.role === "toolResult") toolResults++;
  const last = messages.at(-1);
  const finalText = last?.role === "assistant" && last.content[0]?.type === "text"
    ? last.content[0].text
    : "";
  return { executions, modelTurns, toolResults, finalText, transcript: messages };
}

/**
 * Runs the workload on pi-agent-core's `Agent`.
 *
 * @param turns Tool turns before the final answer.
 * @returns What the run did.
 */
export const runPi: LoopRunner = async (turns: number): Promise<RunOutcome> => {
  const { counter, echo, streamFn } = setup(turns);
  const agent = new Agent({ initialState: { tools: [echo] }, streamFn });
  await agent.prompt("go");
  return outcomeOf(agent.state.messages, counter.executions, counter.turns);
};

/** A model description for `runAgentLoop` (the stream function ignores all but the names). */
const BENCH_MODEL = {
  id: "bench",
  name: "bench",
  api: "openai-completions",
  provider: "bench",
  baseUrl: "http://127.0.0.1",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1_000_000,
  maxTokens: 1_000,
} as Model<"openai-completions">;

/**
 * Runs the workload on pi-agent-core's bare `runAgentLoop`. `convertToLlm` hands the
 * transcript over as it is (as Tack's loop does), so neither side copies it per turn.
 *
 * @param turns Tool turns before the final answer.
 * @returns What the run did.
 */
export const runPiLoop: LoopRunner = async (turns: number): Promise<RunOutcome> => {
  const { counter, echo, streamFn } = setup(turns);
  const context = { systemPrompt: "", messages: [] as AgentMessage[], tools: [echo] };
  const messages = await runAgentLoop(
    [{ role: "user", content: "go", timestamp: Date.now() }],
    context,
    {
      model: BENCH_MODEL,
      convertToLlm: (messages) => messages as never,
      toolExecution: "parallel",
    },
    () => {},
    undefined,
    streamFn,
  );
  return outcomeOf(messages, counter.executions, counter.turns);
};
