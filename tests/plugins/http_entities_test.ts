/**
 * fetch_url on pages whose character references decode to what the HTML converter or a
 * provider cannot take: its own `<pre>` marks (U+E000) and lone surrogates.
 */

import { http } from "@tack/agent/plugins/http";
import { equal } from "node:assert/strict";

/** Serves `page` as HTML on 127.0.0.1 and returns what fetch_url makes of it. */
async function fetchPage(page: string): Promise<string> {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(page, { headers: { "content-type": "text/html" } }),
  );
  const host = `127.0.0.1:${server.addr.port}`;
  const [tool] = http({ allowedHosts: [host], allowPrivateAddresses: true }).tools!;
  const result = await tool.execute({ url: `http://${host}/` }, {
    toolCallId: "1",
    signal: new AbortController().signal,
  });
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

Deno.test("fetch_url: marks written as character references copy no <pre> body", async () => {
  // 17 bytes of `&#xE000;0&#xE000;` each became a copy of the <pre> body: 35 KB of page made
  // a 2-million-character text, and 1 MB (the default cap) one past V8's string limit.
  const text = await fetchPage(
    `<pre>${"A".repeat(1000)}</pre><p>${"&#xE000;0&#xE000;".repeat(2000)}</p>` +
      "<title>&#57344;0&#57344;</title>",
  );
  equal(text, `HTTP 200 OK (text/html)\n\n0\n\n${"A".repeat(1000)}\n\n${"0".repeat(2000)}\n\n0`);
});

Deno.test("fetch_url: a reference to a surrogate becomes U+FFFD, not a lone surrogate", async () => {
  // `&#xD800;` decoded to a lone surrogate, which JSON carries as `"\ud800"` and a provider's
  // parser may refuse ("no low surrogate in string"), failing every later turn of the chat.
  const text = await fetchPage("<p>a &#xD800; b &#56319;&#xDC00; c</p><pre>&#xDFFF;</pre>");
  equal(text, "HTTP 200 OK (text/html)\n\na \uFFFD b \uFFFD\uFFFD c\n\n\uFFFD");
  equal(text.isWellFormed(), true);
});
