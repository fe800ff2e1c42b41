/**
 * A hostile Chat Completions server for the provider's limits: it answers every request
 * with a stream that never finishes, each chunk carrying the delta `delta(n)` gives (or,
 * with {@linkcode startEndlessBody}, whatever bytes `next(n)` gives).
 *
 * @module
 */

/** The running server: its base URL, and `await using` stops it. */
export interface EndlessServer extends AsyncDisposable {
  baseURL: string;
  /** Requests answered so far. */
  readonly requests: number;
}

/**
 * Starts a server whose event-stream body is `next(0)`, `next(1)`, … without end.
 *
 * @param next The `n`-th piece of the body, as text or bytes.
 * @returns The server.
 *
 * @example Comments without end
 * ```ts
 * import { startEndlessBody } from "./endless_openai_server.ts";
 * import { equal } from "node:assert/strict";
 *
 * await using server = await startEndlessBody(() => ": ping\n\n");
 * equal(server.baseURL.startsWith("http://127.0.0.1:"), true);
 * ```
 */
export function startEndlessBody(
  next: (n: number) => string | Uint8Array,
): Promise<EndlessServer> {
  const encoder = new TextEncoder();
  let requests = 0;
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    requests++;
    let n = 0;
    let self: ReadableStreamDefaultController<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        self = controller;
        open.add(controller);
      },
      cancel() {
        if (self) open.delete(self); // the client went away
      },
      pull(controller) {
        const piece = next(n++);
        controller.enqueue(typeof piece === "string" ? encoder.encode(piece) : piece);
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  return Promise.resolve({
    baseURL: `http://127.0.0.1:${server.addr.port}/v1`,
    get requests() {
      return requests;
    },
    async [Symbol.asyncDispose]() {
      // Shutting down waits for responses to end: end those a client still reads.
      for (const controller of open) {
        try {
          controller.close();
        } catch { /* already closed */ }
      }
      await server.shutdown();
    },
  });
}

/**
 * Starts the server on a loopback port.
 *
 * @param delta The `n`-th chunk's delta (`{ content: "…" }`, `{ tool_calls: [...] }`).
 * @returns The server.
 *
 * @example
 * ```ts
 * import { startEndlessServer } from "./endless_openai_server.ts";
 * import { equal } from "node:assert/strict";
 *
 * await using server = await startEndlessServer(() => ({ content: "a" }));
 * equal(server.baseURL.startsWith("http://127.0.0.1:"), true);
 * ```
 */
export function startEndlessServer(
  delta: (n: number) => Record<string, unknown>,
): Promise<EndlessServer> {
  return startEndlessBody((n) => {
    const choices = [{ index: 0, delta: delta(n), finish_reason: null }];
    const chunk = { id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices };
    return `data: ${JSON.stringify(chunk)}\n\n`;
  });
}
