/**
 * pinnedUrl and fetch_url with a name that resolves to an IPv6 address only: the connection
 * goes to the bracketed address, and the `Host` header still names the host and its port.
 */

import { http } from "@tack/agent/plugins/http";
import { pinnedUrl } from "../../plugins/http/pinned_url.ts";
import { deepEqual, equal } from "node:assert/strict";

const ADDRESS = "2001:4860::1";

Deno.test("pinnedUrl: an IPv6 address goes in brackets, with the port, path and query kept", () => {
  equal(
    pinnedUrl(new URL("http://name.test:8080/p?q#f"), ADDRESS)?.href,
    `http://[${ADDRESS}]:8080/p?q#f`,
  );
  equal(pinnedUrl(new URL("http://name.test/"), ADDRESS)?.href, `http://[${ADDRESS}]/`);
  equal(pinnedUrl(new URL("http://name.test/"), "::1")?.hostname, "[::1]");
});

/** What fetch_url sent for `url` when its name resolves to {@linkcode ADDRESS} only. */
async function sentFor(url: string): Promise<{ url: string; host: string | null }[]> {
  const sent: { url: string; host: string | null }[] = [];
  const realResolve = Deno.resolveDns;
  const realFetch = globalThis.fetch;
  // deno-lint-ignore no-explicit-any
  (Deno as any).resolveDns = (_name: string, type: string) =>
    Promise.resolve(type === "AAAA" ? [ADDRESS] : []);
  globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    sent.push({ url: String(input), host: new Headers(init?.headers).get("host") });
    return Promise.resolve(
      new Response("ok", { statusText: "OK", headers: { "content-type": "text/plain" } }),
    );
  };
  try {
    const [tool] = http({ allowedHosts: ["name.test"] }).tools!;
    const result = await tool.execute({ url }, {
      toolCallId: "1",
      signal: new AbortController().signal,
    });
    deepEqual(result.content, [{ type: "text", text: "HTTP 200 OK (text/plain)\n\nok" }]);
  } finally {
    // deno-lint-ignore no-explicit-any
    (Deno as any).resolveDns = realResolve;
    globalThis.fetch = realFetch;
  }
  return sent;
}

Deno.test("fetch_url: a name resolved to IPv6 is fetched at [address]:port with Host naming the name and port", async () => {
  deepEqual(await sentFor("http://name.test:8080/p?q"), [
    { url: `http://[${ADDRESS}]:8080/p?q`, host: "name.test:8080" },
  ]);
  deepEqual(await sentFor("http://name.test/p"), [
    { url: `http://[${ADDRESS}]/p`, host: "name.test" },
  ]);
});
