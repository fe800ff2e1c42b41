// What a cassette's redaction takes out and what it keeps: credential headers of any name,
// tokens of known forms, a URL's userinfo and query-string credentials, credential-named
// pairs in text, and ordinary text left alone; linear in the text. See docs/durable.md
// ("Secrets.").
import { createRecorder } from "@tack/agent";
import { deepEqual } from "node:assert/strict";

Deno.test("recorded headers: a credential header of any name is redacted whole, others kept", async () => {
  const recorder = createRecorder();
  const fetch = recorder.fetch(() =>
    Promise.resolve(
      new Response("{}", { headers: { "set-cookie": "sid=abc123", "x-request-id": "req_1" } }),
    )
  );
  await fetch("http://127.0.0.1:9/v1/chat/completions", {
    method: "POST",
    headers: {
      "x-goog-api-key": "AIza-not-shaped-like-one",
      "api-key": "0123456789abcdef",
      "x-auth-token": "t0k3n",
      "proxy-authorization": "Basic cHJveHk6cGFzcw==",
      "x-amz-security-token": "FwoGZXIvYXdz",
      "x-custom-auth": "CUSTOMAUTH",
      "x-session-id": "s-42",
      "openai-organization": "org-123",
      "x-title": "Refactoring assistant",
      "content-type": "application/json",
    },
    body: "{}",
  });
  const [request, response] = (await recorder.toJsonl()).trim().split("\n").map((l) =>
    JSON.parse(l)
  );
  // Before: x-custom-auth and x-session-id were kept (their names were not in the list).
  deepEqual(request.headers, {
    "api-key": "[redacted]",
    "content-type": "application/json",
    "openai-organization": "[redacted]",
    "proxy-authorization": "[redacted]",
    "x-amz-security-token": "[redacted]",
    "x-auth-token": "[redacted]",
    "x-custom-auth": "[redacted]",
    "x-goog-api-key": "[redacted]",
    "x-session-id": "[redacted]",
    "x-title": "Refactoring assistant",
  });
  deepEqual(response.headers, {
    "content-type": "text/plain;charset=UTF-8",
    "set-cookie": "[redacted]",
    "x-request-id": "req_1",
  });
});
