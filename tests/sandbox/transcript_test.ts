// A sandboxed hook sees the whole transcript although only what changed crosses the
// protocol: across turns, after the transcript is reset, and after its sandbox restarts.
import {
  type AgentTool,
  createAgent,
  scriptedModel,
  text,
  toolCall,
  type ToolResultMessage,
} from "@tack/agent";
import { deepEqual } from "node:assert/strict";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";
import type { HostMessage } from "../../sdk/sandbox/protocol.ts";
import { SandboxConnection } from "../../sdk/sandbox/sandbox_connection.ts";
import { servePlugin } from "../../sdk/sandbox/serve_plugin.ts";
import { toolSpec } from "../../sdk/sandbox/tool_spec.ts";

function texts(messages: readonly { role: string }[]): string[] {
  return messages.filter((m): m is ToolResultMessage => m.role === "toolResult").map((m) =>
    m.content.map((block) => block.type === "text" ? block.text : "").join("")
  );
}

Deno.test("a sandboxed hook sees the transcript whole, sent as deltas", async () => {
  // The transcript is shown to hooks granted every tool; "own" hooks see none of it.
  const plugin = await loadPlugin("./tests/fixtures/sandbox/hostile_plugin.ts", {
    sandbox: true,
    stderr: "capture",
    hooks: "all",
    onWarning: () => {},
  });
  try {
    const agent = createAgent({
      model: scriptedModel([
        [toolCall("seen", {}, "a")],
        [toolCall("seen", {}, "b"), toolCall("seen", {}, "c")],
        [toolCall("crash", {}, "d")],
        [toolCall("seen", {}, "e")],
        [text("done")],
        [toolCall("seen", {}, "f")],
        [text("done again")],
      ]),
      plugins: [plugin],
    });
    await agent.prompt("one");
    deepEqual(texts(agent.messages), [
      "true user:one,assistant",
      "true user:one,assistant,toolResult,assistant",
      "true user:one,assistant,toolResult,assistant",
      'Tool crash failed: the sandbox of plugin "hostile" crashed (exit code 3) while running it; it restarts for the next call',
      // A fresh sandbox gets the whole transcript again.
      "true user:one,assistant,toolResult,assistant,toolResult,toolResult,assistant,toolResult,assistant",
    ]);
    agent.reset();
    await agent.prompt("two");
    deepEqual(texts(agent.messages), ["true user:two,assistant"]);
  } finally {
    await plugin.dispose?.();
  }
});

/**
 * A connection to a fake child that records what the host sends it and answers every hook
 * at once (a real child's protocol, without a process): what crosses is what is asserted.
 */
function recordingConnection(): {
  sent: HostMessage[];
  connection: SandboxConnection;
  /** Ends the fake child, as if it was killed (its next start is a fresh child). */
  exit: () => void;
} {
  const sent: HostMessage[] = [];
  let exit = () => {};
  const connection = new SandboxConnection("fake", (handlers) => {
    queueMicrotask(() =>
      handlers.onMessage({ type: "manifest", manifest: { name: "fake", tools: [], hooks: [] } })
    );
    exit = () => handlers.onExit("killed");
    return {
      send(message) {
        sent.push(message);
        if (message.type === "hook") {
          queueMicrotask(() => handlers.onMessage({ type: "hook_result", id: message.id }));
        }
      },
      kill: () => exit(),
      closed: Promise.resolve(),
      stderrTail: () => "",
    };
  });
  return { sent, connection, exit: () => exit() };
}

Deno.test("only the messages a sandbox has not seen cross the protocol", async () => {
  const { sent, connection, exit } = recordingConnection();
  const [a, b, c, x] = [{ n: "a" }, { n: "b" }, { n: "c" }, { n: "x" }];
  const hook = (messages: unknown[]) =>
    connection.hook("beforeToolCall", { context: { systemPrompt: "", messages, tools: [] } });
  await hook([a, b]);
  await hook([a, b, c]);
  await hook([a, x, c]);
  exit();
  await hook([a, x, c]);
  await connection.dispose();
  const hooks = sent.filter((m): m is Extract<HostMessage, { type: "hook" }> => m.type === "hook");
  deepEqual(hooks.map((m) => m.transcript), [
    { from: 0, append: [a, b] },
    { from: 2, append: [c] },
    { from: 1, append: [x, c] },
    { from: 0, append: [a, x, c] },
  ]);
  deepEqual(hooks[0].context, { context: { systemPrompt: "" } });
});

Deno.test("only the tools a sandbox has not seen cross the protocol, as specs", async () => {
  const { sent, connection, exit } = recordingConnection();
  const tool = (name: string): AgentTool => ({
    name,
    description: `The ${name} tool`,
    parameters: { type: "object" },
    timeoutMs: 10,
    execute: () => ({ content: [] }),
  });
  const spec = (name: string) => JSON.parse(JSON.stringify(toolSpec(tool(name))));
  const [a, b, c] = [tool("a"), tool("b"), tool("c")];
  const hook = (tools: AgentTool[]) =>
    connection.hook("beforeToolCall", { context: { systemPrompt: "", messages: [], tools } });
  await hook([a, b]);
  await hook([a, b]);
  await hook([a, c]);
  exit();
  await hook([a, c]);
  await connection.dispose();
  const hooks = sent.filter((m): m is Extract<HostMessage, { type: "hook" }> => m.type === "hook");
  // Specs only: no execute, no timeoutMs; nothing at all when the list is the same.
  deepEqual(JSON.parse(JSON.stringify(hooks.map((m) => m.tools))), [
    { from: 0, append: [spec("a"), spec("b")] },
    { from: 2, append: [] },
    { from: 1, append: [spec("c")] },
    { from: 0, append: [spec("a"), spec("c")] },
  ]);
});

Deno.test("a sandboxed hook sees the same tools when they were not resent", async () => {
  const seen: string[][] = [];
  const sent: { type: string; value?: unknown; error?: string }[] = [];
  let deliver!: (message: HostMessage) => void;
  const served = servePlugin(
    { specifier: "tools.ts", read: [], confined: false },
    {
      default: {
        name: "tools",
        beforeToolCall: ({ context }: { context: { tools: AgentTool[] } }) => {
          seen.push(context.tools.map((tool) => `${tool.name}:${tool.description}`));
          // Its own copy: the next call sees the tool as the host described it.
          (context.tools[0] as { description: string }).description = "changed by the hook";
        },
      },
    },
    {
      send: (message) => void sent.push(message),
      listen: (onMessage) => {
        deliver = onMessage;
        return new Promise((resolve) => setTimeout(resolve, 50));
      },
    },
  );
  await new Promise((resolve) => setTimeout(resolve, 10));
  const spec = (name: string) => ({ name, description: name, parameters: { type: "object" } });
  const message = (id: number, tools: { from: number; append: unknown[] }): HostMessage => ({
    type: "hook",
    id,
    hook: "beforeToolCall",
    context: { tool: spec("a"), context: { systemPrompt: "" } },
    transcript: { from: 0, append: [] },
    tools,
  });
  deliver(message(1, { from: 0, append: [spec("a"), spec("b")] }));
  deliver(message(2, { from: 2, append: [] }));
  deliver(message(3, { from: 1, append: [spec("c")] }));
  await served;
  deepEqual(seen, [["a:a", "b:b"], ["a:a", "b:b"], ["a:a", "c:c"]]);
  deepEqual(sent.filter((m) => m.type === "hook_result").map((m) => m.error), [
    undefined,
    undefined,
    undefined,
  ]);
});
