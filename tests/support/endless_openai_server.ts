/**
 * A hostile Chat Completions server for the provider's limits: it answers every request
 * with a stream that never finishes, each chunk carrying the delta `delta(n)` gives.
 *
 * @module
 */

/** The running server: its base URL, and `await using` stops it. */
export interface EndlessServer extends AsyncDisposable {
  baseURL: string;
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
  const encoder = new TextEncoder();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    let n = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const choices = [{ index: 0, delta: delta(n++), finish_reason: null }];
        const chunk = { id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices };
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  return Promise.resolve({
    baseURL: `http://127.0.0.1:${server.addr.port}/v1`,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  });
}
