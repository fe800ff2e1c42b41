/**
 * Tack on the loop workload: `createAgent` + `scriptedModel`, one tool defined with
 * `defineTool` (TypeBox schema), default parallel execution, no listeners.
 *
 * @module
 */

import { createAgent, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
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

/**
 * Runs the workload on Tack.
 *
 * @param turns Tool turns before the final answer.
 * @returns What the run did.
 */
export const runTack: LoopRunner = async (turns: number): Promise<RunOutcome> => {
  let executions = 0;
  const echo = defineTool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: Type.Object({ value: Type.String() }, { additionalProperties: false }),
    execute: () => {
      executions++;
      return { content: [{ type: "text", text: TOOL_RESULT }] };
    },
  });
  let turn = 0;
  const step = () => {
    const current = turn++;
    if (current === turns) return [text(FINAL_TEXT)];
    return callsOfTurn(current).map((call) => toolCall(call.name, call.arguments, call.id));
  };
  const model = scriptedModel(Array.from({ length: turns + 1 }, () => step));
  const agent = createAgent({ model, tools: [echo], maxTurns: turns + 1 });
  await agent.prompt("go");
  let toolResults = 0;
  for (const message of agent.messages) if (message.role === "toolResult") toolResults++;
  const last = agent.messages.at(-1);
  const finalText = last?.role === "assistant" && last.content[0]?.type === "text"
    ? last.content[0].text
    : "";
  return {
    executions,
    modelTurns: model.requests.length,
    toolResults,
    finalText,
    transcript: agent.messages,
  };
};
