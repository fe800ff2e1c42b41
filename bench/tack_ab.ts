/**
 * Tack on the loop workload, at two API levels: `createAgent` (the stateful agent, as pi's
 * `Agent`) and `runLoop` (the bare loop, as pi's `runAgentLoop`). Both use `scriptedModel`,
 * one tool defined with `defineTool` (TypeBox schema) whose `execute` is asynchronous (it
 * returns a promise, as pi's does), default parallel execution, no listeners.
 *
 * @module
 */

import {
  createAgent,
  defineTool,
  type Message,
  runLoop,
  scriptedModel,
  text,
  type Tool,
  toolCall,
} from "../mod.ts";
import { Type } from "typebox";
import {
  callsOfTurn,
  FINAL_TEXT,
  type LoopRunner,
  type RunOutcome,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  TOOL_RESULT,
} from "./workload.ts";

function setup(turns: number) {
  const counter = { executions: 0 };
  const parameters = Type.Object({ value: Type.String() }, { additionalProperties: false });
  const echo: Tool<typeof parameters> = defineTool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters,
    execute: () => {
      counter.executions++;
      return Promise.resolve({ content: [{ type: "text" as const, text: TOOL_RESULT }] });
    },
  });
  let turn = 0;
  const step = () => {
    const current = turn++;
    if (current === turns) return [text(FINAL_TEXT)];
    return callsOfTurn(current).map((call) => toolCall(call.name, call.arguments, call.id));
  };
  const model = scriptedModel(Array.from({ length: turns + 1 }, () => step));
  return { counter, echo, model };
}

function outcomeOf(
  messages: readonly Message[],
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
 * Runs the workload on Tack's `createAgent`.
 *
 * @param turns Tool turns before the final answer.
 * @returns What the run did.
 */
export const runTack: LoopRunner = async (turns: number): Promise<RunOutcome> => {
  const { counter, echo, model } = setup(turns);
  const agent = createAgent({ model, tools: [echo], maxTurns: turns + 1 });
  await agent.prompt("go");
  return outcomeOf(agent.messages, counter.executions, model.requests.length);
};

/**
 * Runs the workload on Tack's bare `runLoop` (no `Agent`).
 *
 * @param turns Tool turns before the final answer.
 * @returns What the run did.
 */
export const runTackLoop: LoopRunner = async (turns: number): Promise<RunOutcome> => {
  const { counter, echo, model } = setup(turns);
  const state = { systemPrompt: "", messages: [] as Message[], tools: [echo] };
  await runLoop({
    state,
    prompts: [{ role: "user", content: "go", timestamp: Date.now() }],
    config: { model, maxTurns: turns + 1 },
    signal: new AbortController().signal,
    emit: () => {},
  });
  return outcomeOf(state.messages, counter.executions, model.requests.length);
};
