// Record and replay: a run recorded against the fake OpenAI server replays identically
// offline (model side and provider side); a changed request is a divergence error naming
// the field; secrets never reach the cassette.
import {
  type AgentEvent,
  type AssistantMessage,
  AssistantMessageStream,
  createAgent,
  createRecorder,
  defineTool,
  emptyUsage,
  type Model,
  parseCassette,
  redactSecrets,
  replayFetch,
  replayModel,
  replayTools,
  scriptedModel,
  text,
  toolCall,
} from "@tack/agent";
import { deepEqual, equal, match, ok, throws } from "node:assert/strict";
import { Type } from "typebox";
import { record, replayModelSide, replayProviderSide } from "../../examples/replay.ts";
import { openai } from "@tack/agent/sdk/providers/openai";
import { redactEventStream } from "../../sdk/replay/redact_event_stream.ts";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";

/**
 * An agent answered from `cassette` alone: the provider's replies and the tools' results, with
 * another key and a closed port, so nothing reaches a server.
 */
function replayedAgent(
  cassette: string,
  model: string,
  tools: Parameters<typeof replayTools>[1],
) {
  return createAgent({
    model: openai({
      model,
      baseURL: "http://127.0.0.1:9/v1",
      apiKey: "sk-other",
      fetch: replayFetch(cassette),
      maxRetries: 0,
    }),
    tools: replayTools(cassette, tools),
  });
}

Deno.test("examples/replay.ts: a recorded run replays offline, model side and provider side", async () => {
  const cassette = await record();
  equal(await replayModelSide(cassette), "It is sunny in Paris.");
  equal(await replayProviderSide(cassette), "It is sunny in Paris.");
});

Deno.test("a changed prompt is a divergence error naming the message and the field", async () => {
  const cassette = await record();
  equal(
    await replayModelSide(cassette, "Weather in Rome?"),
    'Replay diverged at model turn 0: message 0 (user), field content: recorded "Weather in Paris?", got "Weather in Rome?"',
  );
  match(
    await replayProviderSide(cassette, "Weather in Rome?"),
    /Replay diverged at HTTP request 0: field body\.messages\[0\]\.content: recorded "Weather in Paris\?", got "Weather in Rome\?"/,
  );
});

Deno.test("the cassette is readable JSONL with the API key and authorization redacted", async () => {
  const cassette = await record();
  ok(!cassette.includes("sk-test-secret-key-123456"));
  const lines = parseCassette(cassette);
  deepEqual(lines.map((l) => l.type), [
    "meta",
    "model_request",
    "http_request",
    "http_response",
    "model_response",
    "tool_result",
    "model_request",
    "http_request",
    "http_response",
    "model_response",
  ]);
  const request = lines.find((l) => l.type === "http_request");
  equal(request?.type === "http_request" && request.headers.authorization, "[redacted]");
});

Deno.test("replay is deterministic: the same events, the same transcript (timestamps aside)", async () => {
  const tool = defineTool({
    name: "add",
    description: "Adds",
    parameters: Type.Object({ a: Type.Number(), b: Type.Number() }),
    execute: ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  });
  const recorder = createRecorder();
  const live = createAgent({
    model: recorder.model(
      scriptedModel([[text("thinking"), toolCall("add", { a: 1, b: 2 }, "c1")], [text("3")]]),
    ),
    tools: [tool],
  });
  const liveEvents: AgentEvent[] = [];
  live.subscribe((e) => liveEvents.push(e));
  live.subscribe(recorder.listener);
  await live.prompt("1+2?");
  const cassette = await recorder.toJsonl();

  let executed = 0;
  const counting = defineTool({
    ...tool,
    execute: () => {
      executed++;
      return { content: [{ type: "text", text: "never" }] };
    },
  });
  const replay = createAgent({
    model: replayModel(cassette),
    tools: replayTools(cassette, [counting]),
  });
  const replayEvents: AgentEvent[] = [];
  replay.subscribe((e) => replayEvents.push(e));
  await replay.prompt("1+2?");
  equal(executed, 0);
  const shape = (events: AgentEvent[]) =>
    events.map((e) => e.type === "message_update" ? e.assistantMessageEvent.type : e.type);
  deepEqual(shape(replayEvents), shape(liveEvents));
  const strip = (value: unknown) =>
    JSON.parse(JSON.stringify(value, (k, v) => (k === "timestamp" ? undefined : v)));
  deepEqual(strip(replay.messages), strip(live.messages));
});

/** A tool whose arguments hold a password: what the cassettes must not keep. */
const login = defineTool({
  name: "login",
  description: "Logs in",
  parameters: Type.Object({ user: Type.String(), password: Type.String() }),
  execute: () => ({ content: [{ type: "text", text: "ok" }] }),
});

Deno.test("secrets in arguments, results and prompts are redacted on every cassette line, and the run still replays", async () => {
  const login = defineTool({
    name: "login",
    description: "Logs in",
    parameters: Type.Object({ user: Type.String(), password: Type.String() }),
    execute: () => ({
      content: [{ type: "text", text: "key sk-abcdefghijklmnop1234, header Bearer xyzTOKEN123" }],
    }),
  });
  const recorder = createRecorder();
  const script = [
    [toolCall("login", { user: "ann", password: "hunter2PW" }, "c1")],
    [text("in via http://basicuser:URLPASSWORD42@127.0.0.1:9/v1")],
  ];
  const live = createAgent({
    model: recorder.model(scriptedModel(script)),
    systemPrompt: "The key is sk-proj-abcdefghijklmnop",
    tools: [login],
  });
  live.subscribe(recorder.listener);
  await live.prompt("log in");
  const cassette = await recorder.toJsonl();
  // Before: the model request and response lines and the tool result kept them all.
  for (
    const secret of [
      "hunter2PW",
      "sk-abcdefghijklmnop1234",
      "xyzTOKEN123",
      "sk-proj-abcd",
      "URLPASSWORD42",
    ]
  ) {
    equal(cassette.includes(secret), false, `${secret} in the cassette`);
  }
  match(cassette, /"password":"\[redacted\]"/);
  const replay = createAgent({
    model: replayModel(cassette),
    systemPrompt: "The key is sk-proj-abcdefghijklmnop",
    tools: replayTools(cassette, [login]),
  });
  const [last] = (await replay.prompt("log in")).slice(-1);
  equal(
    last.role === "assistant" && last.content[0].type === "text" && last.content[0].text,
    "in via http://[redacted]@127.0.0.1:9/v1",
  );
});

Deno.test("a key streamed across two chunks, in a block the stream cut off, is not kept in the cassette's deltas", async () => {
  // A model whose answer breaks mid-block: no text_end ever comes for the redaction of the
  // whole block, so each delta is redacted on its own.
  const cut: Model = {
    provider: "test",
    id: "cut",
    stream() {
      const stream = new AssistantMessageStream();
      const partial = {
        role: "assistant" as const,
        content: [],
        stopReason: "stop" as const,
        usage: emptyUsage(),
        provider: "test",
        model: "cut",
        timestamp: 0,
      };
      stream.push({ type: "start", partial });
      stream.push({ type: "text_start", contentIndex: 0, partial });
      stream.push({
        type: "text_delta",
        contentIndex: 0,
        delta: "key sk-abcdefghijklmnop",
        partial,
      });
      stream.push({
        type: "text_delta",
        contentIndex: 0,
        delta: "1234 and Bearer xyzTOKEN123",
        partial,
      });
      stream.push({
        type: "error",
        reason: "error",
        error: { ...partial, stopReason: "error", errorMessage: "cut" },
      });
      return Promise.resolve(stream);
    },
  };
  const recorder = createRecorder();
  await createAgent({ model: recorder.model(cut) }).prompt("go");
  const cassette = await recorder.toJsonl();
  for (const secret of ["sk-abcdefghijklmnop", "xyzTOKEN123"]) {
    equal(cassette.includes(secret), false, `${secret} in the cassette`);
  }
});

Deno.test("recording at the provider level: a password argument and keys streamed in pieces are not kept in the HTTP lines, and the run still replays", async () => {
  const turns = [
    {
      toolCalls: [{ name: "login", arguments: { user: "ann", password: "hunter2PW" }, id: "c1" }],
      chunkSize: 3, // the arguments arrive in pieces: none holds the password whole
    },
    {
      text: "your key is sk-abcdefghijklmnop0123456789 and bearer ghp_TOKENvalue123",
      chunkSize: 4,
    },
  ];
  let cassette: string;
  {
    await using server = await startFakeOpenAI({ turns });
    const recorder = createRecorder();
    const model = openai({
      model: "gpt-test",
      baseURL: server.baseURL,
      apiKey: "sk-test-secret-key-123456",
      fetch: recorder.fetch(),
    });
    const agent = createAgent({ model, tools: [login] });
    agent.subscribe(recorder.listener);
    await agent.prompt("log in");
    cassette = await recorder.toJsonl();
  }
  // Not whole, and not in pieces either: the streamed texts put back together.
  const streamed = parseCassette(cassette).filter((l) => l.type === "http_response")
    .map((l) => l.type === "http_response" ? l.body : "").join("")
    .split("\n").filter((line) => line.startsWith("data: {"))
    .map((line) => JSON.parse(line.slice(6)).choices?.[0]?.delta ?? {})
    .map((d) =>
      (d.content ?? "") +
      (d.tool_calls ?? []).map((c: { function?: { arguments?: string } }) =>
        c.function?.arguments ?? ""
      ).join("")
    )
    .join("");
  for (
    const secret of [
      "hunter2PW",
      "abcdefghijklmnop0123456789",
      "ghp_TOKENvalue123",
      "sk-test-secret",
    ]
  ) {
    equal(cassette.includes(secret), false, secret);
    equal(streamed.includes(secret), false, secret);
  }
  match(streamed, /"password":"\[redacted\]"/);
  const replayed = replayedAgent(cassette, "gpt-test", [login]);
  const added = await replayed.prompt("log in");
  const last = added.at(-1);
  equal(
    last?.role === "assistant" && last.content[0]?.type === "text" ? last.content[0].text : "",
    "your key is [redacted] and Bearer [redacted]",
  );
});

Deno.test("a password in arguments that do not parse (a trailing comma) is kept on no line, at either level", async () => {
  // Found by an attack: the raw deltas, the argumentsError text quoting them, the tool result
  // and the next request all kept it, as the parsed arguments ({}) showed no secret.
  await using server = await startFakeOpenAI({
    turns: [
      {
        toolCalls: [{
          name: "login",
          arguments: '{"user":"bob","password":"hunter2-TOPSECRET",}',
          id: "c1",
        }],
        chunkSize: 3,
      },
      { text: "done" },
    ],
  });
  const recorder = createRecorder();
  const model = openai({
    model: "gpt-test",
    baseURL: server.baseURL,
    apiKey: "sk-test-secret-key-123456",
    fetch: recorder.fetch(),
  });
  const agent = createAgent({ model: recorder.model(model), tools: [login] });
  agent.subscribe(recorder.listener);
  await agent.prompt("log in as bob");
  const cassette = await recorder.toJsonl();
  const lines = parseCassette(cassette);
  for (const line of lines) {
    equal(JSON.stringify(line).includes("hunter2"), false, `${line.type} keeps the password`);
  }
  const response = lines.find((l) => l.type === "model_response");
  const deltas = response?.type === "model_response"
    ? response.events.filter((e) => e.type === "toolcall_delta").map((e) => e.delta).join("")
    : "";
  equal(deltas, '{"user":"bob","password":"[redacted]",}');
  const result = lines.find((l) => l.type === "tool_result");
  equal(result?.type === "tool_result" && result.isError, true);
});

Deno.test("recording at the provider level: a JSON reply with no secret is kept byte for byte, and calls streamed without index are redacted call by call; both replay", async () => {
  const t = defineTool({
    name: "t",
    description: "t",
    parameters: Type.Object({}, { additionalProperties: true }),
    execute: () => ({ content: [{ type: "text", text: "ok" }] }),
  });
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${
      JSON.stringify({ id: "x", choices: [{ index: 0, delta, finish_reason: finish }] })
    }\n\n`;
  // Two calls without index: id and name first, then argument pieces with neither.
  const calls = chunk({
    tool_calls: [{ id: "c1", type: "function", function: { name: "t", arguments: "" } }],
  }) +
    chunk({ tool_calls: [{ function: { arguments: '{"password":' } }] }) +
    chunk({ tool_calls: [{ function: { arguments: '"hunter2PW"}' } }] }) +
    chunk({
      tool_calls: [{ id: "c2", type: "function", function: { name: "t", arguments: "" } }],
    }) +
    chunk({ tool_calls: [{ function: { arguments: '{"n":1}' } }] }) +
    chunk({}, "tool_calls") + "data: [DONE]\n\n";
  const reply = '{\n  "status": "ok",\n  "id": 12345678901234567890,\n  "n": 1.50\n}';
  const turns = [{ rawBody: calls, contentType: "text/event-stream" }, { text: reply }, {
    text: "fine",
  }];
  let cassette: string;
  {
    await using server = await startFakeOpenAI({ turns });
    const recorder = createRecorder();
    const agent = createAgent({
      model: openai({
        model: "m",
        baseURL: server.baseURL,
        apiKey: "sk-x",
        fetch: recorder.fetch(),
      }),
      tools: [t],
    });
    agent.subscribe(recorder.listener);
    await agent.prompt("go");
    await agent.prompt("again");
    cassette = await recorder.toJsonl();
  }
  equal(cassette.includes("hunter2PW"), false);
  const replayed = replayedAgent(cassette, "m", [t]);
  const first = await replayed.prompt("go");
  const second = await replayed.prompt("again");
  const said = (messages: readonly { role: string }[]) =>
    messages.filter((m): m is AssistantMessage => m.role === "assistant").map((m) =>
      m.errorMessage ??
        m.content.map((b) =>
          b.type === "text" ? b.text : b.type === "toolCall" ? JSON.stringify(b.arguments) : ""
        ).join("|")
    );
  deepEqual(said(first), ['{"password":"[redacted]"}|{"n":1}', reply]);
  deepEqual(said(second), ["fine"]);
});

Deno.test("replay errors: past the cassette, a tool call not in it, a broken line", async () => {
  const recorder = createRecorder();
  await createAgent({ model: recorder.model(scriptedModel([[text("hi")]])) }).prompt("a");
  const cassette = await recorder.toJsonl();
  const agent = createAgent({ model: replayModel(cassette) });
  await agent.prompt("a");
  const [last] = await agent.prompt("b").then((m) => m.slice(-1));
  equal(
    last.role === "assistant" && last.errorMessage,
    "Replay ran past the cassette: it has 1 model turns, and the agent asked for turn 1",
  );
  const [tool] = replayTools(cassette, [
    defineTool({
      name: "t",
      description: "",
      parameters: Type.Object({}),
      execute: () => ({ content: [] }),
    }),
  ]);
  throws(() => tool.execute({}, { toolCallId: "c9", signal: new AbortController().signal }), {
    message: "Cannot replay tool t: call c9 is not in the cassette",
  });
  throws(() => parseCassette('{"type":"meta"}\nnot json\n'), {
    name: "SyntaxError",
    message: /^Cannot parse cassette: line 2 is not JSON/,
  });
});

Deno.test("redaction: credential-named fields at any depth, bearer tokens and sk- keys in strings", () => {
  deepEqual(
    redactSecrets({
      headers: { Authorization: "Bearer abc.def", "x-api-key": "k", "content-type": "json" },
      body: { apiKey: "k2", api_key: "k3", client_secret: "s", password: "p", access_token: "t" },
      note: "call with Bearer xyz123 or sk-abcdefghijkl please",
      list: [{ token: "t2" }, "plain"],
    }),
    {
      headers: { Authorization: "[redacted]", "x-api-key": "[redacted]", "content-type": "json" },
      body: {
        apiKey: "[redacted]",
        api_key: "[redacted]",
        client_secret: "[redacted]",
        password: "[redacted]",
        access_token: "[redacted]",
      },
      note: "call with Bearer [redacted] or [redacted] please",
      list: [{ token: "[redacted]" }, "plain"],
    },
  );
});

Deno.test("redaction in text that only looks like JSON keeps a header's token out, whole", () => {
  // Found by a review: the key/value rule ran before the Bearer rule and replaced only the
  // word "Bearer", leaving the token; a Basic credential kept its base64.
  deepEqual(
    [
      "Authorization: Bearer eyJhbGciOi.payload.sig",
      "authorization: Basic dXNlcjpwYXNzd29yZA==",
      '{"user":"bob","password":"hunter2",}',
      "password: hunter2 and more, user: bob",
    ].map(redactSecrets),
    [
      "Authorization: Bearer [redacted]",
      'authorization: "[redacted]"',
      '{"user":"bob","password":"[redacted]",}',
      'password: "[redacted]", user: bob',
    ],
  );
});

Deno.test("redactEventStream: interleaved calls, reasoning_text, and a new id at an index are each redacted as their own whole", () => {
  const event = (delta: unknown) =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
  const call = (index: number, args: string, id?: string) =>
    event({ tool_calls: [{ index, ...(id ? { id } : {}), function: { arguments: args } }] });
  const body = call(0, '{"password":"hun', "a") + call(1, '{"token":"ab', "b") +
    call(0, 'ter2"}') + call(1, 'cd"}') +
    call(0, '{"secret":"x', "c") + call(0, 'yz"}') + // another call at index 0
    event({ reasoning_text: "the key is sk-abcd" }) + event({ reasoning_text: "efgh1234 ok" });
  const kept = redactEventStream(body);
  const pieces = kept.split("\n").filter((line) => line.startsWith("data: {")).map((line) => {
    const delta = JSON.parse(line.slice(6)).choices[0].delta;
    return delta.tool_calls?.[0].function.arguments ?? delta.reasoning_text;
  });
  deepEqual(pieces, [
    '{"password":"[redacted]"}',
    '{"token":"[redacted]"}',
    "",
    "",
    '{"secret":"[redacted]"}',
    "",
    "the key is [redacted] ok",
    "",
  ]);
});
