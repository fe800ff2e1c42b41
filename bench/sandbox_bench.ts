// Per-call overhead of a sandboxed tool, side by side in one run: in-process, a raw pipe
// round trip of the same bytes (the floor), a warm process sandbox (under bubblewrap
// where available), a warm worker sandbox; a sandboxed hook on an empty transcript and
// on one of 10,000 messages; and the cold start of a process sandbox next to a bare
// `deno run` child answering one line.
//
//   cd bench && deno bench -A --unstable-worker-options sandbox_bench.ts
//
// Without --unstable-worker-options the worker row is skipped (Deno would end the
// process otherwise).
import { loadPlugin } from "@tack/agent/sdk/sandbox";
import { workerOptionsEnabled } from "../sdk/sandbox/worker_isolation.ts";
import type { AgentTool, BeforeToolCallContext, Message } from "@tack/agent";

const FIXTURE = new URL("../tests/fixtures/sandbox/faulty_plugin.ts", import.meta.url).pathname;
const signal = new AbortController().signal;
const echo = (plugin: { tools?: readonly AgentTool[] }): AgentTool =>
  plugin.tools!.find((tool) => tool.name === "echo")!;

const inProcess = await loadPlugin(FIXTURE);
const sandboxed = await loadPlugin(FIXTURE, { sandbox: true, stderr: "capture" });
// A worker sandbox that cannot start skips its row, saying why, rather than failing the file.
async function loadWorker(): Promise<Awaited<ReturnType<typeof loadPlugin>> | undefined> {
  if (!workerOptionsEnabled()) {
    console.error("worker row skipped: run with --unstable-worker-options");
    return undefined;
  }
  try {
    return await loadPlugin(FIXTURE, {
      sandbox: true,
      isolation: "worker",
      stderr: "capture",
      startTimeoutMs: 5000,
      onWarning: () => {},
    });
  } catch (error) {
    console.error(`worker row skipped: ${(error as Error).message}`);
    return undefined;
  }
}
const worker = await loadWorker();

const args = { text: "ping" };
let n = 0;

// The floor: a `deno run` child that answers each line with the bytes the sandbox's echo
// sends back (an update and a result, two writes), read by the host as bytes.
const encoder = new TextEncoder();
const call = encoder.encode(
  JSON.stringify({ type: "call", id: 1000, tool: "echo", toolCallId: "s1000", args }) + "\n",
);
const replies = [
  { type: "update", id: 1000, partial: { content: [{ type: "text", text: "echoing ping" }] } },
  {
    type: "result",
    id: 1000,
    result: {
      content: [{ type: "text", text: "ping" }],
      details: { instance: crypto.randomUUID() },
    },
    isError: false,
  },
].map((message) => JSON.stringify(message) + "\n");
const childScript = await Deno.makeTempFile({ suffix: ".ts" });
await Deno.writeTextFile(
  childScript,
  `const replies = ${JSON.stringify(replies)}.map((r) => new TextEncoder().encode(r));
const buffer = new Uint8Array(65536);
while (true) {
  const read = await Deno.stdin.read(buffer);
  if (read === null) break;
  for (let i = 0; i < read; i++) {
    if (buffer[i] === 10) for (const reply of replies) Deno.stdout.writeSync(reply);
  }
}
`,
);
const raw = new Deno.Command(Deno.execPath(), {
  args: ["run", "--no-config", childScript],
  stdin: "piped",
  stdout: "piped",
  stderr: "null",
}).spawn();
const rawWriter = raw.stdin.getWriter();
const rawReader = raw.stdout.getReader();
async function rawRoundTrip(): Promise<void> {
  await rawWriter.write(call);
  let lines = 0;
  while (lines < replies.length) {
    const { value } = await rawReader.read();
    let at = value!.indexOf(10);
    while (at >= 0) {
      lines++;
      at = value!.indexOf(10, at + 1);
    }
  }
}

Deno.bench("tool call: in-process", { group: "per call", baseline: true }, async () => {
  await echo(inProcess).execute(args, { toolCallId: `i${n++}`, signal });
});

Deno.bench("raw pipe round trip of the same bytes (floor)", { group: "per call" }, async () => {
  await rawRoundTrip();
});

Deno.bench("tool call: warm process sandbox", { group: "per call" }, async () => {
  await echo(sandboxed).execute(args, { toolCallId: `s${n++}`, signal });
});

Deno.bench({
  name: "tool call: warm worker sandbox",
  group: "per call",
  ignore: worker === undefined,
  async fn() {
    await echo(worker!).execute(args, { toolCallId: `w${n++}`, signal });
  },
});

// A trivial beforeToolCall in the sandbox, on an empty transcript and on one of 10,000
// messages where each call brings one new message (the last is replaced each time).
function transcript(size: number): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < size; i++) {
    messages.push(
      i % 3 === 0 ? { role: "user", content: `question ${i}`, timestamp: i } : i % 3 === 1
        ? {
          role: "assistant",
          content: [{ type: "toolCall", id: `c${i}`, name: "echo", arguments: { text: `${i}` } }],
          stopReason: "toolUse",
          timestamp: i,
        } as unknown as Message
        : {
          role: "toolResult",
          toolCallId: `c${i - 1}`,
          toolName: "echo",
          content: [{ type: "text", text: `answer ${i}` }],
          isError: false,
          timestamp: i,
        } as unknown as Message,
    );
  }
  return messages;
}

function hookContext(messages: Message[]): BeforeToolCallContext {
  const tool = echo(sandboxed);
  const toolCall = { type: "toolCall" as const, id: "h", name: "echo", arguments: args };
  return {
    assistantMessage: { role: "assistant", content: [toolCall], timestamp: 0 } as never,
    toolCall,
    tool,
    args,
    context: { systemPrompt: "You are a bench.", messages, tools: sandboxed.tools! },
  };
}

const empty = hookContext([]);
const large = hookContext(transcript(10_000));
await sandboxed.beforeToolCall!(large, signal); // the sandbox has seen the transcript once

Deno.bench("hook call: process sandbox, empty transcript", { group: "hook" }, async () => {
  await sandboxed.beforeToolCall!(empty, signal);
});

Deno.bench(
  "hook call: process sandbox, 10,000 messages (one new per call)",
  { group: "hook" },
  async () => {
    const messages = large.context.messages as Message[];
    messages[messages.length - 1] = { ...messages[messages.length - 1] };
    await sandboxed.beforeToolCall!(large, signal);
  },
);

Deno.bench({
  name: "cold start: loadPlugin (process sandbox) + first call + dispose",
  group: "cold start",
  n: 10,
  warmup: 1,
  async fn() {
    const plugin = await loadPlugin(FIXTURE, { sandbox: true, stderr: "capture" });
    await echo(plugin).execute(args, { toolCallId: `c${n++}`, signal });
    await plugin.dispose?.();
  },
});

Deno.bench({
  name: "bare child: deno run answering one line (cold start floor)",
  group: "cold start",
  n: 10,
  warmup: 1,
  async fn() {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", childScript],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(call);
    await writer.close();
    await child.output();
  },
});

globalThis.addEventListener("unload", () => {
  sandboxed.dispose?.();
  worker?.dispose?.();
  rawWriter.close().catch(() => {});
  Deno.removeSync(childScript);
});
