/**
 * The resolved settings one request is made with.
 *
 * @module
 */

import type OpenAI from "@openai/openai";

/** How much the model should reason (`reasoning_effort` / `reasoning.effort`). */
export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh";

/** Which field carries the output token limit on the Chat Completions API. */
export type MaxTokensField = "max_completion_tokens" | "max_tokens";

/** What a streaming function needs besides the request: the client and the model's knobs. */
export interface RequestSettings {
  readonly client: OpenAI;
  readonly model: string;
  readonly baseURL: string;
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly maxTokensField: MaxTokensField;
  readonly reasoningEffort?: ReasoningEffort;
  readonly strictTools: boolean;
}
