/**
 * One MCP server as the plugin sees it: connected on demand, reconnected after it dies,
 * restarted when it stops answering.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Progress,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { errorText } from "./describe_failure.ts";
import type { McpLimits, McpServerConfig } from "./options.ts";

/** The longest timeout `setTimeout` takes; used when the agent's own timeout governs. */
const NO_TIMEOUT_MS = 2_147_483_647;

/** What Tack tells servers about itself in `initialize`. */
const CLIENT_INFO = { name: "tack", version: "0.1.0" };

/** How a call is made: cancelled by `signal`, bounded by `timeoutMs`, progress reported. */
export interface CallOptions {
  /** Aborting it cancels the request on the server. */
  signal?: AbortSignal;
  /** The SDK's own deadline for the answer; default none (the agent's timeout governs). */
  timeoutMs?: number;
  /** Receives the server's progress notifications. */
  onprogress?: (progress: Progress) => void;
}

interface Live {
  client: Client;
  transport: Transport;
}

/**
 * The transport for a config. Imported on demand: the stdio transport reads environment
 * variables when it loads, so an HTTP-only plugin needs no `env` permission.
 */
async function makeTransport(config: McpServerConfig): Promise<Transport> {
  if ("url" in config) {
    const { StreamableHTTPClientTransport } = await import(
      "@modelcontextprotocol/sdk/client/streamableHttp.js"
    );
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: config.headers ? { headers: { ...config.headers } } : undefined,
    });
  }
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  return new StdioClientTransport({
    command: config.command,
    args: [...(config.args ?? [])],
    env: config.env ? { ...config.env } : undefined,
    cwd: config.cwd,
    stderr: config.stderr ?? "inherit",
  });
}

/** Ends a server that stopped answering at once, instead of waiting for it to exit. */
function terminate(transport: Transport): void {
  // The SDK keeps the child private; its own close() would wait 2 s before SIGTERM.
  const child = (transport as unknown as { _process?: { kill(signal: string): boolean } })
    ._process;
  try {
    child?.kill("SIGTERM");
  } catch {
    // already gone
  }
}

/**
 * A connection to one MCP server. It connects on first use and again after the server
 * closed the connection (a stdio server that exited, an HTTP server that went away, a
 * transport failure); after a call timed out or was aborted it pings the server and
 * restarts it when the ping goes unanswered.
 *
 * @example Listing a server's tools and calling one
 * ```ts
 * import { McpConnection } from "@tack/agent/plugins/mcp";
 * import { equal } from "node:assert/strict";
 *
 * const connection = new McpConnection("fixture", {
 *   command: "deno",
 *   args: ["run", "--quiet", "--cached-only", "tests/fixtures/mcp/stdio_server.ts"],
 * });
 * const tools = await connection.listTools();
 * equal(tools[0].name, "echo");
 * const result = await connection.callTool("echo", { text: "hi" });
 * equal(result.content[0].type === "text" && result.content[0].text, "echo: hi");
 * await connection.close();
 * ```
 */
export class McpConnection {
  /** The server's name, used in every error text. */
  readonly server: string;
  /** Called when the server says its tool list changed (`notifications/tools/list_changed`). */
  onToolsChanged: (() => void) | undefined;
  readonly #config: McpServerConfig;
  readonly #connectTimeoutMs: number;
  readonly #pingTimeoutMs: number;
  #live?: Live;
  #connecting?: Promise<Live>;
  #checking?: Promise<void>;
  #closed = false;
  #starts = 0;

  /**
   * Prepares a connection; nothing starts until the first {@linkcode McpConnection.connect}.
   *
   * @param server The server's name.
   * @param config How to reach it.
   * @param limits Connect and ping timeouts.
   */
  constructor(server: string, config: McpServerConfig, limits: McpLimits = {}) {
    this.server = server;
    this.#config = config;
    this.#connectTimeoutMs = limits.connectTimeoutMs ?? 30_000;
    this.#pingTimeoutMs = limits.pingTimeoutMs ?? 5_000;
  }

  /** How many times the server was started (or connected to), including the first. */
  get starts(): number {
    return this.#starts;
  }

  /** Whether a connection is open right now. */
  get connected(): boolean {
    return this.#live !== undefined;
  }

  /**
   * Connects unless connected; concurrent callers share one attempt.
   *
   * @returns The live client.
   * @throws {Error} When the server cannot be started or does not complete `initialize`
   * (`Cannot connect to MCP server "<name>": <reason>`), or the connection was closed.
   */
  async connect(): Promise<Client> {
    if (this.#closed) {
      throw new Error(`Cannot connect to MCP server "${this.server}": the plugin was disposed`);
    }
    if (this.#live) return this.#live.client;
    this.#connecting ??= this.#open().finally(() => {
      this.#connecting = undefined;
    });
    return (await this.#connecting).client;
  }

  async #open(): Promise<Live> {
    const transport = await makeTransport(this.#config);
    const client = new Client(CLIENT_INFO);
    const live: Live = { client, transport };
    client.onclose = () => {
      if (this.#live === live) this.#live = undefined;
    };
    // Errors also reach the pending requests (as rejections) or onclose; the SDK logs
    // them to the console unless a handler is set.
    client.onerror = () => {};
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.onToolsChanged?.());
    this.#starts++;
    try {
      await client.connect(transport, { timeout: this.#connectTimeoutMs });
    } catch (error) {
      terminate(transport);
      await client.close().catch(() => {});
      throw new Error(`Cannot connect to MCP server "${this.server}": ${errorText(error)}`, {
        cause: error,
      });
    }
    if (this.#closed) {
      await client.close().catch(() => {});
      throw new Error(`Cannot connect to MCP server "${this.server}": the plugin was disposed`);
    }
    this.#live = live;
    return live;
  }

  /**
   * Lists every tool the server offers, following pagination.
   *
   * @returns The server's tools.
   * @throws {Error} When connecting or listing fails.
   */
  async listTools(): Promise<Tool[]> {
    const client = await this.connect();
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: this.#connectTimeoutMs,
      });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * Calls a tool, connecting (or reconnecting) first if needed. An aborted `signal`
   * cancels the request on the server (`notifications/cancelled`); after a timeout or
   * an abort the server is pinged and restarted if it does not answer.
   *
   * @param name The tool's name on the server.
   * @param args Its arguments.
   * @param options Signal, timeout and progress callback.
   * @returns The server's result (which may have `isError: true`).
   * @throws {Error} Whatever the SDK raises: `McpError` for protocol errors, timeouts
   * and a closed connection, an `AbortError` when `signal` aborts.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    if (this.#checking) await this.#checking;
    const client = await this.connect();
    const live = this.#live!;
    const { signal } = options;
    // Checked at once on abort (not when the rejection arrives), so a call made right
    // after a timed-out one waits for the verdict.
    const onAbort = () => this.#check(live);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await client.callTool({ name, arguments: args }, undefined, {
        signal,
        timeout: options.timeoutMs ?? NO_TIMEOUT_MS,
        onprogress: options.onprogress,
      }) as CallToolResult;
    } catch (error) {
      if (error instanceof McpError) {
        if ((error as McpError).code === ErrorCode.RequestTimeout) this.#check(live);
      } else if (!signal?.aborted) {
        // A transport failure (an HTTP server that went away or lost our session, a
        // broken pipe): start afresh on the next call.
        this.#maintain(() => this.#retire(live));
      }
      throw error;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Runs one maintenance task at a time; calls and `close()` wait for it. */
  #maintain(task: () => Promise<void>): void {
    this.#checking ??= task().finally(() => {
      this.#checking = undefined;
    });
  }

  /** Pings the server once; a server that does not answer in time is restarted. */
  #check(live: Live): void {
    this.#maintain(async () => {
      try {
        await live.client.ping({ timeout: this.#pingTimeoutMs });
      } catch {
        await this.#retire(live);
      }
    });
  }

  /** Forgets a connection and ends its server; the next call connects again. */
  async #retire(live: Live): Promise<void> {
    if (this.#live === live) this.#live = undefined;
    terminate(live.transport);
    await live.client.close().catch(() => {});
  }

  /**
   * Closes the connection and ends the server process. Idempotent; later calls fail
   * with an error result.
   *
   * @returns When the server is gone.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#connecting?.catch(() => {});
    await this.#checking;
    const live = this.#live;
    this.#live = undefined;
    await live?.client.close().catch(() => {});
  }
}
