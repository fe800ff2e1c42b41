/**
 * The OpenAI-compatible provider: a {@linkcode Model} on the Chat Completions or
 * Responses API, for OpenAI and the servers that speak its protocol.
 *
 * @module
 */

import OpenAI from "@openai/openai";
import { AssistantMessageStream } from "../../../core/assistant_message_stream.ts";
import type { Model, ModelRequest, StreamOptions } from "../../../core/model.ts";
import { replyFetch } from "./reply_fetch.ts";
import { redactor, withoutUserinfo } from "./redact.ts";
import {
  defaultMaxResponseBytes,
  RESPONSE_LIMITS,
  type ResponseLimits,
} from "./response_limits.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.ts";
import type { MaxTokensField, ReasoningEffort, RequestSettings } from "./settings.ts";
import { streamChatCompletions } from "./stream_chat_completions.ts";
import { streamResponses } from "./stream_responses.ts";
import { StreamingMessage } from "./streaming_message.ts";
import { streamTurn } from "./stream_turn.ts";
import { permittedEnv, withPermittedEnv } from "../../permitted_env.ts";
import { hostMay } from "../../sandbox/host_may.ts";

import {
  checkOpenAIOptions,
  isHttpURL,
  OPENAI_BASE_URL,
  PLACEHOLDER_API_KEY,
} from "./check_options.ts";
import { thrownText } from "../../../core/thrown_text.ts";

export { OPENAI_BASE_URL, PLACEHOLDER_API_KEY };

/** Options of {@linkcode openai}. */
export interface OpenAIOptions {
  /** The model name at the server (`"gpt-4.1"`, `"llama3.2"`, …). */
  model: string;
  /** The API's base URL. Default: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  baseURL?: string;
  /** The API key. Default: `OPENAI_API_KEY`; a placeholder when a base URL is given without one. */
  apiKey?: string;
  /** `"chat"` (Chat Completions, the default: what compatible servers speak) or `"responses"`. */
  api?: "chat" | "responses";
  /** Extra HTTP headers on every request. */
  headers?: Record<string, string>;
  /** Retries on 429, 5xx and connection failures before any output arrived (default 2). */
  maxRetries?: number;
  /** First retry backoff in ms, doubled each retry, with jitter (default 500). */
  retryBaseDelayMs?: number;
  /** Longest retry backoff in ms (default 8 000). */
  retryMaxDelayMs?: number;
  /** A longer `Retry-After` than this (ms) is reported instead of waited for (default 60 000). */
  maxRetryAfterMs?: number;
  /** Sampling temperature. */
  temperature?: number;
  /** Output token limit. */
  maxTokens?: number;
  /** Chat only: the field for `maxTokens`. Default `max_completion_tokens` on api.openai.com, else `max_tokens`. */
  maxTokensField?: MaxTokensField;
  /** Reasoning effort, for models that reason. */
  reasoningEffort?: ReasoningEffort;
  /** Ask for strict function calling where a tool's schema allows it (default `true`). */
  strictTools?: boolean;
  /** Per-request timeout in ms (the client's default is 10 minutes). */
  timeoutMs?: number;
  /**
   * Abort an attempt when no data has arrived for this long (ms), and report (or retry,
   * before any output) a stalled stream. Any bytes count, keep-alive comments
   * (`: OPENROUTER PROCESSING`) too. Off by default: reasoning models can be silent
   * for minutes before their first token.
   */
  idleTimeoutMs?: number;
  /**
   * End a turn whose text, reasoning and tool calls (names, ids, arguments) pass this many
   * characters together (default 10,000,000): a server streaming text or tool calls without
   * end cannot fill the memory.
   */
  maxResponseChars?: number;
  /** End a turn whose response holds more tool calls than this (default 1,000). */
  maxToolCalls?: number;
  /**
   * End a turn once its response body passes this many bytes, framing included, counting
   * what counts for nothing too (empty deltas, `: ping` comments): a server streaming
   * without end cannot keep a turn going. Default: 10 bytes per `maxResponseChars`
   * character, at least 100,000,000. Per request: a retry starts again from 0.
   */
  maxResponseBytes?: number;
  /**
   * End a turn once one server-sent event (a line, or `data:` lines up to the blank line
   * that ends them) passes this many bytes: the client holds an event whole until it ends
   * (default 10 MiB, 10,485,760).
   */
  maxEventBytes?: number;
  /** The `fetch` to send requests with (a proxy, a recorder). Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/** Reads an environment variable, as `undefined` when unset, empty or not permitted (no prompt). */
function readEnv(name: string): string | undefined {
  const value = permittedEnv(name);
  return value === "" ? undefined : value;
}

type Resolved = { settings: RequestSettings } | { error: string };

function resolve(options: OpenAIOptions, limits: ResponseLimits): Resolved {
  const envBase = options.baseURL === undefined ? readEnv("OPENAI_BASE_URL") : undefined;
  const baseURL = (options.baseURL ?? envBase ?? OPENAI_BASE_URL).replace(/\/+$/, "");
  if (!isHttpURL(baseURL)) {
    return {
      error: `OPENAI_BASE_URL "${envBase}" is not an http(s) URL (like http://127.0.0.1:11434/v1)`,
    };
  }
  const official = new URL(baseURL).host === "api.openai.com";
  let apiKey = options.apiKey ?? readEnv("OPENAI_API_KEY");
  if (apiKey === undefined) {
    if (official) {
      return {
        error: "No OpenAI API key: set OPENAI_API_KEY (and allow reading it with " +
          "--allow-env=OPENAI_API_KEY), pass apiKey, or point baseURL at a local server",
      };
    }
    apiKey = PLACEHOLDER_API_KEY;
  }
  const redact = redactor(apiKey === PLACEHOLDER_API_KEY ? undefined : apiKey, options.headers);
  // The client reads more variables as it starts (OPENAI_ORG_ID, …): those the host may read.
  const client = withPermittedEnv(() =>
    new OpenAI({
      apiKey,
      baseURL,
      maxRetries: 0, // ours: only before any output arrived
      logLevel: "off", // failures end up in the message instead
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
      ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
      // Keeps the text of replies that are not streams; bounds the bytes of those that are.
      fetch: replyFetch(options.fetch, limits, redact),
    })
  );
  return {
    settings: {
      client,
      model: options.model,
      baseURL: withoutUserinfo(baseURL),
      redact,
      // The default was used, though the variable may name another server: errors say so.
      unreadBaseURL: envBase === undefined && options.baseURL === undefined &&
        !hostMay({ name: "env", variable: "OPENAI_BASE_URL" }),
      temperature: options.temperature,
      maxTokens: options.maxTokens,
      maxTokensField: options.maxTokensField ??
        (official ? "max_completion_tokens" : "max_tokens"),
      reasoningEffort: options.reasoningEffort,
      strictTools: options.strictTools ?? true,
      timeoutMs: options.timeoutMs,
    },
  };
}

/**
 * A model on an OpenAI-compatible API. Streams each turn as the assistant event protocol
 * (text, thinking where the server sends it, tool calls with arguments parsed as they
 * stream), fills usage, and never throws: a failure ends the message with
 * `stopReason: "error"` and a message that says what to fix, an abort with
 * `stopReason: "aborted"`. Requests that fail with 429, 5xx or a connection error before
 * any output arrived are retried with backoff and jitter (honouring `Retry-After`).
 *
 * `baseURL` and `apiKey` default to `OPENAI_BASE_URL` and `OPENAI_API_KEY`, read at the
 * first turn (without `--allow-env` they count as unset), so Ollama, vLLM, LM Studio,
 * OpenRouter and other compatible servers work by setting the base URL.
 *
 * @param options The model, endpoint, key and knobs.
 * @returns The model, for `createAgent`.
 * @throws {TypeError} When `model` is empty or `baseURL` is not an http(s) URL (a bad
 *   `OPENAI_BASE_URL` is reported in the first turn's message instead).
 *
 * @example A local Ollama model
 * ```ts
 * import { createAgent } from "@tack/agent";
 * import { openai } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * const model = openai({ model: "llama3.2", baseURL: "http://127.0.0.1:11434/v1" });
 * const agent = createAgent({ model });
 * equal(model.provider, "openai");
 * equal(model.id, "llama3.2");
 * ```
 */
export function openai(options: OpenAIOptions): Model {
  checkOpenAIOptions(options);
  const policy: RetryPolicy = {
    maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    baseDelayMs: options.retryBaseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
    maxDelayMs: options.retryMaxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
  };
  const maxChars = options.maxResponseChars ?? RESPONSE_LIMITS.maxChars;
  const limits: ResponseLimits = {
    maxChars,
    maxToolCalls: options.maxToolCalls ?? RESPONSE_LIMITS.maxToolCalls,
    maxBytes: options.maxResponseBytes ?? defaultMaxResponseBytes(maxChars),
    maxEventBytes: options.maxEventBytes ?? RESPONSE_LIMITS.maxEventBytes,
  };
  const attempt = options.api === "responses" ? streamResponses : streamChatCompletions;
  let settings: RequestSettings | undefined; // kept once resolved; errors are retried next turn

  async function run(
    request: ModelRequest,
    signal: AbortSignal | undefined,
    out: StreamingMessage,
  ): Promise<void> {
    if (!settings) {
      let resolved: Resolved;
      try {
        resolved = resolve(options, limits);
      } catch (error) {
        const text = thrownText(error);
        return out.fail("error", `Cannot configure the openai model: ${text}`);
      }
      if ("error" in resolved) return out.fail("error", resolved.error);
      settings = resolved.settings;
    }
    await streamTurn(request, signal, out, {
      attempt,
      settings,
      policy,
      idleTimeoutMs: options.idleTimeoutMs,
    });
  }

  return {
    provider: "openai",
    id: options.model,
    stream(request: ModelRequest, { signal }: StreamOptions = {}): AssistantMessageStream {
      const stream = new AssistantMessageStream();
      const out = new StreamingMessage(stream, options.model, limits, request.messages);
      run(request, signal, out).catch((error) => {
        // A bug of ours: still end the stream, as the contract demands.
        if (!stream.ended) {
          out.fail("error", `Cannot stream from the openai model: ${thrownText(error)}`);
        }
      });
      return stream;
    },
  };
}
