/**
 * `@openai/agents` on the loop workload: an `Agent` with a custom `Model` whose
 * `getStreamedResponse` yields `response_started`, one raw model event per call's argument
 * delta (as the Responses API streams them), then `response_done` with the turn's
 * `function_call` items; `run(agent, "go", { stream: true, maxTurns })`; one `tool()` with a
 * zod schema; tracing disabled (it would try the network). Same calls, same tool body.
 *
 * @module
 */

import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from "@openai/agents";
import { z } from "zod";
import {
  callsOfTurn,
  FINAL_TEXT,
  type LoopRunner,
  type RunOutcome,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  TOOL_RESULT,
} from "../workload.ts";

type StreamEvent = Parameters<NonNullable<Model["getStreamedResponse"]>> extends [unknown]
  ? ReturnType<Model["getStreamedResponse"]> extends AsyncIterable<infer E> ? E : never
  : never;

type OutputItem = Extract<StreamEvent, { type: "response_done" }>["response"]["output"][number];

function outputOfTurn(turn: number, turns: number): OutputItem[] {
  if (turn === turns) {
    return [{
      type: "message",
      id: `msg_${turn}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: FINAL_TEXT }],
    }];
  }
  return callsOfTurn(turn).map((call): OutputItem => ({
    type: "function_call" as const,
    id: `fc_${call.id}`,
    callId: call.id,
    name: call.name,
    status: "completed" as const,
    arguments: JSON.stringify(call.arguments),
  }));
}

/**
 * Runs the workload on `@openai/agents`.
 *
 * @param turns Tool turns before the final answer.
 * @returns What the run did.
 */
export const runOpenAIAgents: LoopRunner = async (turns: number): Promise<RunOutcome> => {
  setTracingDisabled(true);
  let executions = 0;
  let turn = 0;
  const model: Model = {
    getResponse(_request: ModelRequest): Promise<ModelResponse> {
      const current = turn++;
      return Promise.resolve({
        usage: new Usage(),
        output: outputOfTurn(current, turns),
        responseId: `resp_${current}`,
      });
    },
    async *getStreamedResponse(_request: ModelRequest): AsyncIterable<StreamEvent> {
      const current = turn++;
      const output = outputOfTurn(current, turns);
      yield { type: "response_started" };
      for (const item of output) {
        if (item.type === "function_call") {
          yield {
            type: "model",
            event: { type: "response.function_call_arguments.delta", delta: item.arguments },
          };
        } else {
          yield { type: "output_text_delta", delta: FINAL_TEXT };
        }
      }
      yield {
        type: "response_done",
        response: {
          id: `resp_${current}`,
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          output,
        },
      };
    },
  };
  const agent = new Agent({
    name: "bench",
    model,
    tools: [tool({
      name: TOOL_NAME,
      description: TOOL_DESCRIPTION,
      parameters: z.object({ value: z.string() }).strict(),
      execute: () => {
        executions++;
        return TOOL_RESULT;
      },
    })],
  });
  const result = await run(agent, "go", { stream: true, maxTurns: turns + 1 });
  await result.completed;
  if (result.error) throw result.error;
  const history = result.history;
  let toolResults = 0;
  // History holds each call as its own item; fold a turn's run of function_call items into
  // one assistant entry so the transcript counts messages as the other frameworks do.
  const transcript: unknown[] = [];
  let previous: string | undefined;
  for (const item of history) {
    if (item.type === "function_call_result") toolResults++;
    if (!(item.type === "function_call" && previous === "function_call")) transcript.push(item);
    previous = item.type;
  }
  return {
    executions,
    modelTurns: turn,
    toolResults,
    finalText: String(result.finalOutput ?? ""),
    transcript,
  };
};
