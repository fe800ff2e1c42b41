/**
 * fetch_url and a `content-type` that lies about an image: image content is made only of
 * bytes that are the image format they claim, with the format they are.
 */

import { http } from "@tack/agent/plugins/http";
import { deepEqual } from "node:assert/strict";

const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

/** Serves `body` as `type` on 127.0.0.1 and returns fetch_url's content. */
async function fetchAs(body: Uint8Array<ArrayBuffer> | string, type: string): Promise<unknown> {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(body, { headers: { "content-type": type } }),
  );
  const host = `127.0.0.1:${server.addr.port}`;
  const [tool] = http({ allowedHosts: [host], allowPrivateAddresses: true }).tools!;
  const result = await tool.execute({ url: `http://${host}/` }, {
    toolCallId: "1",
    signal: new AbortController().signal,
  });
  return result.content;
}

Deno.test("fetch_url: a body that is not the image its content-type claims is no image content", async () => {
  // Sent on as image/png, an HTML page (or a PNG called a JPEG) is an image the provider
  // cannot read: it refuses the request, and every later one of the chat that carries it.
  deepEqual(await fetchAs("<html>not an image</html>", "image/png"), [
    { type: "text", text: "HTTP 200 OK (image/png)\n\n[image/png content, 25 bytes, not shown]" },
  ]);
  deepEqual(await fetchAs(PNG, "image/jpeg"), [
    { type: "text", text: `HTTP 200 OK (image/jpeg)\n\n[image/png image, ${PNG.length} bytes]` },
    { type: "image", mimeType: "image/png", data: btoa(String.fromCharCode(...PNG)) },
  ]);
});
