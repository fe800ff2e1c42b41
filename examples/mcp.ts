/**
 * The tools of an MCP server in a Tack agent. Starts a small MCP server (written with
 * the official SDK, `tests/fixtures/mcp/stdio_server.ts`) over stdio; the scripted model
 * calls two of its tools, a policy blocks the one that writes, and the answer uses the
 * result. Offline, no key: `deno run -A examples/mcp.ts`.
 *
 * @module
 */

import {
  createAgent,
  definePlugin,
  type Message,
  scriptedModel,
  text,
  toolCall,
} from "@tack/agent";
import mcp from "@tack/agent/plugins/mcp";
import { heading, printEvents } from "./print_events.ts";

const SERVER = new URL("../tests/fixtures/mcp/stdio_server.ts", import.meta.url).pathname;

function lastToolText(messages: readonly Message[]): string {
  const last = messages.findLast((message) => message.role === "toolResult");
  return last?.role === "toolResult" && last.content[0]?.type === "text"
    ? last.content[0].text
    : "";
}

/**
 * Runs the MCP example and returns the final answer.
 *
 * @returns The model's last text.
 */
export async function runMcp(): Promise<string> {
  heading("mcp: the tools of an MCP server, called through the agent's hooks");
  const calculator = await mcp({
    name: "calc",
    command: Deno.execPath(),
    args: ["run", "--quiet", "--cached-only", SERVER],
    tools: ["add", "write_note"],
  });
  try {
    for (const tool of calculator.tools) {
      console.log(`  ${tool.name} (${tool.effects?.join(", ")}): ${tool.description}`);
    }
    // Policies see MCP tools like any other: this one blocks what writes.
    const noWrites = definePlugin({
      name: "no-writes",
      beforeToolCall: ({ tool }) =>
        tool.effects?.includes("write")
          ? { block: true, reason: `${tool.name} is blocked: this agent may not write` }
          : undefined,
    });
    const model = scriptedModel([
      [toolCall("calc_write_note", { note: "2 + 40" }), toolCall("calc_add", { a: 2, b: 40 })],
      (request) => [text(`2 + 40 = ${lastToolText(request.messages)}.`)],
    ]);
    const agent = createAgent({ model, plugins: [calculator, noWrites] });
    printEvents(agent);
    const added = await agent.prompt("What is 2 + 40? Note it down.");
    const answer = added.at(-1);
    return answer?.role === "assistant" && answer.content[0]?.type === "text"
      ? answer.content[0].text
      : "";
  } finally {
    await calculator.dispose(); // ends the server process
  }
}

if (import.meta.main) console.log(await runMcp());
