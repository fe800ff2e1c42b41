/**
 * The recorder: wraps a model (model-stream level), a `fetch` (provider level) and
 * listens to an agent (tool results), writing one cassette.
 *
 * @module
 */

import type { AgentEvent } from "../../core/agent_event.ts";
import {
  type AssistantMessageEventStream,
  AssistantMessageStream,
} from "../../core/assistant_message_stream.ts";
import type { Model } from "../../core/model.ts";
import { CREDENTIAL_HEADER } from "../providers/openai/redact.ts";
import { redactEventStream } from "./redact_event_stream.ts";
import {
  type CassetteLine,
  type RecordedEvent,
  recordedRequest,
  REDACTED,
  redactSecrets,
} from "./cassette.ts";

/** Records a run into a cassette. */
export interface Recorder {
  /** The lines so far. */
  readonly lines: readonly CassetteLine[];
  /** Wraps a model: each turn's request and streamed events are recorded. */
  model(model: Model): Model;
  /** Wraps a `fetch` (give it to `openai({ fetch })`): requests and responses, redacted. */
  fetch(inner?: typeof fetch): typeof fetch;
  /** An agent listener (`agent.subscribe(recorder.listener)`) recording tool results. */
  readonly listener: (event: AgentEvent) => void;
  /** The cassette as JSONL text (waits for responses still streaming). */
  toJsonl(): Promise<string>;
}

function withoutPartial(event: Record<string, unknown>): RecordedEvent {
  const { partial: _, ...rest } = event;
  const copy = JSON.parse(JSON.stringify(rest));
  // A delta is redacted with its whole block (redactDeltas), not alone: a chunk can look like
  // a secret that the whole is not, or hold part of one.
  return /_delta$/.test(String(event.type)) ? copy : redactSecrets(copy);
}

/** The deltas of blocks that never ended (a cut stream), redacted one by one. */
function redactUnendedDeltas(events: RecordedEvent[]): void {
  const ended = new Set<string>();
  for (const event of events as Record<string, unknown>[]) {
    const end = /^(\w+)_end$/.exec(String(event.type));
    if (end) ended.add(`${end[1]}:${event.contentIndex}`);
  }
  for (const event of events as Record<string, unknown>[]) {
    const delta = /^(\w+)_delta$/.exec(String(event.type));
    if (delta && !ended.has(`${delta[1]}:${event.contentIndex}`)) {
      event.delta = redactSecrets(event.delta);
    }
  }
}

/**
 * At a block's end: when the block held a secret, its deltas (which may split the secret
 * across chunks) become one delta of the redacted whole, then empty ones. The whole is the
 * deltas' text as streamed: a tool call's arguments that do not parse (a trailing comma) are
 * redacted as text, key by key.
 */
function redactDeltas(events: RecordedEvent[], end: Record<string, unknown>): void {
  const kind = String(end.type).replace(/_end$/, "");
  const deltas = (events as Record<string, unknown>[]).filter((event) =>
    event.type === `${kind}_delta` && event.contentIndex === end.contentIndex
  );
  const whole = deltas.map((event) => String(event.delta ?? "")).join("");
  const redacted = redactSecrets(whole);
  if (redacted === whole) return;
  deltas.forEach((event, i) => (event.delta = i === 0 ? redacted : ""));
}

/**
 * Headers as a cassette keeps them: a header whose name says it carries a credential
 * (`auth`, `key`, `token`, `secret`, `password`, `cookie`, `session`, `credential`, as the
 * provider's error texts read them: `X-Custom-Auth`, `x-goog-api-key`) is `[redacted]` whole,
 * the others redacted like any text. Replay does not compare headers.
 */
function headersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => (out[key] = CREDENTIAL_HEADER.test(key) ? REDACTED : value));
  return redactSecrets(out);
}

function bodyOf(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return redactSecrets(JSON.parse(text));
  } catch {
    return redactSecrets(text);
  }
}

/**
 * Creates a recorder. Record at the model-stream level (`recorder.model(model)`), at the
 * provider level (`openai({ fetch: recorder.fetch() })`), or both, and add
 * `recorder.listener` to the agent for tool results. Secrets (credential headers of any
 * name, credential-named fields and `name=value` pairs, bearer tokens, tokens of a known form
 * such as `sk-…`, `ghp_…` or JWTs, a URL's userinfo; see `redactSecrets`) are redacted before
 * anything is kept, on every line: requests, responses, tool results.
 *
 * @returns The recorder.
 *
 * @example Record a scripted run
 * ```ts
 * import { createAgent, createRecorder, scriptedModel, text } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const recorder = createRecorder();
 * const agent = createAgent({ model: recorder.model(scriptedModel([[text("hi")]])) });
 * agent.subscribe(recorder.listener);
 * await agent.prompt("hello");
 * equal((await recorder.toJsonl()).split("\n").filter(Boolean).length, 3); // meta, request, response
 * ```
 */
export function createRecorder(): Recorder {
  const lines: CassetteLine[] = [];
  const pending: Promise<void>[] = [];
  let turn = 0;
  let seq = 0;

  return {
    lines,
    model(model) {
      lines.push({ type: "meta", version: 1, provider: model.provider, model: model.id });
      return {
        provider: model.provider,
        id: model.id,
        dispose: model.dispose ? () => model.dispose!() : undefined,
        async stream(request, options): Promise<AssistantMessageEventStream> {
          const current = turn++;
          lines.push({ type: "model_request", turn: current, request: recordedRequest(request) });
          const inner = await model.stream(request, options);
          const outer = new AssistantMessageStream();
          const events: RecordedEvent[] = [];
          const record = (message: unknown) => {
            redactUnendedDeltas(events);
            lines.push({
              type: "model_response",
              turn: current,
              events,
              message: redactSecrets(JSON.parse(JSON.stringify(message))),
            });
          };
          const piping = (async () => {
            let recorded = false;
            for await (const event of inner) {
              events.push(withoutPartial(event as unknown as Record<string, unknown>));
              if (/^(text|thinking|toolcall)_end$/.test(event.type)) {
                redactDeltas(events, event as unknown as Record<string, unknown>);
              }
              // The response is written before the loop sees its last event: the tool
              // results that follow come after it in the cassette.
              if (event.type === "done" || event.type === "error") {
                record(event.type === "done" ? event.message : event.error);
                recorded = true;
              }
              outer.push(event);
            }
            if (!recorded) record(await inner.result());
          })();
          pending.push(piping.catch(() => {}));
          return outer;
        },
      };
    },
    fetch(inner = globalThis.fetch) {
      return async (input, init) => {
        const request = new Request(input, init);
        const id = seq++;
        const body = request.body ? await request.clone().text() : undefined;
        lines.push({
          type: "http_request",
          seq: id,
          method: request.method,
          url: redactSecrets(request.url),
          headers: headersOf(request.headers),
          body: bodyOf(body),
        });
        const response = await inner(request);
        const [mine, theirs] = response.body ? response.body.tee() : [null, null];
        const recording = (async () => {
          const text = mine ? await new Response(mine).text() : "";
          lines.push({
            type: "http_response",
            seq: id,
            status: response.status,
            headers: headersOf(response.headers),
            // A stream is redacted as the texts its events make together, not piece by piece.
            body: /event-stream/.test(response.headers.get("content-type") ?? "")
              ? redactEventStream(text)
              : redactSecrets(text),
          });
        })();
        pending.push(recording.catch(() => {}));
        return new Response(theirs, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
      };
    },
    listener(event) {
      if (event.type !== "tool_execution_end") return;
      const line: CassetteLine = {
        type: "tool_result",
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        result: redactSecrets(JSON.parse(JSON.stringify(event.result))),
        isError: event.isError,
      };
      if (event.args) line.args = redactSecrets(JSON.parse(JSON.stringify(event.args)));
      lines.push(line);
    },
    async toJsonl() {
      await Promise.all(pending);
      return lines.map((line) => JSON.stringify(line)).join("\n") + "\n";
    },
  };
}
