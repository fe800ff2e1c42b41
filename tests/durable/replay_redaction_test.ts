// What a cassette's redaction takes out and what it keeps: credential headers of any name,
// tokens of known forms, a URL's userinfo and query-string credentials, credential-named
// pairs in text, and ordinary text left alone; linear in the text. See docs/durable.md
// ("Secrets.").
import {
  createAgent,
  createRecorder,
  defineTool,
  redactSecrets,
  replayFetch,
  replayModel,
  replayTools,
} from "@tack/agent";
import { openai } from "@tack/agent/sdk/providers/openai";
import { deepEqual, equal, ok } from "node:assert/strict";
import { Type } from "typebox";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";

/** Secrets of each form the recorder is shown (test values, not real credentials). */
const SECRETS = {
  google: "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
  azure: "0123456789abcdef0123456789abcdef",
  authToken: "xauthTOKENvalue42",
  proxy: "cHJveHl1c2VyOnByb3h5cGFzcw==",
  amz: "FwoGZXIvYXdzEJrSECURITYtokenVALUE",
  customAuth: "CUSTOMAUTHhdr123",
  github: "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB",
  githubPat: "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
  slack: "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp",
  awsKeyId: "AKIAIOSFODNN7EXAMPLE",
  awsSecret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  anthropic: "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
  jwt:
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
  userinfo: "onlyusertoken123",
  queryKey: "QUERYKEYvalue987",
  queryToken: "QUERYTOKENvalue654",
  queryApiKey: "QUERYAPIKEY321abc",
  pem: "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
};

Deno.test("a run against a fake OpenAI server with secrets in headers, URLs, tool args, tool results and the system prompt: none in the cassette, and it replays at both levels", async () => {
  const S = SECRETS;
  const fetchUrl = defineTool({
    name: "fetch_url",
    description: "Fetches",
    parameters: Type.Object({ url: Type.String(), creds: Type.Optional(Type.Any()) }),
    execute: () => ({
      content: [{
        type: "text",
        text:
          `got ${S.github} and ${S.slack} aws ${S.awsKeyId} aws_secret_access_key=${S.awsSecret} ` +
          `jwt ${S.jwt} https://${S.userinfo}@git.example.com/r.git?key=${S.queryKey}\n` +
          `-----BEGIN PRIVATE KEY-----\n${S.pem}\n-----END PRIVATE KEY-----`,
      }],
    }),
  });
  const systemPrompt = `Use ${S.github}, slack ${S.slack}, google ${S.google}, ` +
    `see https://${S.userinfo}@h.example/?token=${S.queryToken}`;
  const prompt = `fetch https://api.example.com/?key=${S.queryKey}`;
  let cassette: string;
  {
    await using server = await startFakeOpenAI({
      turns: [
        {
          toolCalls: [{
            name: "fetch_url",
            arguments: {
              url: `https://api.example.com/x?api_key=${S.queryApiKey}&token=${S.queryToken}`,
              creds: { auth: S.anthropic, credentials: S.githubPat, private_key: S.pem },
            },
            id: "c1",
          }],
          chunkSize: 5,
        },
        { text: `done with ${S.google} and ${S.anthropic}`, chunkSize: 7 },
      ],
    });
    const recorder = createRecorder();
    const model = openai({
      model: "gpt-test",
      baseURL: server.baseURL,
      apiKey: S.anthropic,
      headers: {
        "x-goog-api-key": S.google,
        "api-key": S.azure,
        "x-auth-token": S.authToken,
        "proxy-authorization": `Basic ${S.proxy}`,
        "x-amz-security-token": S.amz,
        "x-custom-auth": S.customAuth,
        "x-title": "Refactoring assistant",
      },
      fetch: recorder.fetch(),
      maxRetries: 0,
    });
    const agent = createAgent({ model: recorder.model(model), tools: [fetchUrl], systemPrompt });
    agent.subscribe(recorder.listener);
    await agent.prompt(prompt);
    cassette = await recorder.toJsonl();
  }
  // Before: all but the headers with known names were kept, most on several lines.
  const leaked = Object.entries(S).filter(([, secret]) => cassette.includes(secret));
  deepEqual(leaked, []);
  ok(cassette.includes('"x-title":"Refactoring assistant"')); // not a credential
  const expected = "done with [redacted] and [redacted]";
  const lastText = (messages: { role: string; content?: unknown }[]) => {
    const last = messages.at(-1) as { content: { type: string; text?: string }[] };
    return last.content.find((c) => c.type === "text")?.text;
  };
  // Provider side: the HTTP lines answer the provider; model side: the model lines.
  const provider = createAgent({
    model: openai({
      model: "gpt-test",
      baseURL: "http://127.0.0.1:9/v1",
      apiKey: "sk-other",
      fetch: replayFetch(cassette),
      maxRetries: 0,
    }),
    tools: replayTools(cassette, [fetchUrl]),
    systemPrompt,
  });
  equal(lastText(await provider.prompt(prompt)), expected);
  const modelSide = createAgent({
    model: replayModel(cassette),
    tools: replayTools(cassette, [fetchUrl]),
    systemPrompt,
  });
  equal(lastText(await modelSide.prompt(prompt)), expected);
});

Deno.test("recorded requests: a credential header of any name is redacted whole, others kept; a key in the URL's query too", async () => {
  const recorder = createRecorder();
  const fetch = recorder.fetch(() =>
    Promise.resolve(
      new Response("{}", { headers: { "set-cookie": "sid=abc123", "x-request-id": "req_1" } }),
    )
  );
  await fetch("http://127.0.0.1:9/v1/chat/completions?api-version=2024-10-21&key=k3y", {
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
  equal(
    request.url,
    "http://127.0.0.1:9/v1/chat/completions?api-version=2024-10-21&key=[redacted]",
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

Deno.test("redaction: tokens of known forms inside text", () => {
  const S = SECRETS;
  const cases: [string, string][] = [
    [`gh ${S.github}.`, "gh [redacted]."],
    [`pat=${S.githubPat}`, "pat=[redacted]"],
    ["gitlab glpat-abcdefghijklmnopqrst12", "gitlab [redacted]"],
    [
      "gho_abcdefghijklmnopqrstuvwxyz0123456789 ghu_abcdefghijklmnopqrstuvwxyz0123456789 ghs_abcdefghijklmnopqrstuvwxyz0123456789 ghr_abcdefghijklmnopqrstuvwxyz0123456789",
      "[redacted] [redacted] [redacted] [redacted]",
    ],
    ["user xoxp-1234567890-0987654321-abcdef", "user [redacted]"],
    [`slack ${S.slack}`, "slack [redacted]"],
    ["app xapp-1-A0123456789-abcdef", "app [redacted]"],
    [`id ${S.awsKeyId} and ASIAIOSFODNN7EXAMPLE`, "id [redacted] and [redacted]"],
    [`google "${S.google}"`, 'google "[redacted]"'],
    [`claude ${S.anthropic}`, "claude [redacted]"],
    [
      "stripe sk_live_abcdefghijklmnop1234 rk_test_abcdefghijklmnop1234",
      "stripe [redacted] [redacted]",
    ],
    ["npm npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm [redacted]"],
    ["hf hf_abcdefghijklmnopqrstuvwxyzABCDEF", "hf [redacted]"],
    [`jwt ${S.jwt} end`, "jwt [redacted] end"],
    [
      `key:\n-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n${S.pem}\n${S.pem}==\n-----END RSA PRIVATE KEY-----\nafter`,
      "key:\n[redacted]\nafter",
    ],
    [`cut -----BEGIN PRIVATE KEY-----\n${S.pem}`, "cut [redacted]"],
  ];
  deepEqual(cases.map(([text]) => redactSecrets(text)), cases.map(([, want]) => want));
  // Replay redacts a request made of redacted parts again: the same text.
  deepEqual(cases.map(([, want]) => redactSecrets(want)), cases.map(([, want]) => want));
});

Deno.test("redaction: a URL's userinfo and its query-string credentials, and name=value pairs", () => {
  const cases: [string, string][] = [
    [
      "clone https://onlyusertoken123@git.example.com/r.git",
      "clone https://[redacted]@git.example.com/r.git",
    ],
    ["db postgres://app:pa@ss@db.example:5432/x", "db postgres://[redacted]@db.example:5432/x"],
    [
      "https://api.example.com/x?api_key=abc123&page=2&token=t0k3n#top",
      "https://api.example.com/x?api_key=[redacted]&page=2&token=[redacted]#top",
    ],
    [
      "https://maps.example.com/?key=k3y&q=paris",
      "https://maps.example.com/?key=[redacted]&q=paris",
    ],
    [
      "https://b.s3.amazonaws.com/f?X-Amz-Credential=cred%2F2026&X-Amz-Date=20261204&X-Amz-Signature=abcdef0123",
      "https://b.s3.amazonaws.com/f?X-Amz-Credential=[redacted]&X-Amz-Date=20261204&X-Amz-Signature=[redacted]",
    ],
    ["aws_secret_access_key = wJalrXUtnFEMI/K7MDENG", "aws_secret_access_key = [redacted]"],
    ["run --password=hunter2 --user=ann", "run --password=[redacted] --user=ann"],
    [
      "call(sig=abc123; token=t1, key=k1)",
      "call(sig=[redacted]; token=[redacted], key=[redacted])",
    ],
    ['PASSWORD="hunter 2" NEXT=1', 'PASSWORD="[redacted]" NEXT=1'],
    // Before: the first pair took the rest of the line, and the password with it.
    ["user: bob password: hunter2", 'user: bob password: "[redacted]"'],
  ];
  deepEqual(cases.map(([text]) => redactSecrets(text)), cases.map(([, want]) => want));
  // Replay redacts a request made of redacted parts again: the same text.
  deepEqual(cases.map(([, want]) => redactSecrets(want)), cases.map(([, want]) => want));
});

Deno.test("redaction: more credential-named keys; a JSON schema's property named password keeps its schema", () => {
  deepEqual(
    redactSecrets({
      auth: "a1",
      credentials: { user: "ann", pass: "c1" },
      private_key: "p1",
      accessKeyId: "k1",
      passwd: "w1",
      access_key: "k2",
      cookie: "sid=1",
      basic_auth: ["ann", "hunter2"],
      token: null,
      // A request body's tool: before, its parameters' password property became "[redacted]".
      parameters: {
        type: "object",
        properties: {
          password: { type: "string", description: "The user's password" },
          api_key: "looks like a schema, holds a key",
        },
      },
    }),
    {
      auth: "[redacted]",
      credentials: "[redacted]",
      private_key: "[redacted]",
      accessKeyId: "[redacted]",
      passwd: "[redacted]",
      access_key: "[redacted]",
      cookie: "[redacted]",
      basic_auth: "[redacted]",
      token: null,
      parameters: {
        type: "object",
        properties: {
          password: { type: "string", description: "The user's password" },
          api_key: "[redacted]",
        },
      },
    },
  );
});

Deno.test("redaction leaves near misses alone: prose, schema words, hashes, ids", () => {
  const kept = [
    "Each token costs money; the token limit is 4096 tokens. Reset your password by email.",
    "commit a94a8fe5ccb19ba61c4c0873d391e987982fbbd3 (sha256 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824)",
    '{"max_tokens": 100, "author": "ann", "keyboard": "us", "monkey": "banana"}',
    "monkey=banana&page_size=10&author=ann",
    "https://example.com/@scope/pkg?q=a@b and git@github.com:o/r.git and ann@example.com",
    "task-1234567890abc ask-me-anything-please skim-milk",
    "if token == other: return x => x",
    "id 123e4567-e89b-12d3-a456-426614174000, data:image/png;base64,iVBORw0KGgo=",
    "eyJ alone, AKIA alone, ghp_short, sk-short",
  ];
  deepEqual(kept.map(redactSecrets), kept);
  const schema = {
    type: "object",
    properties: { password: { type: "string" }, token: { type: "string", minLength: 8 } },
    required: ["password", "token"],
  };
  deepEqual(redactSecrets(schema), schema);
});

Deno.test("redaction's known limits: a secret with no name and no known form is kept; a credential name before : or = takes what follows even in prose or code", () => {
  const cases: [string, string][] = [
    ["my password is hunter2", "my password is hunter2"],
    ["run --password hunter2 -p hunter3", "run --password hunter2 -p hunter3"],
    ["curl -u ann:hunter2 https://example.com", "curl -u ann:hunter2 https://example.com"],
    ["Next token: foo", 'Next token: "[redacted]"'],
    ["token = tokenize(text)", "token = [redacted])"],
  ];
  deepEqual(cases.map(([text]) => redactSecrets(text)), cases.map(([, want]) => want));
});

Deno.test("redaction: a credential-named key's value on the line after its colon (YAML, JSON with CRLF) is redacted, as before the scan", () => {
  const cases: [string, string][] = [
    [
      "db:\n  password:\n    hunter2\n  user: bob",
      'db:\n  password:\n    "[redacted]"\n  user: bob',
    ],
    ['{"password":\r\n  "hunter2",}', '{"password":\r\n  "[redacted]",}'],
    ["api_key:\n\tabc123", 'api_key:\n\t"[redacted]"'],
    // `=` ends with its line: an empty value takes nothing from the next one.
    ["PASSWORD=\nUSER=bob", "PASSWORD=\nUSER=bob"],
  ];
  deepEqual(cases.map(([text]) => redactSecrets(text)), cases.map(([, want]) => want));
});

Deno.test("replay: a cassette whose redaction took more than today's (a schema's password property, written before 5435d67c) still replays; a value it kept must still match", async () => {
  const parameters = (password: unknown) => ({
    type: "object",
    properties: { password, user: { type: "string" } },
  });
  const request = (password: unknown, user: string) => ({
    model: "m",
    messages: [{ role: "user", content: user }],
    tools: [{ type: "function", function: { name: "login", parameters: parameters(password) } }],
  });
  const cassette = [
    { type: "meta", version: 1, provider: "openai", model: "m" },
    {
      type: "http_request",
      seq: 0,
      method: "POST",
      url: "http://127.0.0.1:9/v1/chat/completions",
      headers: {},
      body: request("[redacted]", "hi"),
    },
    { type: "http_response", seq: 0, status: 200, headers: {}, body: '{"ok":true}' },
  ].map((line) => JSON.stringify(line)).join("\n");
  const send = (user: string) =>
    replayFetch(cassette)("http://127.0.0.1:9/v1/chat/completions", {
      method: "POST",
      body: JSON.stringify(request({ type: "string" }, user)),
    }).then((response) => response.text(), (error: Error) => error.message);
  equal(await send("hi"), '{"ok":true}');
  ok((await send("bye")).includes("field body.messages[0].content"));
});

Deno.test("redaction: JSON in a string (a tool call's arguments) holding a JSON schema stays that JSON; a token in a key is still taken", () => {
  const args = JSON.stringify({
    name: "login_form",
    schema: { type: "object", properties: { password: { type: "string", minLength: 8 } } },
  });
  // Before, the text pass cut `{"type":"string","minLength":8` after the object pass kept it:
  // `…"password":"[redacted]","minLength":8}}}}`, which no longer parses (replay then reads
  // broken arguments).
  equal(redactSecrets(args), args);
  equal(
    redactSecrets(JSON.stringify({ [SECRETS.github]: "repo" })),
    JSON.stringify({ "[redacted]": "repo" }),
  );
});

Deno.test("redaction: under `properties`, a credential-named object that holds a value is no schema, and goes", () => {
  // Before, any object under `properties` was kept as a schema: the values below were kept.
  const token = { type: "string", minLength: 8, description: "The token" };
  const properties = {
    adminPassword: { type: "securestring", value: "P@ssw0rd!" },
    password: { type: "string", default: "hunter2" },
  };
  deepEqual(redactSecrets({ properties: { ...properties, token } }), {
    properties: { adminPassword: "[redacted]", password: "[redacted]", token },
  });
});
