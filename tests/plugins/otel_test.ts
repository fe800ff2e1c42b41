import {
  createAgent,
  definePlugin,
  defineTool,
  emptyUsage,
  scriptedModel,
  text,
  toolCall,
} from "@tack/agent";
import { otelTracer } from "@tack/agent/plugins/otel";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { SpanStatusCode } from "@opentelemetry/api";
import { Type } from "typebox";
import { deepEqual, equal, ok } from "node:assert/strict";
import { echoTool } from "../support/agent_harness.ts";

function inMemory() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer("test") };
}

/** Each span as "parent > name", so the tree reads in one assertion. */
function tree(spans: readonly ReadableSpan[]): string[] {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  return spans.map((s) => {
    const parent = s.parentSpanContext ? byId.get(s.parentSpanContext.spanId)?.name : undefined;
    return `${parent ?? "-"} > ${s.name}`;
  }).sort();
}

function find(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const span = spans.find((s) => s.name === name);
  ok(span, `no span named ${name}: ${spans.map((s) => s.name).join(", ")}`);
  return span;
}

const boom = defineTool({
  name: "boom",
  description: "Always fails",
  parameters: Type.Object({}),
  execute: () => {
    throw new Error("disk full");
  },
});

const slow = defineTool({
  name: "slow",
  description: "Never finishes on its own",
  parameters: Type.Object({}),
  timeoutMs: 5,
  execute: (_params, { signal }) =>
    new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
});

const policy = definePlugin({
  name: "policy",
  beforeToolCall: () => undefined,
  verifyToolCall: ({ args }) =>
    args.text === "secret" ? { block: true, reason: "no secrets" } : undefined,
  afterToolCall: () => undefined,
});

async function runTraced(recordContent = false) {
  const { exporter, tracer } = inMemory();
  const agent = createAgent({
    model: scriptedModel([
      [toolCall("echo", { text: "hi" }, "c1"), toolCall("echo", { text: "secret" }, "c2")],
      [toolCall("boom", {}, "c3"), toolCall("slow", {}, "c4")],
      [text("done")],
    ]),
    plugins: [policy],
    tools: [echoTool(), boom, slow],
    trace: otelTracer({ tracer, recordContent }),
  });
  await agent.prompt("go");
  return exporter.getFinishedSpans();
}

Deno.test("otel: a run is invoke_agent > turns > chat and execute_tool, with hooks by plugin inside each call", async () => {
  const spans = await runTraced();
  deepEqual(tree(spans), [
    "- > invoke_agent tack",
    "execute_tool boom > afterToolCall policy",
    "execute_tool boom > execute boom",
    "execute_tool boom > prepare",
    "execute_tool echo > afterToolCall policy",
    "execute_tool echo > execute echo",
    "execute_tool echo > prepare",
    "execute_tool echo > prepare",
    "execute_tool slow > afterToolCall policy",
    "execute_tool slow > execute slow",
    "execute_tool slow > prepare",
    "invoke_agent tack > turn 1",
    "invoke_agent tack > turn 2",
    "invoke_agent tack > turn 3",
    "prepare > beforeToolCall policy",
    "prepare > beforeToolCall policy",
    "prepare > beforeToolCall policy",
    "prepare > beforeToolCall policy",
    "prepare > verifyToolCall policy",
    "prepare > verifyToolCall policy",
    "prepare > verifyToolCall policy",
    "prepare > verifyToolCall policy",
    "turn 1 > chat scripted",
    "turn 1 > execute_tool echo",
    "turn 1 > execute_tool echo",
    "turn 2 > chat scripted",
    "turn 2 > execute_tool boom",
    "turn 2 > execute_tool slow",
    "turn 3 > chat scripted",
  ]);
});

Deno.test("otel: GenAI attributes on the agent, chat and tool spans", async () => {
  const spans = await runTraced();
  const run = find(spans, "invoke_agent tack");
  equal(run.attributes["gen_ai.operation.name"], "invoke_agent");
  equal(run.attributes["gen_ai.agent.name"], "tack");
  const chat = find(spans, "chat scripted");
  equal(chat.attributes["gen_ai.operation.name"], "chat");
  equal(chat.attributes["gen_ai.request.model"], "scripted");
  equal(chat.attributes["gen_ai.provider.name"], "scripted");
  equal(chat.attributes["gen_ai.usage.input_tokens"], 0);
  deepEqual(chat.attributes["gen_ai.response.finish_reasons"], ["toolUse"]);
  const echo = spans.find((s) => s.attributes["gen_ai.tool.call.id"] === "c1")!;
  equal(echo.name, "execute_tool echo");
  equal(echo.attributes["gen_ai.operation.name"], "execute_tool");
  equal(echo.attributes["gen_ai.tool.name"], "echo");
  equal(echo.attributes["tack.tool.outcome"], "ok");
  equal(echo.status.code, SpanStatusCode.UNSET);
  equal(echo.attributes["gen_ai.tool.call.arguments"], undefined);
  equal(echo.attributes["gen_ai.tool.call.result"], undefined);
  equal(chat.attributes["gen_ai.output.messages"], undefined);
});

Deno.test("otel: blocked, failed and timed-out calls carry error.type, status and who blocked", async () => {
  const spans = await runTraced();
  const blocked = spans.find((s) => s.attributes["gen_ai.tool.call.id"] === "c2")!;
  equal(blocked.attributes["error.type"], "blocked");
  equal(blocked.attributes["tack.blocked_by"], "policy");
  deepEqual(blocked.status, { code: SpanStatusCode.ERROR, message: "no secrets" });
  const verdicts = spans.filter((s) => s.name === "verifyToolCall policy")
    .map((s) => s.attributes["tack.hook.verdict"]).sort();
  deepEqual(verdicts, ["block", "pass", "pass", "pass"]);

  // A tool's error text is a result: without recordContent only its type is exported.
  const failed = find(spans, "execute_tool boom");
  equal(failed.attributes["error.type"], "tool_error");
  deepEqual(failed.status, { code: SpanStatusCode.ERROR, message: "tool_error" });
  const execution = find(spans, "execute boom");
  equal(execution.attributes["error.type"], "tool_error");
  equal(execution.events[0]?.name, "exception");
  equal(JSON.stringify(execution.events).includes("disk full"), false);
  const recorded = await runTraced(true);
  deepEqual(find(recorded, "execute_tool boom").status, {
    code: SpanStatusCode.ERROR,
    message: "disk full",
  });

  const timedOut = find(spans, "execute_tool slow");
  equal(timedOut.attributes["error.type"], "timeout");
  equal(timedOut.status.code, SpanStatusCode.ERROR);
  equal(timedOut.status.message, "Tool slow timed out after 5 ms and was stopped");
});

Deno.test("otel: a blocked call's prepare span ends as finished, not unfinished", async () => {
  const spans = await runTraced();
  const under = (id: string, name: string) => {
    const call = spans.find((s) => s.attributes["gen_ai.tool.call.id"] === id)!;
    return spans.find((s) =>
      s.name === name && s.parentSpanContext?.spanId === call.spanContext().spanId
    )!;
  };
  // Before: the prepare span of a call blocked in it read as never settled.
  equal(under("c2", "prepare").attributes["tack.step.unfinished"], undefined);
});

Deno.test("otel: a deferred call's spans are all exported: the hook's verdict is defer, its prepare span ends, the call's outcome is deferred", async () => {
  const { exporter, tracer } = inMemory();
  const asks = definePlugin({
    name: "asks",
    beforeToolCall: () => ({ defer: true, reason: "needs a person" }),
  });
  const agent = createAgent({
    model: scriptedModel([[toolCall("echo", { text: "hi" }, "d1")], [text("done")]]),
    plugins: [asks, policy],
    tools: [echoTool()],
    trace: otelTracer({ tracer }),
  });
  await agent.prompt("go");
  const spans = exporter.getFinishedSpans();
  // Before: prepare never ended (never exported), so its hook spans were orphan roots.
  deepEqual(tree(spans).filter((line) => !line.includes("chat")), [
    "- > invoke_agent tack",
    "execute_tool echo > prepare",
    "invoke_agent tack > turn 1",
    "prepare > beforeToolCall asks",
    "prepare > beforeToolCall policy",
    "prepare > verifyToolCall policy",
    "turn 1 > execute_tool echo",
  ]);
  equal(find(spans, "beforeToolCall asks").attributes["tack.hook.verdict"], "defer");
  equal(find(spans, "execute_tool echo").attributes["tack.tool.outcome"], "deferred");
  equal(find(spans, "prepare").attributes["tack.step.unfinished"], undefined);
});

Deno.test("otel: without recordContent, invalid arguments quoted in the error result are not exported", async () => {
  const { exporter, tracer } = inMemory();
  const login = defineTool({
    name: "login",
    description: "Logs in",
    parameters: Type.Object({ password: Type.String(), port: Type.Integer() }),
    execute: () => ({ content: [{ type: "text", text: "ok" }] }),
  });
  const agent = createAgent({
    model: scriptedModel([
      [toolCall("login", { password: "hunter2PW", port: "x" }, "l1")],
      [text("done")],
    ]),
    tools: [login],
    trace: otelTracer({ tracer }),
  });
  await agent.prompt("go");
  const spans = exporter.getFinishedSpans();
  equal(
    JSON.stringify(spans.map((s) => [s.attributes, s.status, s.events])).includes("hunter2PW"),
    false,
  );
  deepEqual(find(spans, "execute_tool login").status, {
    code: SpanStatusCode.ERROR,
    message: "tool_error",
  });
});

Deno.test("otel: a made-up tool name that could not be a tool's, and a huge call id, are not exported as they came", async () => {
  // Found by an attack: a model named a missing tool after a key it had read
  // ("exfil_OPENAI_API_KEY=sk-…"), and a 2 MB name made a 2-million-character span name.
  const { exporter, tracer } = inMemory();
  const leak = "exfil_OPENAI_API_KEY=sk-live-abcdef0123456789";
  const longId = "c".repeat(100_000);
  const agent = createAgent({
    model: scriptedModel([[toolCall(leak, {}, "a"), toolCall("echo", {}, longId)], [text("ok")]]),
    tools: [echoTool()],
    trace: otelTracer({ tracer }),
  });
  await agent.prompt("go");
  const spans = exporter.getFinishedSpans();
  const exported = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.status, s.events]));
  equal(exported.includes("sk-live"), false);
  equal(
    find(spans, "execute_tool invalid_tool_name").attributes["gen_ai.tool.name"],
    "invalid_tool_name",
  );
  const echo = find(spans, "execute_tool echo");
  equal(echo.attributes["gen_ai.tool.call.id"], `${"c".repeat(128)}…`);
});

Deno.test("otel: arguments, results and the model's text are recorded only when asked", async () => {
  const spans = await runTraced(true);
  const echo = spans.find((s) => s.attributes["gen_ai.tool.call.id"] === "c1")!;
  equal(echo.attributes["gen_ai.tool.call.arguments"], '{"text":"hi"}');
  equal(echo.attributes["gen_ai.tool.call.result"], "hi");
  const last = spans.filter((s) => s.name === "chat scripted")
    .find((s) => String(s.attributes["gen_ai.output.messages"]).includes("done"));
  deepEqual(JSON.parse(String(last?.attributes["gen_ai.output.messages"])), [
    { role: "assistant", parts: [{ type: "text", content: "done" }], finish_reason: "stop" },
  ]);
});

Deno.test("otel: token usage lands on the chat, turn and run spans; a model error fails them", () => {
  const { exporter, tracer } = inMemory();
  const t = otelTracer({ tracer });
  const message = (stopReason: "toolUse" | "error", input: number, output: number) => ({
    role: "assistant" as const,
    content: [],
    stopReason,
    errorMessage: stopReason === "error" ? "Model stream failed: 500" : undefined,
    usage: { ...emptyUsage(), input, output },
    provider: "openai",
    model: "gpt-test",
    timestamp: 0,
  });
  t.onEvent({ type: "agent_start" });
  t.onEvent({ type: "turn_start" });
  const first = message("toolUse", 100, 7);
  t.onEvent({ type: "message_start", message: first });
  t.onEvent({ type: "message_end", message: first });
  t.onEvent({ type: "turn_end", message: first, toolResults: [] });
  t.onEvent({ type: "turn_start" });
  const second = message("error", 120, 0);
  t.onEvent({ type: "message_start", message: second });
  t.onEvent({ type: "message_end", message: second });
  t.onEvent({ type: "turn_end", message: second, toolResults: [] });
  t.onEvent({ type: "agent_end", messages: [] });
  const spans = exporter.getFinishedSpans();
  const chats = spans.filter((s) => s.name === "chat gpt-test");
  deepEqual(chats.map((s) => s.attributes["gen_ai.usage.input_tokens"]), [100, 120]);
  equal(chats[1].attributes["error.type"], "model_error");
  deepEqual(chats[1].status, { code: SpanStatusCode.ERROR, message: "Model stream failed: 500" });
  equal(find(spans, "turn 1").attributes["gen_ai.usage.output_tokens"], 7);
  const run = find(spans, "invoke_agent tack");
  equal(run.attributes["gen_ai.usage.input_tokens"], 220);
  equal(run.attributes["gen_ai.request.model"], "gpt-test");
  equal(run.status.code, SpanStatusCode.ERROR);
});

Deno.test("otel: a step for a call the tracer never saw start is ignored, not thrown", () => {
  const { exporter, tracer } = inMemory();
  const t = otelTracer({ tracer });
  t.startStep({ kind: "execute", toolCallId: "nope", toolName: "x" })({});
  equal(exporter.getFinishedSpans().length, 0);
});

Deno.test("otel: without trace the agent runs the tools as given; with it, wrapped ones", () => {
  const tool = echoTool();
  const plain = createAgent({ model: scriptedModel([]), tools: [tool] });
  equal(plain.tools[0], tool);
  const { tracer } = inMemory();
  const traced = createAgent({
    model: scriptedModel([]),
    tools: [tool],
    trace: otelTracer({ tracer }),
  });
  ok(traced.tools[0] !== tool);
  equal(traced.tools[0].name, "echo");
});
