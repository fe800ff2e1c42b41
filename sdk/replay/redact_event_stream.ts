/**
 * Redacting a recorded event stream (server-sent events) as a whole: a secret the server
 * streamed across several events is found in the text they make together, not missed in
 * the pieces.
 *
 * @module
 */

import { redactSecrets } from "./cassette.ts";

/** One streamed piece: the object holding it, its field, and which text it belongs to. */
interface Piece {
  holder: Record<string, unknown>;
  field: string;
  text: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The streamed pieces of one event, each with the key of the text it belongs to. */
function piecesOf(event: Json): [string, Piece][] {
  const found: [string, Piece][] = [];
  const add = (key: string, holder: Json, field: string) => {
    const text = holder[field];
    if (typeof text === "string") found.push([key, { holder, field, text }]);
  };
  // Chat Completions: choices[i].delta.content / reasoning, tool_calls[j].function.arguments.
  if (Array.isArray(event.choices)) {
    for (const choice of event.choices) {
      if (!isObject(choice) || !isObject(choice.delta)) continue;
      const at = String(choice.index ?? 0);
      for (const field of ["content", "reasoning_content", "reasoning"]) {
        add(`${at}:${field}`, choice.delta, field);
      }
      const calls = Array.isArray(choice.delta.tool_calls) ? choice.delta.tool_calls : [];
      for (const call of calls) {
        if (isObject(call) && isObject(call.function)) {
          add(`${at}:call:${call.index ?? call.id ?? 0}`, call.function, "arguments");
        }
      }
    }
  }
  // Responses: `….delta` events, keyed by their item and part.
  if (typeof event.type === "string" && event.type.endsWith(".delta")) {
    add(
      `${event.type}:${event.item_id ?? event.output_index}:${event.content_index ?? ""}`,
      event,
      "delta",
    );
  }
  return found;
}

/** A text redacted whole: JSON arguments by key too (`{"password": …}`). */
function redactWhole(text: string): string {
  if (/^\s*\{/.test(text)) {
    try {
      return JSON.stringify(redactSecrets(JSON.parse(text)));
    } catch { /* not JSON: its text */ }
  }
  return redactSecrets(text);
}

/**
 * A recorded event stream with its secrets redacted: each event's JSON by key and pattern,
 * and each text the events stream in pieces (a message's content, a tool call's arguments)
 * as a whole: when the whole changes, its first piece holds the redacted whole and the
 * others are emptied, so a replay streams the same redacted text.
 *
 * @param body The stream as the server sent it.
 * @returns The stream to keep.
 *
 * @example A key streamed in two pieces
 * ```ts
 * import { redactEventStream } from "./redact_event_stream.ts";
 * import { equal } from "node:assert/strict";
 *
 * const event = (content: string) =>
 *   `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
 * const kept = redactEventStream(event("key: sk-abcd") + event("efgh1234") + "data: [DONE]\n\n");
 * equal(kept.includes("efgh1234"), false);
 * equal(kept.includes("key: [redacted]"), true);
 * ```
 */
export function redactEventStream(body: string): string {
  const blocks = body.split(/(\r?\n\r?\n)/);
  const events: { at: number; prefix: string; json: Json }[] = [];
  const texts = new Map<string, Piece[]>();
  blocks.forEach((block, at) => {
    const match = /^((?:[^\n]*\n)*?data: ?)(\{[^]*\})$/.exec(block);
    if (!match) return;
    let json: unknown;
    try {
      json = JSON.parse(match[2]);
    } catch {
      return;
    }
    if (!isObject(json)) return;
    events.push({ at, prefix: match[1], json });
    for (const [key, piece] of piecesOf(json)) {
      const list = texts.get(key) ?? [];
      list.push(piece);
      texts.set(key, list);
    }
  });
  for (const pieces of texts.values()) {
    const whole = pieces.map((piece) => piece.text).join("");
    const redacted = redactWhole(whole);
    if (redacted === whole) continue;
    pieces.forEach((piece, i) => (piece.holder[piece.field] = i === 0 ? redacted : ""));
  }
  for (const { at, prefix, json } of events) {
    // The rest of each event (ids, headers, names) by key and pattern, pieces kept as set.
    const streamed = new Set(piecesOf(json).map(([, piece]) => piece));
    const saved = [...streamed].map((piece) => piece.holder[piece.field]);
    const copy = redactSecrets(json);
    let i = 0;
    for (const [, piece] of piecesOf(copy)) piece.holder[piece.field] = saved[i++];
    blocks[at] = prefix + JSON.stringify(copy);
  }
  return redactSecrets(blocks.join(""));
}
