/**
 * Redacting a recorded event stream (server-sent events) as a whole: a secret the server
 * streamed across several events is found in the text they make together, not missed in
 * the pieces.
 *
 * @module
 */

import { redactSecrets } from "./cassette.ts";
import { REASONING_FIELDS } from "../providers/openai/stream_chat_completions.ts";

/** One streamed piece: the object holding it, its field, and which text it belongs to. */
interface Piece {
  holder: Record<string, unknown>;
  field: string;
  text: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Which tool call a chat delta continues, told as the provider tells it (see `callKey`). */
type CallKey = (choice: string, call: Json) => string;

/**
 * A `CallKey` for one stream: a delta with an `index` is that call; one without continues
 * the last call of its choice when it has that call's id, or no id and no name (or names a
 * call still unnamed); else it starts a new one (a server that sends whole calls without
 * index or id).
 */
function callKeys(): CallKey {
  const current = new Map<string, { key: string; id?: string; named: boolean }>();
  const byIndex = new Map<string, { key: string; id?: string; named: boolean }>();
  let count = 0;
  return (choice, call) => {
    const id = typeof call.id === "string" && call.id !== "" ? call.id : undefined;
    const fn = isObject(call.function) ? call.function : {};
    const named = typeof fn.name === "string" && fn.name !== "";
    const last = current.get(choice);
    let entry: { key: string; id?: string; named: boolean };
    if (typeof call.index === "number") {
      // Another id at the same index is another call (as the provider reads it).
      const at = `${choice}:${call.index}`;
      const known = byIndex.get(at);
      entry = known && (!id || !known.id || id === known.id)
        ? known
        : { key: `${choice}:call:${call.index}:${count++}`, named: false };
      byIndex.set(at, entry);
    } else if (last && (id ? id === last.id : !named || !last.named)) {
      entry = last;
    } else {
      entry = { key: `${choice}:call:n${count++}`, named: false };
    }
    entry.id ??= id;
    entry.named ||= named;
    current.set(choice, entry);
    return entry.key;
  };
}

/** The streamed pieces of one event, each with the key of the text it belongs to. */
function piecesOf(event: Json, callKey: CallKey): [string, Piece][] {
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
      for (const field of ["content", ...REASONING_FIELDS]) {
        add(`${at}:${field}`, choice.delta, field);
      }
      const calls = Array.isArray(choice.delta.tool_calls) ? choice.delta.tool_calls : [];
      for (const call of calls) {
        if (isObject(call) && isObject(call.function)) {
          add(callKey(at, call), call.function, "arguments");
        }
      }
    }
  }
  // Responses: `….delta` events, keyed by their item and part.
  if (typeof event.type === "string" && event.type.endsWith(".delta")) {
    const part = event.content_index ?? event.summary_index ?? "";
    add(`${event.type}:${event.item_id ?? event.output_index}:${part}`, event, "delta");
  }
  return found;
}

/** The one `data:` line of an event block holding a JSON object, if it has exactly one. */
function dataLine(
  lines: string[],
): { at: number; head: string; json: Json; tail: string } | undefined {
  let at = -1;
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith("data:")) continue;
    if (at >= 0) return undefined; // several data lines: left to the pattern pass
    at = i;
  }
  if (at < 0) return undefined;
  const line = lines[at];
  const head = line.startsWith("data: ") ? "data: " : "data:";
  const tail = line.endsWith("\r") ? "\r" : "";
  const payload = line.slice(head.length, line.length - tail.length);
  if (!payload.startsWith("{") || !payload.endsWith("}")) return undefined;
  try {
    const json = JSON.parse(payload);
    return isObject(json) ? { at, head, json, tail } : undefined;
  } catch {
    return undefined;
  }
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
  const events: {
    block: number;
    lines: string[];
    data: NonNullable<ReturnType<typeof dataLine>>;
  }[] = [];
  const texts = new Map<string, Piece[]>();
  const callKey = callKeys();
  blocks.forEach((block, at) => {
    const lines = block.split("\n");
    const data = dataLine(lines);
    if (!data) return;
    events.push({ block: at, lines, data });
    for (const [key, piece] of piecesOf(data.json, callKey)) {
      const list = texts.get(key) ?? [];
      list.push(piece);
      texts.set(key, list);
    }
  });
  for (const pieces of texts.values()) {
    const whole = pieces.map((piece) => piece.text).join("");
    // JSON in it is rewritten only when a key was redacted (else replay would diverge).
    const redacted = redactSecrets(whole);
    if (redacted === whole) continue;
    pieces.forEach((piece, i) => (piece.holder[piece.field] = i === 0 ? redacted : ""));
  }
  const anyKey: CallKey = () => "";
  for (const { block, lines, data } of events) {
    // The rest of each event (ids, names) by key and pattern; the pieces as set above.
    const saved = piecesOf(data.json, anyKey).map(([, piece]) => piece.holder[piece.field]);
    const copy = redactSecrets(data.json);
    piecesOf(copy, anyKey).forEach(([, piece], i) => (piece.holder[piece.field] = saved[i]));
    lines[data.at] = data.head + JSON.stringify(copy) + data.tail;
    blocks[block] = lines.join("\n");
  }
  return redactSecrets(blocks.join(""));
}
