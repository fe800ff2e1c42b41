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
  /** The `openai` client, with its own retries off. */
  readonly client: OpenAI;
  /** The model name at the server. */
  readonly model: string;
  /** The base URL, without a trailing slash nor `user:password@` (for error texts). */
  readonly baseURL: string;
  /** No `baseURL` was given and this process may not read `OPENAI_BASE_URL` (for error texts). */
  readonly unreadBaseURL?: boolean;
  /** Sampling temperature, if set. */
  readonly temperature?: number;
  /** Output token limit, if set. */
  readonly maxTokens?: number;
  /** Chat only: the field that carries `maxTokens`. */
  readonly maxTokensField: MaxTokensField;
  /** Reasoning effort, if set. */
  readonly reasoningEffort?: ReasoningEffort;
  /** Ask for strict function calling where a schema allows it. */
  readonly strictTools: boolean;
  /** Takes the API key and custom header values out of a text (for error texts). */
  readonly redact?: (text: string) => string;
  /** The per-request timeout the client was given, if any (for error texts). */
  readonly timeoutMs?: number;
}
