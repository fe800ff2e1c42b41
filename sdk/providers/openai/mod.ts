/**
 * The OpenAI-compatible provider: `openai({ model, baseURL?, apiKey?, api? })` returns a
 * {@linkcode Model} for `createAgent`, on the Chat Completions API (what OpenAI, Ollama,
 * vLLM, LM Studio, OpenRouter and others speak) or the Responses API. The converters,
 * the streaming JSON parser and the retry policy are exported for reuse and tests.
 *
 * @example An agent on a local server
 * ```ts
 * import { createAgent } from "@tack/agent";
 * import { openai } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * const agent = createAgent({
 *   model: openai({ model: "qwen3", baseURL: "http://127.0.0.1:8000/v1", maxRetries: 1 }),
 * });
 * equal(agent.messages.length, 0);
 * ```
 *
 * @module
 */

export type {
  Model,
  ModelRequest,
  StreamFn,
  StreamOptions,
  ToolSpec,
} from "../../../core/model.ts";
export type {
  AssistantMessage,
  ImageContent,
  Message,
  ResultTruncation,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "../../../core/messages.ts";
export type { JsonSchema } from "../../../core/schema.ts";
export type { AssistantMessageEventStream } from "../../../core/assistant_message_stream.ts";
export type { AssistantMessageEvent } from "../../../core/assistant_message_event.ts";
export { ABORTED_MESSAGE } from "./stream_turn.ts";
export { openai, OPENAI_BASE_URL, type OpenAIOptions, PLACEHOLDER_API_KEY } from "./openai.ts";
export type { MaxTokensField, ReasoningEffort } from "./settings.ts";
export {
  type ChatMessage,
  dataUrl,
  EMPTY_RESULT_TEXT,
  IMAGE_RESULT_TEXT,
  RESULT_IMAGES_TEXT,
  type ResultBatch,
  resultBatch,
  toChatMessages,
  toolResultText,
} from "./convert_messages.ts";
export { type ResponsesInputItem, toResponsesInput } from "./convert_responses_input.ts";
export { MISSING_RESULT_TEXT, normalizeHistory } from "./normalize_history.ts";
export { type FunctionTool, toFunctionTool, toStrictSchema } from "./convert_tools.ts";
export { parseFinalToolArguments, parseToolArguments, PartialJsonParser } from "./partial_json.ts";
export {
  DEFAULT_RETRY_POLICY,
  isConnectionTypeError,
  isRetryable,
  retryAfterMs,
  retryDelayMs,
  type RetryPolicy,
} from "./retry.ts";
export { sleep } from "../../sleep.ts";
export { describeError, type ErrorContext } from "./describe_error.ts";
export {
  errorBodyOf,
  NotAStreamError,
  onStreamRead,
  quote,
  QUOTED_BODY_CHARS,
  replyFetch,
} from "./reply_fetch.ts";
export { MAX_REDIRECTS, RedirectRefusedError, sameOriginFetch } from "./same_origin_fetch.ts";
export { IncompleteStreamError, StalledStreamError } from "./stream_error.ts";
export {
  defaultMaxResponseBytes,
  MIN_DEFAULT_RESPONSE_BYTES,
  RESPONSE_LIMITS,
  type ResponseLimitName,
  type ResponseLimits,
  ResponseTooLargeError,
} from "./response_limits.ts";
export { MAX_REPORTED_TOKENS, tokenCount } from "./token_count.ts";
export {
  boundEventStream,
  type EventStreamBounds,
  isBodyReadFailure,
} from "./bounded_event_stream.ts";
export { mapFinishReason } from "./stream_chat_completions.ts";
export { MIN_REDACTED_CHARS, redactor, withoutUserinfo } from "./redact.ts";
