import { deepEqual, equal } from "node:assert/strict";
import {
  type AgentEvent,
  createAgent,
  defineTool,
  emptyUsage,
  scriptedModel,
  text,
  toolCall,
} from "@tack/agent";
import { formatArgs, Renderer, summarizeResult } from "../../cli/render.ts";

interface Recorded {
  out: string;
  err: string;
  log: string[];
}

function recorder(spinner = true, color = false): { io: Recorded; renderer: Renderer } {
  const io: Recorded = { out: "", err: "", log: [] };
  const renderer = new Renderer({
    out: (t) => {
      io.out += t;
      io.log.push(`out:${t}`);
    },
    err: (t) => {
      io.err += t;
      io.log.push(`err:${t}`);
    },
    spinner: spinner
      ? (message) => {
        io.log.push(`spin:${message}`);
        return {
          message: (m: string) => io.log.push(`spin:${m}`),
          finish: () => io.log.push("stop"),
        };
      }
      : undefined,
    color,
  });
  return { io, renderer };
}

const ls = defineTool({
  name: "ls",
  description: "Lists",
  parameters: { type: "object", properties: { path: { type: "string" } } } as const,
  execute: () => ({ content: [{ type: "text", text: "a.txt\nb.txt" }] }),
});

Deno.test("the answer streams to stdout; tool lines go to stderr", async () => {
  const { io, renderer } = recorder(false);
  const agent = createAgent({
    model: scriptedModel([[toolCall("ls", { path: "." })], [text("Two files.")]]),
    tools: [ls],
  });
  agent.subscribe(renderer.listener);
  await agent.prompt("what is here?");
  equal(io.out, "Two files.\n");
  equal(io.err, "→ ls path=.\n✓ ls: a.txt (2 lines)\n");
});

Deno.test("the spinner runs while waiting and stops before anything is written", async () => {
  const { io, renderer } = recorder(true);
  const agent = createAgent({
    model: scriptedModel([[toolCall("ls", { path: "." })], [text("Done.")]]),
    tools: [ls],
  });
  agent.subscribe(renderer.listener);
  await agent.prompt("go");
  // Every write happens with no spinner showing.
  let spinning = false;
  for (const entry of io.log) {
    if (entry.startsWith("spin:")) spinning = true;
    else if (entry === "stop") spinning = false;
    else equal(spinning, false, `wrote while spinning: ${entry}`);
  }
  equal(spinning, false);
  deepEqual(io.log.filter((e) => e.startsWith("spin:")), [
    "spin:thinking",
    "spin:preparing a tool call",
    "spin:running ls",
    "spin:thinking",
  ]);
});

Deno.test("errors, aborts and cut-off answers are said on stderr", () => {
  const { io, renderer } = recorder(false);
  const message = (stopReason: "error" | "aborted" | "length", errorMessage?: string) => ({
    role: "assistant" as const,
    content: [],
    stopReason,
    errorMessage,
    usage: emptyUsage(),
    provider: "p",
    model: "m",
    timestamp: 0,
  });
  renderer.listener({
    type: "message_end",
    message: message("error", "401 Unauthorized: bad key"),
  });
  renderer.listener({
    type: "message_end",
    message: message("aborted", "The request was aborted"),
  });
  renderer.listener({ type: "message_end", message: message("length") });
  equal(
    io.err,
    "✗ error: 401 Unauthorized: bad key\n■ aborted\n… the answer was cut off at the output token limit\n",
  );
  equal(io.out, "");
});

Deno.test("a blocked call shows the reason, and a hint once when nobody could be asked", () => {
  const { io, renderer } = recorder(false);
  const reason =
    'Tool bash needs the user\'s confirmation (bash has effect exec), but no one can be asked (non-interactive), and whenNonInteractive is "deny"';
  const end = (id: string): AgentEvent => ({
    type: "tool_execution_end",
    toolCallId: id,
    toolName: "bash",
    result: { content: [{ type: "text", text: reason }] },
    isError: true,
  });
  renderer.listener({
    type: "tool_execution_start",
    toolCallId: "1",
    toolName: "bash",
    args: { command: "rm -rf x" },
  });
  renderer.listener(end("1"));
  renderer.listener(end("2"));
  equal(
    io.err,
    '→ bash command="rm -rf x"\n' +
      `✗ bash: ${reason}\n` +
      "  (no terminal to ask on: run in a terminal to be asked, or pass --yes)\n" +
      `✗ bash: ${reason}\n`,
  );
});

Deno.test("text that ends mid-line gets a newline before a tool line", () => {
  const { io, renderer } = recorder(false);
  const partial = {
    role: "assistant" as const,
    content: [],
    stopReason: "stop" as const,
    usage: emptyUsage(),
    provider: "p",
    model: "m",
    timestamp: 0,
  };
  renderer.listener({
    type: "message_update",
    message: partial,
    assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "Let me look", partial },
  });
  renderer.listener({ type: "tool_execution_start", toolCallId: "1", toolName: "ls", args: {} });
  equal(io.out, "Let me look\n");
  equal(io.err, "→ ls\n");
});

Deno.test("pause hides the spinner for a question; resume brings it back while a tool runs", () => {
  const { io, renderer } = recorder(true);
  renderer.listener({ type: "tool_execution_start", toolCallId: "1", toolName: "bash", args: {} });
  io.log.length = 0;
  renderer.pause();
  renderer.warn("careful");
  renderer.resume();
  deepEqual(io.log, ["stop", "err:warning: careful\n", "spin:running bash"]);
});

Deno.test("colour codes only when asked for", () => {
  const { io, renderer } = recorder(false, true);
  renderer.warn("x");
  equal(io.err, "\x1b[33mwarning: x\x1b[0m\n");
});

Deno.test("arguments and results are summarised on one line", () => {
  equal(formatArgs({}), "");
  equal(formatArgs({ path: "src/a.ts", n: 3, flag: true }), "path=src/a.ts n=3 flag=true");
  equal(formatArgs({ content: "line one\nline two" }), 'content="line one\\nline two"');
  const long = formatArgs({ content: "x".repeat(500) });
  equal(long.length <= 80, true);
  equal(long.endsWith("…"), true);
  equal(summarizeResult({ content: [] }, false), "done (no output)");
  equal(summarizeResult({ content: [{ type: "text", text: "one" }] }, false), "one");
  equal(
    summarizeResult({ content: [{ type: "text", text: "Permission denied\nmore" }] }, true),
    "Permission denied\n  more",
  );
  equal(
    summarizeResult({ content: [{ type: "image", data: "", mimeType: "image/png" }] }, false),
    "[image/png image]",
  );
});

Deno.test("a spinner never starts on a line the answer is still on", () => {
  const { io, renderer } = recorder(true);
  const partial = {
    role: "assistant" as const,
    content: [],
    stopReason: "stop" as const,
    usage: emptyUsage(),
    provider: "p",
    model: "m",
    timestamp: 0,
  };
  renderer.listener({
    type: "message_update",
    message: partial,
    assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "I'll run it.", partial },
  });
  renderer.listener({
    type: "message_update",
    message: partial,
    assistantMessageEvent: { type: "toolcall_start", contentIndex: 1, partial },
  });
  deepEqual(io.log, ["out:I'll run it.", "out:\n", "spin:preparing a tool call"]);
});

// Found by the attack helper: a hostile model endpoint chose these.
const FORGERY = "\x1b]0;title\x1b\\\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07FORGED";

Deno.test("Renderer: a tool name the model made up reaches the terminal without its escapes", async () => {
  const { io, renderer } = recorder();
  const agent = createAgent({
    model: scriptedModel([[toolCall(FORGERY, {}, "c1")], [text("ok")]]),
  });
  agent.subscribe(renderer.listener);
  await agent.prompt("go");
  // Before: the title, the screen clear and the clipboard write went out as they came.
  deepEqual(io.log.filter((line) => line.includes("\x1b")), []);
  equal(io.err.includes("→ FORGED"), true, io.err);
});

Deno.test("Renderer: a provider's error message reaches the terminal without its escapes", () => {
  const { io, renderer } = recorder();
  renderer.listener({
    type: "message_end",
    message: {
      role: "assistant",
      content: [],
      stopReason: "error",
      errorMessage: `the server said: ${FORGERY}`,
      provider: "p",
      model: "m",
      timestamp: 1,
      usage: emptyUsage(),
    },
  });
  equal(io.err, "✗ error: the server said: FORGED\n");
});

Deno.test("a made-up tool name shows on one line without its escapes: it cannot draw lines of its own", async () => {
  const { io, renderer } = recorder(false);
  const name = "read\n✓ nothing ran\x1b]52;c;Y3VybA==\x07";
  const agent = createAgent({
    model: scriptedModel([[toolCall(name, { path: "x" }, "c1")], [text("ok")]]),
  });
  agent.subscribe(renderer.listener);
  await agent.prompt("go");
  const shown = "read␊✓ nothing ran";
  equal(
    io.err,
    `→ ${shown} path=x\n✗ ${shown}: Tool read\n  ✓ nothing ran not found. No tools are available.\n`,
  );
});
