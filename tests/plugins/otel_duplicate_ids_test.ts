/**
 * Two or more calls with one id in a message (a custom model or a script can send that):
 * the loop gives them unique ids, so each gets its own `execute_tool` span, closed, with
 * its own steps and outcome.
 */

import { createAgent, definePlugin, scriptedModel, text, toolCall } from "@tack/agent";
import { otelTracer } from "@tack/agent/plugins/otel";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { deepEqual, ok } from "node:assert/strict";
import { sleepTool as sleep } from "../support/agent_harness.ts";

/** Blocks `ms: 2` in its gates; observes every stage, so each call has a span per stage. */
const policy = definePlugin({
  name: "policy",
  beforeToolCall: () => undefined,
  verifyToolCall: ({ args }) => args.ms === 2 ? { block: true, reason: "not 2" } : undefined,
  afterToolCall: () => undefined,
});

function millis(span: ReadableSpan): number {
  return span.duration[0] * 1000 + span.duration[1] / 1e6;
}

function endsAt(span: ReadableSpan): number {
  return span.endTime[0] * 1000 + span.endTime[1] / 1e6;
}

Deno.test("otel: calls sharing one id each get their own closed span, steps and outcome", async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const agent = createAgent({
    // The first call runs longest, so the calls end in another order than they started; the
    // third is blocked in its gates while the first two wait to run.
    model: scriptedModel([
      [
        toolCall("sleep", { ms: 60 }, "dup"),
        toolCall("sleep", { ms: 1 }, "dup"),
        toolCall("sleep", { ms: 2 }, "dup"),
      ],
      [text("done")],
    ]),
    tools: [sleep],
    plugins: [policy],
    trace: otelTracer({ tracer: provider.getTracer("test"), recordContent: true }),
  });
  await agent.prompt("go");
  const spans = exporter.getFinishedSpans();
  const childrenOf = (parent: ReadableSpan) =>
    spans.filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId);
  const calls = spans.filter((s) => s.name === "execute_tool sleep");
  // Before, a second start with the id replaced the first in the tracer's map: only the
  // blocked call's span was ever ended and exported.
  const seen = calls.map((call) => {
    const steps = childrenOf(call).map((s) => s.name).sort();
    const prepare = childrenOf(call).find((s) => s.name === "prepare");
    return {
      args: call.attributes["gen_ai.tool.call.arguments"],
      id: call.attributes["gen_ai.tool.call.id"],
      outcome: call.attributes["tack.tool.outcome"],
      result: call.attributes["gen_ai.tool.call.result"],
      steps,
      gates: prepare ? childrenOf(prepare).map((s) => s.name).sort() : [],
    };
  }).sort((a, b) => String(a.args).localeCompare(String(b.args)));
  const ran = ["afterToolCall policy", "execute sleep", "prepare"];
  const gates = ["beforeToolCall policy", "verifyToolCall policy"];
  deepEqual(seen, [
    { args: '{"ms":1}', id: "dup_2", outcome: "ok", result: "slept 1", steps: ran, gates },
    {
      args: '{"ms":2}',
      id: "dup_3",
      outcome: "blocked",
      result: "not 2",
      steps: ["prepare"],
      gates,
    },
    { args: '{"ms":60}', id: "dup", outcome: "ok", result: "slept 60", steps: ran, gates },
  ]);
  // Each span times its own call: the long one holds its 60 ms execute and ends last.
  const long = calls.find((s) => s.attributes["gen_ai.tool.call.arguments"] === '{"ms":60}')!;
  const short = calls.find((s) => s.attributes["gen_ai.tool.call.arguments"] === '{"ms":1}')!;
  const execute = childrenOf(long).find((s) => s.name === "execute sleep")!;
  ok(millis(execute) >= 59, `execute of the 60 ms call took ${millis(execute)} ms`);
  ok(endsAt(short) < endsAt(long), "the 1 ms call's span ends before the 60 ms call's");
  // No span is left open: every span started was exported, turns and run included.
  deepEqual(spans.filter((s) => !s.ended), []);
  deepEqual(spans.map((s) => s.name).filter((n) => !n.startsWith("execute_tool")).sort(), [
    "afterToolCall policy",
    "afterToolCall policy",
    "beforeToolCall policy",
    "beforeToolCall policy",
    "beforeToolCall policy",
    "chat scripted",
    "chat scripted",
    "execute sleep",
    "execute sleep",
    "invoke_agent tack",
    "prepare",
    "prepare",
    "prepare",
    "turn 1",
    "turn 2",
    "verifyToolCall policy",
    "verifyToolCall policy",
    "verifyToolCall policy",
  ]);
});
