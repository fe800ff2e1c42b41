/**
 * Tack: a Deno-native, plugin-based agent harness. A model writes text; Tack turns its
 * intent to call a tool into a real execution and feeds the result back.
 *
 * @example A weather agent on the scripted model
 * ```ts
 * import { createAgent, defineTool, scriptedModel, text, toolCall, Type } from "@tack/agent";
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
// The client loads at the first turn: importing `@tack/agent` for the plugin API stays light.
export { lazyOpenai as openai } from "./sdk/providers/openai/lazy_openai.ts";
export { OPENAI_BASE_URL, PLACEHOLDER_API_KEY } from "./sdk/providers/openai/check_options.ts";
export type { MaxTokensField, OpenAIOptions, ReasoningEffort } from "./sdk/providers/openai/mod.ts";
export { Type } from "./sdk/typebox.ts";
