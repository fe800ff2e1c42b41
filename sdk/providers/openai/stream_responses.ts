/**
 * One attempt at streaming a turn from the Responses API, mapped to the assistant
 * event protocol.
 *
 * @module
 */

import { APIError } from "@openai/openai";
import type OpenAI from "@openai/openai";
import type { ModelRequest } from "../../../core/model.ts";
import { toResponsesInput } from "./convert_responses_input.ts";
import { toFunctionTool } from "./convert_tools.ts";
import type { RequestSettings } from "./settings.ts";
import { IncompleteStreamError } from "./stream_error.ts";
import { onStreamRead, quote } from "./reply_fetch.ts";
import type { StreamingMessage } from "./streaming_message.ts";

type Params = OpenAI.Responses.ResponseCreateParamsStreaming;
type Event = OpenAI.Responses.ResponseStreamEvent;
type Response = OpenAI.Responses.Response;

/**
 * Builds the Responses API request body for a turn: the system prompt as
 * `instructions`, the transcript as `input`, tools as function tools.
 *
 * @param request The system prompt, transcript and tools.
 * @param settings The model and its knobs.
 * @returns The streaming request body.
 *
 * @example
 * ```ts
 * import { responsesParams } from "./stream_responses.ts";
 * import OpenAI from "@openai/openai";
 * import { equal } from "node:assert/strict";
 *
 * const params = responsesParams(
 *   { systemPrompt: "Be brief.", messages: [], tools: [] },
 *   {
 *     client: new OpenAI({ apiKey: "k" }), model: "gpt-test", baseURL: "https://x/v1",
 *     maxTokensField: "max_tokens", strictTools: true,
 *   },
 * );
 * equal(params.instructions, "Be brief.");
 * ```
 */
export function responsesParams(request: ModelRequest, settings: RequestSettings): Params {
  const params: Params = {
    model: settings.model,
    input: toResponsesInput(request),
    stream: true,
  };
  if (request.systemPrompt) params.instructions = request.systemPrompt;
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      type: "function" as const,
      ...toFunctionTool(tool, settings.strictTools),
    }));
  }
  if (settings.temperature !== undefined) params.temperature = settings.temperature;
  if (settings.maxTokens !== undefined) params.max_output_tokens = settings.maxTokens;
  if (settings.reasoningEffort !== undefined) {
    params.reasoning = { effort: settings.reasoningEffort, summary: "auto" };
  }
  return params;
}

function setUsage(out: StreamingMessage, response: Response): void {
  const usage = response.usage;
  if (!usage) return;
  out.setUsage({
    input: usage.input_tokens,
    output: usage.output_tokens,
    cached: usage.input_tokens_details?.cached_tokens,
  });
}

/** Maps events to blocks; returns `true` once the response has ended. */
function mapEvent(event: Event, out: StreamingMessage, baseURL: string): boolean {
  if (typeof event !== "object" || event === null) return false; // `data: null`
  switch (event.type) {
    case "response.output_item.added":
      if (event.item?.type === "function_call") {
        out.openToolCall(event.item.id ?? event.item.call_id, event.item.call_id, event.item.name);
      }
      return false;
    case "response.output_text.delta":
    case "response.refusal.delta":
      out.appendText(event.item_id, "text", event.delta);
      return false;
    case "response.reasoning_summary_part.added":
      // Summary parts are paragraphs of one reasoning block.
      if (event.summary_index > 0) out.appendText(`${event.item_id}:reasoning`, "thinking", "\n\n");
      return false;
    case "response.reasoning_summary_text.delta":
    case "response.reasoning_text.delta":
      out.appendText(`${event.item_id}:reasoning`, "thinking", event.delta);
      return false;
    case "response.function_call_arguments.delta":
      out.appendArguments(event.item_id, event.delta);
      return false;
    case "response.output_item.done": {
      const item = event.item;
      if (typeof item !== "object" || item === null) return false;
      if (item.type === "function_call") out.end(item.id ?? item.call_id, item.arguments);
      else if (item.type === "reasoning") out.end(`${item.id}:reasoning`);
      else if (item.type === "message") out.end(item.id);
      return false;
    }
    case "response.completed": {
      setUsage(out, event.response);
      const calls = out.message.content.some((block) => block.type === "toolCall");
      out.finish(calls ? "toolUse" : "stop");
      return true;
    }
    case "response.incomplete": {
      setUsage(out, event.response);
      const reason = event.response.incomplete_details?.reason;
      if (reason === "max_output_tokens") out.finish("length");
      else {out.fail(
          "error",
          `${baseURL}: the response is incomplete (${
            reason ? quote(String(reason)) : "no reason given"
          })`,
        );}
      return true;
    }
    case "response.failed": {
      setUsage(out, event.response);
      const error = event.response.error;
      throw new APIError(
        undefined,
        { message: error ? `${error.message} (${error.code})` : "the response failed" },
        undefined,
        undefined,
      );
    }
    default:
      return false;
  }
}

/**
 * Streams one attempt from the Responses API into `out`, ending the message with `done`
 * (or `error` for an incomplete answer). Throws what the request or the stream failed
 * with; returns quietly when aborted (the caller checks the signal).
 *
 * @param request The turn's request.
 * @param settings Client, model and knobs.
 * @param out The message being built.
 * @param signal Cancels the HTTP request.
 * @param onChunk Called whenever bytes arrive, comments included (the idle watchdog).
 * @returns Once the message has ended, or the stream stopped on abort.
 * @throws {Error} The client's error (HTTP status, connection, malformed chunk, an
 *   `error` or `response.failed` event), or {@linkcode IncompleteStreamError}.
 */
export async function streamResponses(
  request: ModelRequest,
  settings: RequestSettings,
  out: StreamingMessage,
  signal: AbortSignal,
  onChunk: () => void = () => {},
): Promise<void> {
  const { data: stream, response } = await settings.client.responses.create(
    responsesParams(request, settings),
    { signal },
  ).withResponse();
  onStreamRead(response, onChunk);
  out.start();
  for await (const event of stream) {
    onChunk();
    if (mapEvent(event, out, settings.baseURL)) return;
  }
  if (signal.aborted) return;
  throw new IncompleteStreamError();
}
