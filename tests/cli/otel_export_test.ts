// The real CLI under OTEL_DENO=true: Deno's own exporter sends the run's spans to an OTLP
// collector (here a loopback one that takes OTLP/HTTP JSON), and --trace writes the page.

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";

const REPO = new URL("../..", import.meta.url).pathname;

interface OtlpSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: Record<string, unknown> }[];
  status?: { code?: number; message?: string };
}

function attribute(span: OtlpSpan, key: string): unknown {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
}

Deno.test("OTEL_DENO=true: the CLI's run reaches an OTLP collector as GenAI spans, with no setup", async () => {
  const spans: OtlpSpan[] = [];
  const collector = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.json();
    if (new URL(req.url).pathname === "/v1/traces") {
      for (const resource of body.resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) spans.push(...scope.spans);
      }
    }
    return Response.json({});
  });
  await using server = await startFakeOpenAI({
    turns: [
      { toolCalls: [{ name: "ls", arguments: { path: "." } }], usage: { input: 120, output: 9 } },
      { text: "One file.", usage: { input: 150, output: 3 } },
    ],
  });
  const cwd = await Deno.makeTempDir({ dir: join(REPO, "tests", "cli"), prefix: ".tmp_otel_" });
  try {
    await Deno.writeTextFile(join(cwd, "a.txt"), "alpha");
    const env: Record<string, string> = {
      NO_COLOR: "1",
      OPENAI_API_KEY: "test",
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.addr.port}`,
      OTEL_DENO_CONSOLE: "ignore",
      OTEL_SERVICE_NAME: "tack-test",
    };
    for (const name of ["HOME", "PATH", "DENO_DIR"]) {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    }
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-P=cli",
        "--config",
        join(REPO, "deno.json"),
        "--no-prompt",
        join(REPO, "cli", "main.ts"),
        "--base-url",
        server.baseURL,
        "--trace",
        "run.html",
        "what files are here?",
      ],
      cwd,
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    equal(output.code, 0, stderr);
    match(stderr, /Timeline: run\.html/);
    match(await Deno.readTextFile(join(cwd, "run.html")), /execute_tool|ls/);
  } finally {
    await Deno.remove(cwd, { recursive: true });
    await collector.shutdown();
  }

  const named = (name: string) => spans.filter((s) => s.name === name);
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const parentOf = (s: OtlpSpan) => s.parentSpanId ? byId.get(s.parentSpanId)?.name : undefined;
  const [run] = named("invoke_agent tack");
  ok(run, `spans received: ${spans.map((s) => s.name).join(", ")}`);
  // Deno's own fetch spans (the model requests, "POST") come too; the run's tree is ours.
  deepEqual(
    spans.filter((s) => s.name !== "POST").map((s) => `${parentOf(s)} > ${s.name}`).sort(),
    [
      "execute_tool ls > execute ls",
      "execute_tool ls > prepare",
      "invoke_agent tack > turn 1",
      "invoke_agent tack > turn 2",
      "prepare > beforeToolCall confirm",
      "prepare > verifyToolCall confirm",
      "turn 1 > chat gpt-4o-mini",
      "turn 1 > execute_tool ls",
      "turn 2 > chat gpt-4o-mini",
      "undefined > invoke_agent tack",
    ],
  );
  equal(attribute(run, "gen_ai.operation.name"), "invoke_agent");
  equal(Number(attribute(run, "gen_ai.usage.input_tokens")), 270);
  deepEqual(named("turn 1").map(parentOf), ["invoke_agent tack"]);
  const chats = spans.filter((s) => s.name.startsWith("chat "));
  deepEqual(chats.map(parentOf), ["turn 1", "turn 2"]);
  deepEqual(chats.map((s) => Number(attribute(s, "gen_ai.usage.output_tokens"))), [9, 3]);
  const [tool] = named("execute_tool ls");
  equal(parentOf(tool), "turn 1");
  equal(attribute(tool, "gen_ai.tool.name"), "ls");
  equal(attribute(tool, "tack.tool.outcome"), "ok");
  equal(attribute(tool, "gen_ai.tool.call.arguments"), undefined);
  deepEqual(named("execute ls").map(parentOf), ["execute_tool ls"]);
  ok(
    named("beforeToolCall confirm").length === 0 ||
      parentOf(named("beforeToolCall confirm")[0]) === "prepare",
  );
});
