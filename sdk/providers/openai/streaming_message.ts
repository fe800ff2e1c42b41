/**
 * Builds an assistant message block by block as a stream arrives, pushing the protocol's
 * events as it goes. Shared by the Chat Completions and Responses mappings.
 *
 * @module
 */

import type { AssistantMessageStream } from "../../../core/assistant_message_stream.ts";
import {
  type AssistantMessage,
  emptyUsage,
  type Message,
  type TextContent,
  type ThinkingContent,
  type ToolCall,
  type Usage,
} from "../../../core/messages.ts";
import { parseFinalToolArguments, parseToolArguments, PartialJsonParser } from "./partial_json.ts";
import { RESPONSE_LIMITS, type ResponseLimits, ResponseTooLargeError } from "./response_limits.ts";
import { type ReportedUsage, tokenCount } from "./token_count.ts";

type OpenBlock =
  | { kind: "text"; block: TextContent; index: number }
  | { kind: "thinking"; block: ThinkingContent; index: number }
  | {
    kind: "toolCall";
    block: ToolCall;
    index: number;
    raw: string;
    parser: PartialJsonParser;
    /** Its place among the message's tool calls, from 1. */
    place: number;
  };

/** The tool-call ids of a transcript: its calls' and its results'. */
function idsIn(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role === "toolResult") ids.add(message.toolCallId);
    else if (message.role === "assistant" && Array.isArray(message.content)) {
      for (const block of message.content) if (block.type === "toolCall") ids.add(block.id);
    }
  }
  return ids;
}

/** A value from the wire as text: a string as it is, anything else (a number, an object) as `undefined`. */
function textOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * An assistant message under construction. Blocks are opened by a key the mapping
 * chooses (a chat tool call's index, a Responses item id); deltas for an open key extend
 * its block; ending a key pushes its `*_end` event. `finish` and `fail` end the stream.
 * A delta or tool call past its {@linkcode ResponseLimits} throws
 * {@linkcode ResponseTooLargeError}, for the caller to stop reading and fail the message.
 * Deltas, ids, names and argument texts are taken as the server's JSON had them: one that
 * is not a string (a number, an object) is ignored, so it neither shows in the message nor
 * upsets the count of characters.
 * Tool-call ids are unique in the message: a call without one, or with one an earlier
 * call has, gets `call_<n>` (its place among the tool calls, moved on past the ids in use
 * in this message and in the transcript the request sent, so a generated id never repeats
 * one of an earlier turn).
 *
 * @example Text, then a tool call whose arguments stream
 * ```ts
 * import { AssistantMessageStream } from "@tack/agent";
 * import { StreamingMessage } from "./streaming_message.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const stream = new AssistantMessageStream();
 * const out = new StreamingMessage(stream, "m");
 * out.appendText("t", "text", "Checking.");
 * out.openToolCall("c", "call_1", "get_weather");
 * out.appendArguments("c", '{"city": "Pa');
 * deepEqual(out.message.content[1], {
 *   type: "toolCall", id: "call_1", name: "get_weather", arguments: { city: "Pa" },
 * });
 * out.appendArguments("c", 'ris"}');
 * out.finish("toolUse");
 * const types: string[] = [];
 * for await (const event of stream) types.push(event.type);
 * equal(types.join(), "start,text_start,text_delta,toolcall_start,toolcall_delta,toolcall_delta,text_end,toolcall_end,done");
 * ```
 */
export class StreamingMessage {
  /** The message so far (the `partial` of every event). */
  readonly message: AssistantMessage;
  readonly #stream: AssistantMessageStream;
  readonly #open = new Map<string, OpenBlock>();
  readonly #limits: ResponseLimits;
  #chars = 0;
  #toolCalls = 0;
  /** The tool-call ids given out in this message, each once. */
  readonly #ids = new Set<string>();
  /** The transcript the request sent, whose ids a generated one avoids. */
  readonly #history: readonly Message[];
  /** Its tool-call ids, collected when an id is first generated. */
  #earlier: Set<string> | undefined;
  #started = false;
  #ended = false;

  /**
   * Starts an empty message (`stopReason: "stop"` until it ends).
   *
   * @param stream The stream to push events into.
   * @param model The model id to record.
   * @param limits How much the message may hold (default {@linkcode RESPONSE_LIMITS}).
   * @param history The transcript the request sent: a generated id is none of its ids.
   */
  constructor(
    stream: AssistantMessageStream,
    model: string,
    limits: ResponseLimits = RESPONSE_LIMITS,
    history: readonly Message[] = [],
  ) {
    this.#stream = stream;
    this.#limits = limits;
    this.#history = history;
    this.message = {
      role: "assistant",
      content: [],
      stopReason: "stop",
      usage: emptyUsage(),
      provider: "openai",
      model,
      timestamp: Date.now(),
    };
  }

  /** Whether any content has arrived (after which a request is never retried). */
  get hasOutput(): boolean {
    return this.message.content.length > 0;
  }

  /** Whether `finish` or `fail` has ended the message. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Counts a delta's characters, throwing past the limit (before it is kept). */
  #count(chars: number): void {
    this.#chars += chars;
    if (this.#chars > this.#limits.maxChars) {
      throw new ResponseTooLargeError("maxResponseChars", this.#limits.maxChars);
    }
  }

  /**
   * The id a tool call keeps: the server's, unless it is empty or another call of this
   * message has it (results go back by id, approvals are kept by id); then `call_<n>`, `n`
   * the call's place among the message's tool calls, counting on past the ids in use in
   * this message and in the transcript (a server that sends no ids would otherwise get
   * `call_1` every turn: results of two turns with one id).
   */
  #uniqueId(id: string, place: number): string {
    if (id !== "" && !this.#ids.has(id)) {
      this.#ids.add(id);
      return id;
    }
    const earlier = this.#earlier ??= idsIn(this.#history);
    let n = place;
    while (this.#ids.has(`call_${n}`) || earlier.has(`call_${n}`)) n++;
    this.#ids.add(`call_${n}`);
    return `call_${n}`;
  }

  /** Pushes `start`, once. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#stream.push({ type: "start", partial: this.message });
  }

  /** Whether a block is open under `key`. */
  isOpen(key: string): boolean {
    return this.#open.has(key);
  }

  /**
   * Appends text (or thinking) to the block under `key`, opening it if needed.
   *
   * @param key The block's key.
   * @param kind `"text"` or `"thinking"`.
   * @param text The new text (ignored unless a string).
   * @throws {ResponseTooLargeError} When the message would pass `maxChars`.
   */
  appendText(key: string, kind: "text" | "thinking", text: unknown): void {
    const delta = textOf(text);
    if (delta === undefined) return;
    this.#count(delta.length);
    this.start();
    let open = this.#open.get(key);
    if (!open) {
      const index = this.message.content.length;
      open = kind === "text"
        ? { kind, block: { type: "text", text: "" }, index }
        : { kind, block: { type: "thinking", thinking: "" }, index };
      this.message.content.push(open.block);
      this.#open.set(key, open);
      this.#stream.push({ type: `${kind}_start`, contentIndex: index, partial: this.message });
    }
    if (delta === "") return;
    if (open.kind === "text") open.block.text += delta;
    else if (open.kind === "thinking") open.block.thinking += delta;
    else return;
    this.#stream.push({
      type: `${open.kind}_delta`,
      contentIndex: open.index,
      delta,
      partial: this.message,
    });
  }

  /**
   * Opens a tool-call block under `key`, or fills in its id and name if it is open.
   *
   * @param key The block's key.
   * @param givenId The call id (may arrive later; ignored unless a string).
   * @param givenName The tool name (may arrive later; ignored unless a string).
   * @throws {ResponseTooLargeError} When the message would pass `maxToolCalls`, or
   *   `maxChars` (the id and name count as characters).
   */
  openToolCall(key: string, givenId: unknown, givenName: unknown): void {
    const id = textOf(givenId);
    const name = textOf(givenName);
    this.start();
    const open = this.#open.get(key);
    if (open?.kind === "toolCall") {
      if (id && !open.block.id) {
        this.#count(id.length);
        open.block.id = this.#uniqueId(id, open.place);
      }
      if (name && !open.block.name) {
        this.#count(name.length);
        open.block.name = name;
      }
      return;
    }
    if (++this.#toolCalls > this.#limits.maxToolCalls) {
      throw new ResponseTooLargeError("maxToolCalls", this.#limits.maxToolCalls);
    }
    this.#count((id?.length ?? 0) + (name?.length ?? 0));
    const block: ToolCall = {
      type: "toolCall",
      id: id ? this.#uniqueId(id, this.#toolCalls) : "", // given one at its end if none arrives
      name: name ?? "",
      arguments: {},
    };
    const index = this.message.content.length;
    this.message.content.push(block);
    this.#open.set(key, {
      kind: "toolCall",
      block,
      index,
      raw: "",
      parser: new PartialJsonParser(),
      place: this.#toolCalls,
    });
    this.#stream.push({ type: "toolcall_start", contentIndex: index, partial: this.message });
  }

  /**
   * Appends argument text to the tool call under `key` (opening it if needed); the
   * block's `arguments` show what parses so far.
   *
   * @param key The block's key.
   * @param text The new argument text (ignored unless a string).
   * @throws {ResponseTooLargeError} When the message would pass a limit.
   */
  appendArguments(key: string, text: unknown): void {
    const delta = textOf(text);
    if (delta === undefined) return;
    this.#count(delta.length);
    if (!this.#open.has(key)) this.openToolCall(key, undefined, undefined);
    const open = this.#open.get(key);
    if (open?.kind !== "toolCall" || delta === "") return;
    open.raw += delta;
    if (!open.parser.failed) {
      open.parser.push(delta);
      const value = open.parser.value;
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        open.block.arguments = value as Record<string, unknown>;
      }
    }
    this.#stream.push({
      type: "toolcall_delta",
      contentIndex: open.index,
      delta,
      partial: this.message,
    });
  }

  /**
   * Ends the block under `key` (if open), pushing its `*_end` event.
   *
   * @param key The block's key.
   * @param givenArguments For a tool call: the complete argument text, when the API
   *   sends it at the end (it wins over the deltas; ignored unless a string).
   * @throws {ResponseTooLargeError} When the final arguments pass `maxChars`.
   */
  end(key: string, givenArguments?: unknown): void {
    const finalArguments = textOf(givenArguments);
    const open = this.#open.get(key);
    if (!open) return;
    if (open.kind === "toolCall" && finalArguments !== undefined) {
      this.#count(Math.max(0, finalArguments.length - open.raw.length));
    }
    this.#open.delete(key);
    const contentIndex = open.index;
    if (open.kind === "text") {
      this.#stream.push({
        type: "text_end",
        contentIndex,
        content: open.block.text,
        partial: this.message,
      });
    } else if (open.kind === "thinking") {
      this.#stream.push({
        type: "thinking_end",
        contentIndex,
        content: open.block.thinking,
        partial: this.message,
      });
    } else {
      if (open.block.id === "") open.block.id = this.#uniqueId("", open.place);
      const text = finalArguments ?? open.raw;
      const parsed = parseFinalToolArguments(text);
      if (parsed.ok) open.block.arguments = parsed.value;
      else {
        open.block.arguments = parseToolArguments(text) ?? {};
        open.block.argumentsError = parsed.error;
      }
      this.#stream.push({
        type: "toolcall_end",
        contentIndex,
        toolCall: open.block,
        partial: this.message,
      });
    }
  }

  /** Ends every open block, in content order. */
  endAll(): void {
    const keys = [...this.#open.entries()].sort((a, b) => a[1].index - b[1].index);
    for (const [key] of keys) this.end(key);
  }

  /**
   * Records usage: `input` excludes cached tokens, which count as `cacheRead`. Each count
   * goes through {@linkcode tokenCount}: one that is not a number `>= 0` counts as 0, a
   * huge one as `MAX_REPORTED_TOKENS`, so the usage holds finite numbers only.
   *
   * @param reported The counts the API sent.
   */
  setUsage(reported: ReportedUsage): void {
    const usage: Usage = emptyUsage();
    usage.cacheRead = tokenCount(reported.cached);
    usage.input = Math.max(0, tokenCount(reported.input) - usage.cacheRead);
    usage.output = tokenCount(reported.output);
    usage.totalTokens = usage.input + usage.output + usage.cacheRead;
    this.message.usage = usage;
  }

  /**
   * Ends the message: closes open blocks and pushes `done`.
   *
   * @param reason Why it ended.
   */
  finish(reason: "stop" | "length" | "toolUse"): void {
    this.start();
    this.endAll();
    this.message.stopReason = reason;
    this.#ended = true;
    this.#stream.push({ type: "done", reason, message: this.message });
  }

  /**
   * Ends the message with a failure. Tool calls still streaming keep what parsed of
   * their arguments; no `*_end` events are pushed for blocks cut short.
   *
   * @param reason `"error"` or `"aborted"`.
   * @param errorMessage What happened.
   */
  fail(reason: "error" | "aborted", errorMessage: string): void {
    this.start();
    for (const open of this.#open.values()) {
      if (open.kind === "toolCall") open.block.arguments = parseToolArguments(open.raw) ?? {};
    }
    this.#open.clear();
    this.message.stopReason = reason;
    this.message.errorMessage = errorMessage;
    this.#ended = true;
    this.#stream.push({ type: "error", reason, error: this.message });
  }
}
