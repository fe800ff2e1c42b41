/**
 * `replayModel`: a model that plays a cassette's turns and checks that the agent asks
 * exactly what was recorded.
 *
 * @module
 */

import type { AssistantMessageEvent } from "../../core/assistant_message_event.ts";
import { AssistantMessageStream } from "../../core/assistant_message_stream.ts";
import { type AssistantMessage, emptyUsage } from "../../core/messages.ts";
import type { Model } from "../../core/model.ts";
import {
  type CassetteLine,
  firstDifference,
  parseCassette,
  type RecordedEvent,
  type RecordedModelRequest,
  recordedRequest,
} from "./cassette.ts";

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/**
 * The divergence error's text: which turn, which message (index and role) or part of the
 * request, which field, and both values.
 *
 * @param turn The model turn (0-based).
 * @param recorded The recorded request.
 * @param actual The request now.
 * @returns The text, or `undefined` when they agree (timestamps aside).
 *
 * @example
 * ```ts
 * import { describeDivergence } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const base = { systemPrompt: "", tools: [], messages: [{ role: "user", content: "hi", timestamp: 1 }] };
 * equal(
 *   describeDivergence(0, base, { ...base, messages: [{ role: "user", content: "ho", timestamp: 2 }] }),
 *   'Replay diverged at model turn 0: message 0 (user), field content: recorded "hi", got "ho"',
 * );
 * ```
 */
export function describeDivergence(
  turn: number,
  recorded: RecordedModelRequest,
  actual: RecordedModelRequest,
): string | undefined {
  const found = firstDifference(recorded, actual);
  if (!found) return undefined;
  const match = /^messages\[(\d+)\]\.?(.*)$/.exec(found.path);
  let where = `field ${found.path}`;
  if (match) {
    const index = Number(match[1]);
    const message = (actual.messages[index] ?? recorded.messages[index]) as { role?: string };
    where = match[2]
      ? `message ${index} (${message?.role}), field ${match[2]}`
      : `message ${index} (${message?.role}) is ${
        index >= recorded.messages.length ? "not in the recording" : "missing"
      }`;
  }
  return `Replay diverged at model turn ${turn}: ${where}: recorded ${short(found.recorded)}, ` +
    `got ${short(found.actual)}`;
}

/** Replays recorded events, rebuilding each one's `partial` as the stream goes. */
function play(stream: AssistantMessageStream, events: RecordedEvent[], final: AssistantMessage) {
  const partial: AssistantMessage = { ...final, content: [] };
  for (const recorded of events) {
    const event = { ...recorded } as Record<string, unknown>;
    const index = event.contentIndex as number;
    switch (recorded.type) {
      case "text_start":
        partial.content[index] = { type: "text", text: "" };
        break;
      case "thinking_start":
        partial.content[index] = { type: "thinking", thinking: "" };
        break;
      case "toolcall_start":
        partial.content[index] = structuredClone(final.content[index]);
        break;
      case "text_delta": {
        const block = partial.content[index];
        if (block?.type === "text") block.text += event.delta as string;
        break;
      }
      case "thinking_delta": {
        const block = partial.content[index];
        if (block?.type === "thinking") block.thinking += event.delta as string;
        break;
      }
      case "text_end":
      case "thinking_end":
      case "toolcall_end":
        partial.content[index] = structuredClone(final.content[index]);
        break;
    }
    if (recorded.type === "done") event.message = final;
    else if (recorded.type === "error") event.error = final;
    else event.partial = partial;
    stream.push(event as unknown as AssistantMessageEvent);
  }
  if (!stream.ended) {
    stream.push(
      final.stopReason === "error" || final.stopReason === "aborted"
        ? { type: "error", reason: final.stopReason, error: final }
        : { type: "done", reason: final.stopReason, message: final },
    );
  }
}

/** A model replaying a cassette, with the turns it has played. */
export interface ReplayModel extends Model {
  /** How many turns it has played. */
  readonly turns: number;
}

/**
 * A model that replays a cassette's model turns in order, deterministically and offline.
 * Each turn's request must equal the recorded one (timestamps aside); otherwise the turn
 * ends with `stopReason: "error"` and an `errorMessage` naming the turn, the message and
 * the field (`describeDivergence`). Past the cassette's last turn, the turn errors too.
 *
 * @param cassette JSONL text or parsed lines (from `createRecorder`).
 * @returns The model, named like the recorded one.
 *
 * @example Record, then replay
 * ```ts
 * import { createAgent, createRecorder, replayModel, scriptedModel, text } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const recorder = createRecorder();
 * await createAgent({ model: recorder.model(scriptedModel([[text("hi")]])) }).prompt("hello");
 * const replayed = await createAgent({ model: replayModel(await recorder.toJsonl()) }).prompt("hello");
 * const last = replayed.at(-1);
 * equal(last?.role === "assistant" && last.content[0].type === "text" && last.content[0].text, "hi");
 * ```
 */
export function replayModel(cassette: string | readonly CassetteLine[]): ReplayModel {
  const lines = typeof cassette === "string" ? parseCassette(cassette) : cassette;
  const meta = lines.find((line) => line.type === "meta");
  const requests = new Map<number, RecordedModelRequest>();
  const responses = new Map<number, Extract<CassetteLine, { type: "model_response" }>>();
  for (const line of lines) {
    if (line.type === "model_request") requests.set(line.turn, line.request);
    if (line.type === "model_response") responses.set(line.turn, line);
  }
  const provider = meta?.type === "meta" ? meta.provider : "replay";
  const id = meta?.type === "meta" ? meta.model : "replay";
  let turn = 0;
  const fail = (stream: AssistantMessageStream, errorMessage: string) => {
    const error: AssistantMessage = {
      role: "assistant",
      content: [],
      stopReason: "error",
      errorMessage,
      usage: emptyUsage(),
      provider,
      model: id,
      timestamp: Date.now(),
    };
    stream.push({ type: "error", reason: "error", error });
  };
  return {
    provider,
    id,
    get turns() {
      return turn;
    },
    stream(request) {
      const current = turn++;
      const stream = new AssistantMessageStream();
      const recorded = requests.get(current);
      const response = responses.get(current);
      if (!recorded || !response) {
        fail(
          stream,
          `Replay ran past the cassette: it has ${responses.size} model turns, and the agent ` +
            `asked for turn ${current}`,
        );
        return stream;
      }
      const divergence = describeDivergence(current, recorded, recordedRequest(request));
      if (divergence) fail(stream, divergence);
      else play(stream, response.events, response.message);
      return stream;
    },
  };
}
