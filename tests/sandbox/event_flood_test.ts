// A sandboxed tool reporting progress in a loop cannot pile up waiting onEvent hooks on
// the host: updates are skipped while the child has too many events unanswered.
import type { AgentEvent } from "@tack/agent";
import { deepEqual } from "node:assert/strict";
import type { HostMessage } from "../../sdk/sandbox/protocol.ts";
import type { ChildHandlers } from "../../sdk/sandbox/sandbox_child.ts";
import { SandboxConnection } from "../../sdk/sandbox/sandbox_connection.ts";
import { sandboxedPlugin } from "../../sdk/sandbox/sandbox_plugin.ts";

const manifest = {
  name: "flood",
  tools: [{ name: "work", description: "Works", parameters: { type: "object" } }],
  hooks: ["onEvent" as const],
};

Deno.test("a sandbox's onEvent gets at most 64 unanswered updates, and every other event", async () => {
  // A child that reports its manifest and never answers a hook.
  const sent: HostMessage[] = [];
  let handlers: ChildHandlers;
  let exit!: () => void;
  const connection = new SandboxConnection("flood", (given) => {
    handlers = given;
    setTimeout(() => handlers.onMessage({ type: "manifest", manifest }), 0);
    const closed = new Promise<void>((resolve) => (exit = resolve));
    return {
      send: (message) => void sent.push(message),
      kill: () => {
        handlers.onExit("killed");
        exit();
      },
      closed,
      stderrTail: () => "",
    };
  });
  const plugin = sandboxedPlugin(manifest, connection, {});
  await connection.start();
  const update: AgentEvent = {
    type: "tool_execution_update",
    toolCallId: "a",
    toolName: "work",
    partialResult: { content: [{ type: "text", text: "step" }] },
  };
  for (let i = 0; i < 1000; i++) plugin.onEvent!(update);
  plugin.onEvent!({
    type: "tool_execution_end",
    toolCallId: "a",
    toolName: "work",
    result: { content: [] },
    isError: false,
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  const types = sent.map((message) =>
    message.type === "hook" ? (message.context as { type: string }).type : message.type
  );
  deepEqual(types, [...Array(64).fill("tool_execution_update"), "tool_execution_end"]);
  await plugin.dispose!();
});
