/**
 * `mcp()`: the tools of Model Context Protocol servers as a Tack plugin.
 *
 * @module
 */

import {
  type AgentTool,
  newSchemaTally,
  type Plugin,
  type PluginHost,
  type PluginPermissions,
} from "@tack/agent";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { McpConnection } from "./connection.ts";
import { errorText } from "./describe_failure.ts";
import { INHERITED_ENV } from "./stdio_transport.ts";
import type { McpLimits, McpOptions, McpServerConfig } from "./options.ts";
import { toolEffects } from "./tool_effects.ts";
import { toolName } from "./tool_name.ts";
import { type McpCallDetails, toTackTool } from "./to_tack_tool.ts";
import { promptTools } from "./prompt_tools.ts";
import { resourceTools } from "./resource_tools.ts";
import { settledWithin } from "../../sdk/sleep.ts";
import { listingWarnings } from "./listing_warnings.ts";
import { refreshPace } from "./refresh_pace.ts";

/** The plugin `mcp()` returns: a {@linkcode Plugin} plus its servers' connections. */
export interface McpPlugin extends Plugin {
  /** The connections by server name (to see `starts` or `connected`). */
  readonly servers: ReadonlyMap<string, McpConnection>;
  /**
   * One Tack tool per exposed MCP tool, in server order, then listing order, each
   * server's followed by its resource and prompt tools (when it advertises those); kept
   * current on `notifications/tools/list_changed`.
   */
  readonly tools: readonly AgentTool<Record<string, unknown>, McpCallDetails>[];
  /**
   * Lists the servers' tools again and gives the new list to every agent the plugin is in
   * (done on each `notifications/tools/list_changed`; a failed refresh keeps the old list).
   * A refresh, connecting again included, takes at most `connectTimeoutMs`. One announced by a
   * server starts at least a second after the last refresh ended (more while announcements
   * keep coming, see `refreshPace`); this one starts as soon as the refresh under way is done.
   */
  refreshTools(): Promise<void>;
  /** Closes every connection and ends the server processes; idempotent. */
  dispose(): Promise<void>;
}

/** How long a model call waits for a tool list refresh under way, by default. */
const REFRESH_WAIT_MS = 2_000;

function fail(message: string): never {
  throw new TypeError(`Cannot create MCP plugin: ${message}`);
}

/** The plugin's numeric limits: each a number of at least this much. */
const LIMITS: [keyof McpLimits & string, number, string][] = [
  ["connectTimeoutMs", 1, " of ms"],
  ["pingTimeoutMs", 1, " of ms"],
  ["killGraceMs", 0, " of ms"],
  ["progressIntervalMs", 0, " of ms"],
  ["refreshWaitMs", 0, " of ms"],
  ["maxNonAnswersPerSecond", 1, ""],
];

function serversOf(options: McpOptions): [string, McpServerConfig][] {
  if (typeof options !== "object" || options === null) fail("options must be an object");
  for (const [name, least, unit] of LIMITS) {
    const value: unknown = (options as McpLimits)[name];
    if (value !== undefined && !(typeof value === "number" && value >= least)) {
      fail(`${name} ${value} must be a number${unit}, ${least} or more`);
    }
  }
  if ("servers" in options) {
    const entries = Object.entries(options.servers ?? {});
    if (entries.length === 0) fail("options.servers is empty");
    return entries;
  }
  return [[options.name ?? "mcp", options]];
}

function checkServer(server: string, config: McpServerConfig): void {
  const hasCommand = "command" in config && config.command !== undefined;
  const hasUrl = "url" in config && config.url !== undefined;
  if (hasCommand === hasUrl) fail(`server "${server}" needs either a command or a url`);
  if (hasCommand && (typeof config.command !== "string" || config.command === "")) {
    fail(`server "${server}" has an empty command`);
  }
  if (hasUrl) {
    const url = URL.parse(String(config.url));
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      fail(`server "${server}" has an invalid url ${JSON.stringify(config.url)}`);
    }
  }
  const { timeoutMs } = config;
  if (timeoutMs !== undefined && !(typeof timeoutMs === "number" && timeoutMs > 0)) {
    fail(`server "${server}" has timeoutMs ${timeoutMs}; it must be a positive number`);
  }
}

function permissionsOf(servers: [string, McpServerConfig][]): PluginPermissions {
  const run = new Set<string>();
  const net = new Set<string>();
  for (const [, config] of servers) {
    if ("url" in config) net.add(new URL(config.url).host);
    else run.add(config.command);
  }
  return {
    ...(run.size > 0 ? { run: [...run], env: INHERITED_ENV } : {}),
    ...(net.size > 0 ? { net: [...net] } : {}),
  };
}

async function listedTools(
  server: string,
  config: McpServerConfig,
  connection: McpConnection,
  strict: boolean,
  leftOut: Set<string>,
  since?: number,
): Promise<Tool[]> {
  let listed: Tool[];
  try {
    listed = await connection.listTools({
      onInvalid: (tool, why) =>
        leftOut.add(`MCP server "${server}" listed tool "${tool}", which is left out: ${why}`),
      since,
    });
  } catch (error) {
    // Connecting and the listing's bounds say which server; the rest is said here.
    if (error instanceof Error && error.message.startsWith("Cannot ")) throw error;
    throw new Error(`Cannot list the tools of MCP server "${server}": ${errorText(error)}`, {
      cause: error,
    });
  }
  const names = new Set(listed.map((tool) => tool.name));
  // On a refresh, a configured tool the server dropped is simply gone.
  for (
    const name of strict ? [...(config.tools ?? []), ...Object.keys(config.effects ?? {})] : []
  ) {
    if (!names.has(name)) {
      throw new Error(
        `Cannot create MCP plugin: server "${server}" has no tool "${name}" (it has: ${
          [...names].join(", ") || "no tools"
        })`,
      );
    }
  }
  const wanted = config.tools ? new Set(config.tools) : undefined;
  return listed.filter((tool) => !wanted || wanted.has(tool.name));
}

/**
 * Connects to MCP servers (stdio commands or streamable HTTP URLs) with the official
 * SDK, lists their tools and returns a plugin exposing each as a Tack tool: named
 * `<prefix>_<tool>` (sanitized, unique), with the server's JSON Schema as parameters and
 * effects from its annotations. A server that advertises resources or prompts also gets
 * `<prefix>_list_resources` and `<prefix>_read_resource`, or `<prefix>_list_prompts` and
 * `<prefix>_get_prompt` (see {@linkcode resourceTools}, {@linkcode promptTools}); the host
 * reads them through `servers.get(name)`. Calls pass through the agent's hooks like any other; a
 * server that dies or hangs ends its calls with error results and is restarted on the
 * next call. The factory is async because the agent needs the tool list when it is
 * created. `dispose()` closes the connections and ends the server processes.
 *
 * @param options One server (`command`/`args` or `url`, plus `name`) or several
 * (`servers: { name: config }`), with tool options and limits.
 * @returns The connected plugin.
 * @throws {TypeError} When the options are malformed (no command nor url, bad url,
 * bad timeout).
 * @throws {Error} When a server cannot be started or listed, or `tools`/`effects` name
 * a tool the server does not have; servers already started are stopped first.
 *
 * @example The tools of a stdio server
 * ```ts
 * import { mcp } from "@tack/agent/plugins/mcp";
 * import { equal } from "node:assert/strict";
 *
 * const plugin = await mcp({
 *   name: "fixture",
 *   command: "deno",
 *   args: ["run", "--quiet", "--cached-only", "tests/fixtures/mcp/stdio_server.ts"],
 *   tools: ["echo"],
 * });
 * const [echo] = plugin.tools;
 * equal(echo.name, "fixture_echo");
 * const result = await echo.execute({ text: "hi" }, {
 *   toolCallId: "1", signal: new AbortController().signal,
 * });
 * equal(result.content[0].type === "text" && result.content[0].text, "echo: hi");
 * await plugin.dispose();
 * ```
 */
export async function mcp(options: McpOptions): Promise<McpPlugin> {
  const servers = serversOf(options);
  for (const [server, config] of servers) checkServer(server, config);
  const name = options.name ?? "mcp";
  const connections = new Map(
    servers.map(([server, config]) => [server, new McpConnection(server, config, options)]),
  );
  const warn = options.onWarning ?? ((message: string) => console.warn(`Tack: ${message}`));
  const warnings = new Map(servers.map(([server]) => [server, listingWarnings(warn)]));
  // Aborted on dispose: a refresh waiting for its turn does not start.
  const closing = new AbortController();
  const dispose = async (): Promise<void> => {
    closing.abort();
    await Promise.all([...connections.values()].map((connection) => connection.close()));
  };
  const build = async (strict: boolean) => {
    const taken = new Set<string>();
    const tools: AgentTool<Record<string, unknown>, McpCallDetails>[] = [];
    // A refresh has one deadline, the connect timeout from when it starts, connecting again
    // (a restart) included; at load, connecting has its own.
    const since = strict ? undefined : performance.now();
    const found = await Promise.all(servers.map(async ([server, config]) => {
      const connection = connections.get(server)!;
      const leftOut = new Set<string>();
      const listed = await listedTools(server, config, connection, strict, leftOut, since);
      // Connected: the listing just ended on this connection (no second connect to wait for).
      return { listed, leftOut, offers: await connection.capabilities() };
    }));
    // Names are given in server order, after listing, so they never depend on timing.
    for (const [index, [server, config]] of servers.entries()) {
      const connection = connections.get(server)!;
      // One server's schemas are held to the limits together: it cannot spend a second of
      // the host's time on each of a thousand tools.
      const schemaTally = newSchemaTally();
      for (const tool of found[index].listed) {
        tools.push(toTackTool(connection, tool, {
          name: toolName(config.toolPrefix ?? server, tool.name, taken),
          // Own keys only: a tool named `constructor` or `toString` must not get the
          // object's inherited function as its effects.
          effects: config.effects && Object.hasOwn(config.effects, tool.name)
            ? config.effects[tool.name]
            : toolEffects(tool.annotations),
          timeoutMs: config.timeoutMs,
          progressIntervalMs: options.progressIntervalMs,
          schemaTally,
        }));
      }
      const { offers } = found[index];
      const serverTools = {
        prefix: config.toolPrefix ?? server,
        taken,
        timeoutMs: config.timeoutMs,
      };
      if (offers.resources && config.resources !== false) {
        tools.push(...resourceTools(connection, serverTools));
      }
      if (offers.prompts && config.prompts !== false) {
        tools.push(...promptTools(connection, serverTools));
      }
    }
    // Told once the whole listing holds (a refresh that fails keeps the tools it had, and says
    // nothing of them), each problem once while it lasts (not at every refresh).
    for (const [index, [server]] of servers.entries()) warnings.get(server)!(found[index].leftOut);
    return tools;
  };
  let tools: AgentTool<Record<string, unknown>, McpCallDetails>[];
  try {
    tools = await build(true);
  } catch (error) {
    await dispose();
    throw error;
  }
  // Runtime tool changes: each agent's handle, and one refresh at a time. A refresh that has
  // not started yet lists after every change announced so far, so a burst of announcements
  // waits for one refresh, not one each. Each refresh is bounded (the connect timeout). An
  // announced refresh starts only so soon after the last one ended (`refreshPace`): a server
  // that announced a change after every listing kept the host listing without a pause.
  const hosts: PluginHost[] = [];
  const pace = refreshPace();
  let refreshing: Promise<void> = Promise.resolve();
  let waiting: Promise<void> | undefined;
  // Ends the wait of the refresh not started yet: the host asked for one.
  let hurry = new AbortController();
  // Whether no refresh is under way or queued; and, while some are, whether a model call gave
  // up waiting for them (the calls after it do not wait until they are done).
  let idle = true;
  let stalled = false;
  const refresh = (announced: boolean): Promise<void> => {
    if (waiting) {
      if (!announced) hurry.abort();
      return waiting;
    }
    const asked = performance.now();
    hurry = new AbortController();
    const { signal } = hurry;
    const run = refreshing.then(async () => {
      if (announced) await pace.wait(asked, AbortSignal.any([signal, closing.signal]));
      if (closing.signal.aborted) return;
      waiting = undefined;
      try {
        const next = await build(false);
        for (const host of hosts) host.setTools(next);
        tools = next;
      } finally {
        pace.ended();
      }
    });
    waiting = run;
    idle = false;
    const settled: Promise<void> = run.catch(() => {}).then(() => {
      if (refreshing !== settled) return;
      idle = true;
      stalled = false;
    });
    refreshing = settled;
    return run;
  };
  const refreshTools = () => refresh(false);
  for (const connection of connections.values()) {
    connection.onToolsChanged(() =>
      void refresh(true).catch((error) =>
        warn(
          `Cannot refresh the tools of MCP plugin "${name}"; it keeps the tools listed before: ${
            errorText(error)
          }`,
        )
      )
    );
  }
  const refreshWaitMs = options.refreshWaitMs ?? REFRESH_WAIT_MS;
  // A change announced before a model call is applied before it, if the refresh is done
  // within `refreshWaitMs`; else the call goes on with the tools it has.
  const prepareTurn = async (_context: unknown, signal: AbortSignal): Promise<void> => {
    if (idle || stalled) return;
    if (!(await settledWithin(refreshing, refreshWaitMs, signal)) && !idle) stalled = true;
  };
  return {
    name,
    description: `Tools of the MCP server${servers.length > 1 ? "s" : ""} ${
      servers.map(([server]) => server).join(", ")
    }`,
    get tools() {
      return tools;
    },
    permissions: permissionsOf(servers),
    servers: connections,
    prepareTurn,
    // Its one hook waits at most refreshWaitMs: bounded by that, not by the agent's
    // toolTimeoutMs, which may be shorter (its turn would fail instead of going on).
    hookTimeoutMs: refreshWaitMs + 1_000,
    attach: (host) => void hosts.push(host),
    refreshTools,
    dispose,
  };
}
