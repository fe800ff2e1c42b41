import { createAgent, definePlugin, emptyUsage, scriptedModel, text, toolCall } from "@tack/agent";
import { deepEqual, doesNotMatch, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { parseCliArgs } from "../../cli/args.ts";
import { main } from "../../cli/main.ts";
import { loadSession, openSession } from "../../cli/session.ts";
import { parseSessionLines, traceCommand } from "../../cli/trace_command.ts";
import { renderTimelineHtml } from "../../cli/trace_html.ts";
import { recordTimeline } from "../../cli/trace_recorder.ts";
import { buildTimeline } from "../../cli/trace_timeline.ts";
import { echoTool } from "../support/agent_harness.ts";
import { HOSTILE, SESSION } from "./trace_fixture.ts";

Deno.test("timeline: parallel calls get their own lanes, with outcome, who blocked, args and result", () => {
  const { runs, approximate } = buildTimeline(SESSION);
  equal(approximate, false);
  equal(runs.length, 1);
  equal(runs[0].prompt, "Fix the greeting");
  equal(runs[0].end - runs[0].start, 2400);
  const [first, second, third] = runs[0].turns;
  equal(first.modelEnd - first.start, 400);
  deepEqual(first.usage, { input: 1200, output: 40 });
  equal(first.text, "Let me look.");
  deepEqual(first.calls.map((c) => [c.name, c.lane, c.outcome, c.end - c.start]), [
    ["read", 0, "ok", 490],
    ["grep", 1, "error", 280],
    ["bash", 2, "blocked", 10],
  ]);
  equal(first.lanes, 3);
  equal(first.calls[2].blockedBy, "confirm");
  deepEqual(first.calls[2].args, { command: "rm -rf .git" });
  equal(first.calls[0].result, "export function greet() {}");
  deepEqual(second.calls.map((c) => [c.name, c.outcome]), [["slow", "timeout"], [
    "stop",
    "aborted",
  ]]);
  equal(third.calls.length, 0);
  equal(third.text, "Fixed the greeting.");
});

Deno.test("timeline: a session without timing lines is drawn from message timestamps, marked approximate", () => {
  const messages = SESSION.filter((line) => "role" in line);
  const timeline = buildTimeline(messages);
  equal(timeline.approximate, true);
  equal(timeline.runs[0].turns.length, 3);
  deepEqual(timeline.runs[0].turns[0].calls.map((c) => c.outcome), ["ok", "error", "error"]);
  match(renderTimelineHtml(timeline, "old.jsonl"), /times come from message timestamps/);
});

Deno.test("timeline: a call the session ended during shows as aborted, with a result saying so", () => {
  const lines = SESSION.slice(0, 9); // read started, never ended
  const call = buildTimeline(lines).runs[0].turns[0].calls[0];
  equal(call.outcome, "aborted");
  equal(call.result, "(no result: the session ended while it ran)");
});

Deno.test("page: every text from the session is escaped; details are JSON that cannot close the script", () => {
  const html = renderTimelineHtml(buildTimeline(SESSION), `<b>${HOSTILE}</b>.jsonl`);
  doesNotMatch(html, /<img/);
  doesNotMatch(html, /<b><\/script>/);
  equal(html.match(/<\/script>/g)?.length, 2); // the data's end and the script's end
  match(html, /&#60;b&#62;&#60;\/script&#62;/);
  ok(!/https?:\/\//.test(html.replace(/http:\/\/www\.w3\.org[^"]*/g, "")), "no network URL");
});

Deno.test("page: a recorded run of a real agent (blocked call included) renders its turns and calls", async () => {
  const guard = definePlugin({
    name: "guard",
    beforeToolCall: ({ args }) =>
      args.text === "no" ? { block: true, reason: "not that" } : undefined,
  });
  const agent = createAgent({
    model: scriptedModel([
      [toolCall("echo", { text: "yes" }), toolCall("echo", { text: "no" })],
      [text("done")],
    ]),
    plugins: [guard],
    tools: [echoTool()],
  });
  const recorder = recordTimeline(agent);
  await agent.prompt("go");
  const turns = buildTimeline(recorder.lines).runs[0].turns;
  deepEqual(turns[0].calls.map((c) => [c.outcome, c.blockedBy]), [["ok", undefined], [
    "blocked",
    "guard",
  ]]);
  const html = recorder.html("run");
  match(html, /echo · blocked by guard/);
  match(html, /class="bar call ok/);
  // The page holds what the tools read: owner-only, as the session is.
  const dir = await Deno.makeTempDir();
  await recorder.write(join(dir, "run.html"));
  equal((await Deno.stat(join(dir, "run.html"))).mode! & 0o777, 0o600);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("session: timing lines are written between messages and skipped when the session is loaded", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "s.jsonl");
  const opened = await openSession(path);
  if (opened.kind !== "ok") throw new Error(opened.message);
  opened.value.append({ event: "turn_start", at: 1 });
  opened.value.append({ role: "user", content: "hi", timestamp: 1 });
  opened.value.append({ event: "turn_end", at: 2 });
  const loaded = await loadSession(path);
  equal(loaded.kind, "ok");
  if (loaded.kind === "ok") {
    deepEqual(loaded.value.messages, [{ role: "user", content: "hi", timestamp: 1 }]);
    deepEqual(loaded.value.warnings, []);
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("session: a line that is neither a message nor a timing record is still an error", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "s.jsonl");
  await Deno.writeTextFile(
    path,
    '{"event":"nope","at":1}\n{"role":"user","content":"hi","timestamp":1}\n',
  );
  const loaded = await loadSession(path);
  deepEqual(loaded, {
    kind: "error",
    message: `Cannot load session ${path}: line 1 is not a message (it needs a role and content)`,
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("trace command: bad lines, a torn tail, a missing file and an unwritable target", async () => {
  equal(
    (parseSessionLines(
      '{"event":"turn_start","at":1}\n{"x":1}\n{"event":"turn_end","at":2}',
      "s.jsonl",
    ) as {
      message: string;
    }).message,
    "Cannot trace s.jsonl: line 2 is neither a message nor a timing record",
  );
  const torn = parseSessionLines('{"event":"turn_start","at":1}\n{"role":"ass', "s.jsonl");
  equal(torn.kind === "ok" && torn.lines.length, 1);

  const dir = await Deno.makeTempDir();
  const said: string[] = [];
  const io = { out: (t: string) => said.push(t), err: (t: string) => said.push(t) };
  equal(await traceCommand(join(dir, "none.jsonl"), undefined, io), 2);
  equal(said.pop(), `Cannot trace ${join(dir, "none.jsonl")}: the file does not exist\n`);
  const session = join(dir, "s.jsonl");
  await Deno.writeTextFile(session, SESSION.map((l) => JSON.stringify(l)).join("\n") + "\n");
  equal(await traceCommand(session, join(dir, "no", "such", "dir.html"), io), 2);
  match(said.pop()!, /^Cannot write .*dir\.html: /);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("trace command: times no clock gives and content of the wrong kind are bad lines, not a hang or a crash", () => {
  // Found by an attack: "at":1e400 (Infinity) or ±1.7e308 made the page's ticks count forever
  // (2.8 GB in 8 s); a user line with a number for content threw a TypeError with a stack.
  for (
    const [bad, line] of [
      ['{"event":"agent_end","at":1e400}', 2],
      ['{"event":"agent_start","at":-1.7e308}', 2],
      ['{"role":"user","content":5,"timestamp":1}', 2],
      ['{"role":"assistant","content":"hello"}', 2],
      ['{"role":"toolResult","content":"x"}', 2],
    ] as const
  ) {
    const parsed = parseSessionLines(
      `{"event":"turn_start","at":1}\n${bad}\n{"event":"turn_end","at":2}`,
      "s.jsonl",
    );
    deepEqual(parsed, {
      kind: "error",
      message: `Cannot trace s.jsonl: line ${line} is neither a message nor a timing record`,
    }, bad);
  }
});

Deno.test("page: who blocked or rewrote a call is shown only when the session says it as the recorder writes it", () => {
  // Found by an attack: "rewrittenBy":"evil" made `tack trace` fail with
  // "call.rewrittenBy.join is not a function" (exit 2, no page).
  const lines = SESSION.map((line) =>
    "event" in line && line.event === "tool_end" && line.toolCallId === "c3"
      ? { ...line, blockedBy: { html: "<img>" }, rewrittenBy: "evil" }
      : "event" in line && line.event === "tool_end" && line.toolCallId === "c1"
      ? { ...line, rewrittenBy: ["paths", 7] }
      : line
  ) as unknown as typeof SESSION; // as a file may hold them, whatever the types say
  const [first] = buildTimeline(lines).runs[0].turns;
  equal(first.calls[2].blockedBy, undefined);
  equal(first.calls[2].rewrittenBy, undefined);
  equal(first.calls[0].rewrittenBy, undefined);
  match(renderTimelineHtml(buildTimeline(lines), "s.jsonl"), /blocked by a hook/);
});

Deno.test("session: a line whose content is a string is a message only for the user", async () => {
  // Found by an attack: an assistant line with string content passed, and --resume then failed
  // as "the connection … failed: message.content.map is not a function" (exit 1, not 2).
  const dir = await Deno.makeTempDir();
  const path = join(dir, "s.jsonl");
  await Deno.writeTextFile(
    path,
    '{"role":"user","content":"hi","timestamp":1}\n{"role":"assistant","content":"hello"}\n{"role":"user","content":"again","timestamp":2}\n',
  );
  const loaded = await loadSession(path);
  deepEqual(loaded, {
    kind: "error",
    message: `Cannot load session ${path}: line 2 is not a message (it needs a role and content)`,
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("cli: `tack trace <session.jsonl>` writes the page next to it; --trace chooses where", async () => {
  const dir = await Deno.makeTempDir();
  const session = join(dir, "run.jsonl");
  await Deno.writeTextFile(session, SESSION.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const said: string[] = [];
  equal(
    await traceCommand(session, undefined, { out: (t) => said.push(t), err: (t) => said.push(t) }),
    0,
  );
  deepEqual(said, [`Wrote ${join(dir, "run.html")} (1 run, 3 turns)\n`]);
  equal((await Deno.stat(join(dir, "run.html"))).mode! & 0o777, 0o600);
  await Deno.remove(join(dir, "run.html"));
  equal(await main(["trace", session]), 0);
  match(await Deno.readTextFile(join(dir, "run.html")), /Turn 3/);
  equal(await main(["trace", session, "--trace", join(dir, "other.html")]), 0);
  match(await Deno.readTextFile(join(dir, "other.html")), /bash · blocked by confirm/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("args: trace is a subcommand only before one .jsonl file; --trace is a flag", () => {
  const sub = parseCliArgs(["trace", "s.jsonl"]);
  deepEqual(sub.kind === "ok" && [sub.args.command, sub.args.traceSession], ["trace", "s.jsonl"]);
  const prompt = parseCliArgs(["trace", "the", "bug"]);
  deepEqual(prompt.kind === "ok" && [prompt.args.command, prompt.args.prompt], [
    "run",
    "trace the bug",
  ]);
  const flag = parseCliArgs(["--trace", "run.html", "hi"]);
  equal(flag.kind === "ok" && flag.args.trace, "run.html");
  deepEqual(parseCliArgs(["--trace", " ", "hi"]), {
    kind: "error",
    message: '--trace needs a value\nRun "tack --help" for usage.',
  });
  equal(emptyUsage().input, 0);
});
