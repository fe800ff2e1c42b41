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
import { SERVER_EVERYTHING } from "../support/test_packages.ts";

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

/**
 * Another fixture server, run the way {@linkcode STDIO_SERVER} is.
 *
 * @param file Its file in `tests/fixtures/mcp/` (`endless_server.ts`).
 * @param args Its own arguments.
 * @returns The server's command line.
 */
export function fixtureServer(file: string, ...args: string[]): McpStdioServer {
  return {
    ...STDIO_SERVER,
    args: [
      ...STDIO_SERVER.args!.slice(0, -1),
      new URL(`../fixtures/mcp/${file}`, import.meta.url).pathname,
      ...args,
    ],
  };
}

/**
 * The reference server of the MCP project (`@modelcontextprotocol/server-everything`, the
 * version tests/support/test_packages.ts pins and the lock holds), cached first from the frozen lock like any
 * other dependency (`deno test` caches only the test files' own imports, and the server only
 * runs as a child), then run offline from the cache over stdio.
 *
 * @returns The server's command line.
 * @throws {Error} When it cannot be cached.
 */
export async function everythingServer(): Promise<McpStdioServer> {
  const root = new URL("../..", import.meta.url);
  const spec = SERVER_EVERYTHING;
  const cached = await new Deno.Command(Deno.execPath(), {
    args: ["cache", "--frozen", "--quiet", spec],
    cwd: root.pathname,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!cached.success) {
    throw new Error(`Cannot cache ${spec}: ${new TextDecoder().decode(cached.stderr)}`);
  }
  return {
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", "--cached-only", spec, "stdio"],
    stderr: "ignore",
    ...(Deno.env.get("DENO_DIR") ? { env: { DENO_DIR: Deno.env.get("DENO_DIR")! } } : {}),
  };
}

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

/**
 * Waits until a process has exited (gone, or a zombie nobody reaped yet), or gives up.
 *
 * @param pid The process.
 * @param withinMs How long to wait.
 * @returns Whether it exited.
 */
export async function exited(pid: number, withinMs = 3_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (true) {
    try {
      const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return true;
    } catch {
      return true;
    }
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The stdio fixture, writing its pid to a file at start, for tests that need it before
 * any call.
 *
 * @param pidFile The file the server appends its pid to.
 * @returns The server config.
 */
export function stdioServerWithPidFile(pidFile: string): McpStdioServer {
  const [run, ...rest] = STDIO_SERVER.args!;
  return {
    ...STDIO_SERVER,
    args: [run, "--allow-env=MCP_FIXTURE_PID_FILE", `--allow-write=${pidFile}`, ...rest],
    env: { ...STDIO_SERVER.env, MCP_FIXTURE_PID_FILE: pidFile },
  };
}

/**
 * The pids a pid file lists.
 *
 * @param pidFile The file.
 * @returns Its pids, in order.
 */
export async function pidsIn(pidFile: string): Promise<number[]> {
  const text = await Deno.readTextFile(pidFile).catch(() => "");
  return text.split("\n").filter(Boolean).map(Number);
}
