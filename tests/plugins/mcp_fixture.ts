/**
 * Shared pieces of the MCP plugin tests: the fixture server's command line and an agent
 * run that returns the tool results.
 *
 * @module
 */

import {
  createAgent,
  type Plugin,
  scriptedModel,
  text,
  type ToolCall,
  type ToolResultMessage,
} from "@tack/agent";
import type { AgentEvent, AgentOptions } from "@tack/agent";
import type { McpStdioServer } from "@tack/agent/plugins/mcp";

/** The stdio fixture server, run by the same Deno as the tests, offline. */
export const STDIO_SERVER: McpStdioServer = {
  command: Deno.execPath(),
  args: [
    "run",
    "--quiet",
    "--cached-only",
    new URL("../fixtures/mcp/stdio_server.ts", import.meta.url).pathname,
  ],
  ...(Deno.env.get("DENO_DIR") ? { env: { DENO_DIR: Deno.env.get("DENO_DIR")! } } : {}),
};

/** What one agent run gave. */
export interface RunOutcome {
  results: ToolResultMessage[];
  events: AgentEvent[];
}

/**
 * Runs one prompt: the scripted model makes `calls` in one turn, then answers "done".
 *
 * @param plugin The plugin under test (not disposed here).
 * @param calls The tool calls of the first turn.
 * @param options More agent options (hooks, timeouts, other plugins).
 * @param during Called once the run has started, with the agent (to abort it).
 * @returns The tool results, in call order, and every event.
 */
export async function run(
  plugin: Plugin,
  calls: ToolCall[],
  options: Partial<AgentOptions> = {},
  during?: (agent: ReturnType<typeof createAgent>) => void,
): Promise<RunOutcome> {
  const agent = createAgent({
    model: scriptedModel([calls, [text("done")]]),
    ...options,
    plugins: [plugin, ...(options.plugins ?? [])],
  });
  const events: AgentEvent[] = [];
  agent.subscribe((event) => events.push(event));
  const running = agent.prompt("go");
  during?.(agent);
  const added = await running;
  return {
    results: added.filter((m): m is ToolResultMessage => m.role === "toolResult"),
    events,
  };
}

/**
 * The text of a result's first part.
 *
 * @param result A tool result.
 * @returns Its first text, or `undefined`.
 */
export function firstText(result: ToolResultMessage | undefined): string | undefined {
  const part = result?.content[0];
  return part?.type === "text" ? part.text : undefined;
}
