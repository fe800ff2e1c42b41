/**
 * sameOriginFetch on a fake `fetch`: what each hop is sent after a redirect within the
 * origin, and the redirect it cannot resend.
 */

import { RedirectRefusedError, sameOriginFetch } from "@tack/agent/sdk/providers/openai";
import { deepEqual, equal, rejects } from "node:assert/strict";

/** A fake fetch answering `replies` in turn and recording each hop's URL, method and body. */
function scripted(replies: Response[]) {
  const hops: { url: string; method: string | undefined; body: BodyInit | null | undefined }[] = [];
  const inner = (input: RequestInfo | URL, init?: RequestInit) => {
    hops.push({ url: String(input), method: init?.method, body: init?.body });
    return Promise.resolve(replies.shift()!);
  };
  return { hops, inner: inner as typeof fetch };
}

const redirect = (status: number, location: string) =>
  new Response(null, { status, headers: { location } });

Deno.test("sameOriginFetch: a 303 goes on as a GET without the body", async () => {
  const { hops, inner } = scripted([redirect(303, "/done"), new Response("ok")]);
  const response = await sameOriginFetch(inner, "http://a.test/v1", {
    method: "POST",
    body: '{"x":1}',
  });
  equal(await response.text(), "ok");
  deepEqual(hops, [
    { url: "http://a.test/v1", method: "POST", body: '{"x":1}' },
    { url: "http://a.test/done", method: "GET", body: undefined },
  ]);
});

Deno.test("sameOriginFetch: a 307 and a 308 resend the method and the body", async () => {
  const { hops, inner } = scripted([
    redirect(307, "/b"),
    redirect(308, "/c"),
    new Response("ok"),
  ]);
  await sameOriginFetch(inner, "http://a.test/a", { method: "PUT", body: "x" });
  deepEqual(hops.map(({ url, method, body }) => [url, method, body]), [
    ["http://a.test/a", "PUT", "x"],
    ["http://a.test/b", "PUT", "x"],
    ["http://a.test/c", "PUT", "x"],
  ]);
});

Deno.test("sameOriginFetch: a streamed body is not resent: its redirect is refused", async () => {
  // A stream is read once, by the first hop: there is nothing left to send the second.
  const { hops, inner } = scripted([redirect(307, "/b"), new Response("never")]);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("x"));
      controller.close();
    },
  });
  await rejects(
    sameOriginFetch(inner, "http://a.test/a", { method: "POST", body }),
    (error: unknown) => {
      equal(error instanceof RedirectRefusedError, true);
      deepEqual(
        [(error as RedirectRefusedError).status, (error as RedirectRefusedError).location],
        [
          307,
          "http://a.test/b",
        ],
      );
      return true;
    },
  );
  equal(hops.length, 1);
});
