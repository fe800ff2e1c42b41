/**
 * Tack: a Deno-native, plugin-based agent harness. A model writes text; Tack turns its
 * intent to call a tool into a real execution and feeds the result back.
 *
 * @example A weather agent on the scripted model
 * ```ts
 * import { createAgent, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
 * import { Type } from "typebox";
 * import { equal } from "node:assert/strict";
 *
 * const weather = defineTool({
 *   name: "get_weather",
 *   description: "Current weather for a city",
 *   parameters: Type.Object({ city: Type.String() }),
 *   execute: ({ city }) => ({ content: [{ type: "text", text: `Sunny in ${city}` }] }),
 * });
 * const agent = createAgent({
 *   model: scriptedModel([[toolCall("get_weather", { city: "Paris" })], [text("It is sunny.")]]),
 *   tools: [weather],
 * });
 * await agent.prompt("What's the weather in Paris?");
 * equal(agent.messages.at(-1)?.role, "assistant");
 * ```
 *
 * @module
 */

export * from "./sdk/mod.ts";
export {
  type RecordedRequest,
  type ScriptedBlock,
  type ScriptedModel,
  scriptedModel,
  type ScriptedModelOptions,
  type ScriptedTurn,
  type ScriptStep,
  text,
  thinking,
  toolCall,
} from "./sdk/testing.ts";
export {
  type MaxTokensField,
  openai,
  OPENAI_BASE_URL,
  type OpenAIOptions,
  PLACEHOLDER_API_KEY,
  type ReasoningEffort,
} from "./sdk/providers/openai/mod.ts";
