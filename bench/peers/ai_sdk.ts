/**
 * The Vercel `ai` SDK on the loop workload: `streamText` with a `MockLanguageModelV4` from
 * `ai/test` whose `doStream` emits, per call, the parts a real provider emits
 * (tool-input-start/delta/end, tool-call), then `finish`; `stopWhen: stepCountIs(turns + 1)`;
 * one `tool()` with a zod input schema. Same calls, same trivial tool body.
 *
 * @module
 */

import { stepCountIs, streamText, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
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

type Part = Parameters<ReadableStreamDefaultController["enqueue"]>[0];

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

function partsOfTurn(turn: number, turns: number): Part[] {
  const parts: Part[] = [{ type: "stream-start", warnings: [] }];
  if (turn === turns) {
    parts.push(
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: FINAL_TEXT },
      { type: "text-end", id: "t" },
      { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
    );
    return parts;
  }
  for (const call of callsOfTurn(turn)) {
    const input = JSON.stringify(call.arguments);
    parts.push(
      { type: "tool-input-start", id: call.id, toolName: call.name },
      { type: "tool-input-delta", id: call.id, delta: input },
      { type: "tool-input-end", id: call.id },
      { type: "tool-call", toolCallId: call.id, toolName: call.name, input },
    );
  }
  parts.push({ type: "finish", usage, finishReason: { unified: "tool-calls", raw: "tool_calls" } });
  return parts;
}

/**
 * Runs the workload on the `ai` SDK.
 *
 * @param turns Tool turns before the final answer.
 * @returns What the run did.
 */
export const runAiSdk: LoopRunner = async (turns: number): Promise<RunOutcome> => {
  let executions = 0;
  let turn = 0;
  const model = new MockLanguageModelV4({
    doStream: () => {
      // The mock records every call's options (each step's whole prompt); drop them so the
      // test double's bookkeeping is not counted as the framework's memory or time.
      model.doStreamCalls.length = 0;
      const parts = partsOfTurn(turn++, turns);
      const stream = new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      });
      return Promise.resolve({ stream });
    },
  });
  const result = streamText({
    model,
    prompt: "go",
    stopWhen: stepCountIs(turns + 1),
    tools: {
      [TOOL_NAME]: tool({
        description: TOOL_DESCRIPTION,
        inputSchema: z.object({ value: z.string() }).strict(),
        execute: () => {
          executions++;
          return TOOL_RESULT;
        },
      }),
    },
  });
  await result.consumeStream();
  const steps = await result.steps;
  let toolResults = 0;
  const transcript: unknown[] = [{ role: "user", content: "go" }];
  for (const step of steps) {
    toolResults += step.toolResults.length;
    for (const message of step.response.messages) {
      // A step's tool results come as one `tool` message; count one per result, as the
      // other frameworks store them, so transcript sizes compare.
      if (message.role === "tool") transcript.push(...message.content);
      else transcript.push(message);
    }
  }
  return {
    executions,
    modelTurns: turn,
    toolResults,
    finalText: await result.text,
    transcript,
  };
};
