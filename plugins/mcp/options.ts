/**
 * How to reach an MCP server and how its tools appear in Tack.
 *
 * @module
 */

import type { ToolEffect } from "@tack/agent";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";

/** What every server config may say about the tools it exposes. */
export interface McpToolOptions {
  /**
   * Put before each tool's name with a `_` (`files` → `files_read_file`). Defaults to
   * the server's name; `""` exposes the names as they are (sanitized).
   */
  toolPrefix?: string;
  /** Expose only these MCP tools (by their names on the server); default all. */
  tools?: readonly string[];
  /** Effects by MCP tool name, overriding what the annotations say. */
  effects?: Readonly<Record<string, readonly ToolEffect[]>>;
  /** Per-call timeout in ms for this server's tools; default: the agent's `toolTimeoutMs`. */
  timeoutMs?: number;
  /**
   * Expose `<prefix>_list_resources` and `<prefix>_read_resource` when the server
   * advertises resources (default `true`).
   */
  resources?: boolean;
  /**
   * Expose `<prefix>_list_prompts` and `<prefix>_get_prompt` when the server advertises
   * prompts (default `true`).
   */
  prompts?: boolean;
}

/** A server Tack starts as a child process and talks to over stdin/stdout. */
export interface McpStdioServer extends McpToolOptions {
  /** The executable (`"deno"`, `"npx"`, `"uvx"`, …); no shell is involved. */
  command: string;
  /** Its arguments, passed as they are. */
  args?: readonly string[];
  /**
   * Environment variables for the server, on top of a safe few inherited ones (`HOME`,
   * `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`).
   */
  env?: Readonly<Record<string, string>>;
  /** Its working directory; default the host's. */
  cwd?: string;
  /** What happens to its stderr: shown (`"inherit"`, default) or dropped (`"ignore"`). */
  stderr?: "inherit" | "ignore";
}

/** A server Tack reaches over streamable HTTP. */
export interface McpHttpServer extends McpToolOptions {
  /** The endpoint, e.g. `http://127.0.0.1:8080/mcp`. */
  url: string;
  /** Headers sent with every request (e.g. `Authorization`). */
  headers?: Readonly<Record<string, string>>;
}

/** One MCP server: a command to run, or a URL. */
export type McpServerConfig = McpStdioServer | McpHttpServer;

/** Limits shared by all the plugin's servers. */
export interface McpLimits {
  /**
   * How long starting a server may take, in ms (default 30 000), and so may listing its tools
   * (all pages together); a refresh of the tools takes at most this long, connecting again
   * included.
   */
  connectTimeoutMs?: number;
  /**
   * How long a model call waits for a tool list refresh under way (on
   * `notifications/tools/list_changed`), in ms (default 2 000); past it the call goes on with
   * the tools listed before, and so do the next ones until the refresh is done.
   */
  refreshWaitMs?: number;
  /**
   * After a call times out or is aborted, how long the server has to answer a ping
   * before it is considered hung and restarted, in ms (default 5 000).
   */
  pingTimeoutMs?: number;
  /**
   * How long a stdio server has to exit at each step of its shutdown, in ms (default
   * 2 000): after its stdin is closed, then after SIGTERM; then it gets SIGKILL. A server
   * that stopped answering starts at SIGTERM.
   */
  killGraceMs?: number;
  /**
   * The least time between two `tool_execution_update` events of one call, in ms (default
   * 100): a call's first progress is shown at once, then at most one every interval, always
   * the latest, and the last before the result. `0` shows every notification.
   */
  progressIntervalMs?: number;
  /**
   * The most messages that answer nothing a server may send in a second (default 10 000):
   * every message but the answer to a request in flight, progress included. Past it the
   * server is flooding: its connection is ended and its calls in flight fail; the next call
   * starts it afresh. `Infinity` lifts the bound.
   */
  maxNonAnswersPerSecond?: number;
}

/** What the plugin tells the host about, whatever its servers. */
export interface McpReporting {
  /**
   * Receives what the plugin could not do without failing a call (a tool list refresh that
   * failed, a listed tool left out: once, not at every refresh that leaves it out for the same
   * reason), one line each; default `console.warn`, after `Tack: `.
   */
  onWarning?: (message: string) => void;
}

/** `mcp()` with one server: its config, and the plugin's name (default `"mcp"`). */
export type McpSingleServerOptions =
  & McpServerConfig
  & McpLimits
  & McpReporting
  & { name?: string };

/**
 * `mcp()` with several servers under one plugin: each server's key is its name and its
 * tools' default prefix.
 */
export interface McpMultiServerOptions extends McpLimits, McpReporting {
  /** The plugin's name (default `"mcp"`). */
  name?: string;
  /** The servers by name; a name is also its tools' default prefix. */
  servers: Readonly<Record<string, McpServerConfig>>;
}

/** What `mcp()` takes. */
export type McpOptions = McpSingleServerOptions | McpMultiServerOptions;

/** How a call is made: cancelled by `signal`, bounded by `timeoutMs`, progress reported. */
export interface CallOptions {
  /** Aborting it cancels the request on the server. */
  signal?: AbortSignal;
  /** The SDK's own deadline for the answer; default none (the agent's timeout governs). */
  timeoutMs?: number;
  /** Receives the server's progress notifications. */
  onprogress?: (progress: Progress) => void;
}
