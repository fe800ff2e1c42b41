/**
 * One MCP server's connection: connected on demand, reconnected after it dies, restarted when
 * it stops answering.
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { ErrorCode, McpError, type ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { errorText } from "./describe_failure.ts";
import { invalidResponseOf } from "./invalid_response.ts";
import { type ListPage, listPages } from "./list_pages.ts";
import type { CallOptions, McpLimits, McpServerConfig } from "./options.ts";
import { type Live, terminate } from "./make_transport.ts";
import { openLive } from "./open_live.ts";
import { maintenanceQueue } from "./maintenance.ts";
import { ProgressRoutes } from "./progress_routes.ts";
import { MAX_NON_ANSWERS_PER_SECOND } from "./server_messages.ts";

/** Why a connection is refused once the plugin is disposed. */
const DISPOSED = "the plugin was disposed";

/** The longest timeout `setTimeout` takes; used when the agent's own timeout governs. */
const NO_TIMEOUT_MS = 2_147_483_647;

/**
 * The life of one MCP server's connection, without the MCP operations
 * ({@linkcode McpConnection} adds those): it connects on first use and again after the server
 * closed the connection (a stdio server that exited, an HTTP server that went away, a transport
 * failure); after a request timed out or was aborted it pings the server and restarts it when
 * the ping goes unanswered.
 *
 * @example Connecting and reading what the server supports
 * ```ts
 * import { ServerLink } from "@tack/agent/plugins/mcp";
 * import { equal } from "node:assert/strict";
 *
 * const link = new ServerLink("fixture", {
 *   command: "deno",
 *   args: ["run", "--quiet", "--cached-only", "tests/fixtures/mcp/stdio_server.ts"],
 * });
 * equal(typeof (await link.capabilities()).tools, "object");
 * equal(link.starts, 1);
 * await link.close();
 * ```
 */
export class ServerLink {
  /** The server's name, used in every error text. */
  readonly server: string;
  readonly #config: McpServerConfig;
  readonly #connectTimeoutMs: number;
  readonly #pingTimeoutMs: number;
  readonly #killGraceMs: number;
  readonly #maxNonAnswersPerSecond: number;
  readonly #progress = new ProgressRoutes();
  readonly #toolsChanged = new Set<() => void>();
  /** Pings and retires, one at a time and none dropped; calls and `close()` wait for them. */
  readonly #maintenance = maintenanceQueue();
  #live?: Live;
  #connecting?: Promise<Live>;
  #closed = false;
  #starts = 0;

  /**
   * Prepares a connection; nothing starts until the first {@linkcode McpConnection.connect}.
   *
   * @param server The server's name.
   * @param config How to reach it.
   * @param limits Connect and ping timeouts, the bound on messages that answer nothing.
   */
  constructor(server: string, config: McpServerConfig, limits: McpLimits = {}) {
    this.server = server;
    this.#config = config;
    this.#connectTimeoutMs = limits.connectTimeoutMs ?? 30_000;
    this.#pingTimeoutMs = limits.pingTimeoutMs ?? 5_000;
    this.#killGraceMs = limits.killGraceMs ?? 2_000;
    this.#maxNonAnswersPerSecond = limits.maxNonAnswersPerSecond ?? MAX_NON_ANSWERS_PER_SECOND;
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
    if (this.#closed) throw this.#cannotConnect(new Error(DISPOSED));
    // One the plugin ended (`failure`) is never used again, even before it is retired.
    if (this.#live && !this.#live.failure) return this.#live.client;
    this.#connecting ??= this.#open()
      .catch((reason) => {
        throw this.#cannotConnect(reason);
      })
      .finally(() => {
        this.#connecting = undefined;
      });
    return (await this.#connecting).client;
  }

  #cannotConnect(reason: unknown): Error {
    return new Error(`Cannot connect to MCP server "${this.server}": ${errorText(reason)}`, {
      cause: reason,
    });
  }

  /** Opens a connection (see `openLive`); throws why it could not. */
  async #open(): Promise<Live> {
    const live = await openLive({
      config: this.#config,
      killGraceMs: this.#killGraceMs,
      connectTimeoutMs: this.#connectTimeoutMs,
      maxNonAnswersPerSecond: this.#maxNonAnswersPerSecond,
      progress: this.#progress,
      onStart: () => this.#starts++,
      onToolsChanged: () => {
        for (const listener of [...this.#toolsChanged]) listener();
      },
      onEnded: (ended) => this.#maintenance.add(() => this.#retire(ended)),
      onClosed: (closed) => {
        if (this.#live === closed) this.#live = undefined;
      },
    });
    if (this.#closed) {
      await live.client.close().catch(() => {});
      throw new Error(DISPOSED);
    }
    this.#live = live;
    return live;
  }

  /**
   * What the server said it supports in `initialize` (`tools`, `resources`, `prompts`,
   * …), connecting first if needed.
   *
   * @returns Its capabilities.
   * @throws {Error} When connecting fails.
   */
  async capabilities(): Promise<ServerCapabilities> {
    const client = await this.connect();
    return client.getServerCapabilities() ?? {};
  }

  /**
   * Subscribes to the server's `notifications/tools/list_changed`. The subscription
   * outlives restarts: a restarted server's notifications reach it too.
   *
   * @param listener Called each time the server says its tool list changed.
   * @returns A function that unsubscribes.
   */
  onToolsChanged(listener: () => void): () => void {
    const entry = () => listener();
    this.#toolsChanged.add(entry);
    return () => this.#toolsChanged.delete(entry);
  }

  /**
   * Every page of a listing (`listPages`), the whole listing bounded by one deadline (the
   * options' timeout, default the connect timeout): a server that answers each page slowly,
   * with always another cursor, cannot hold the listing for a timeout per page. The deadline
   * starts once connected, or at `since`, waiting for the connection included.
   *
   * @param what What is listed, for the error text ("tools", "prompts").
   * @param most How many items the whole listing may hold.
   * @param page Requests one page (the cursor, or none for the first) and reads its items.
   * @param options Signal, timeout and when the listing's time started.
   * @returns Every page's items.
   * @throws {Error} When connecting or a page fails, or the listing is not done in time.
   */
  protected async pages<T>(
    what: string,
    most: number,
    page: (
      client: Client,
      params: { cursor: string } | undefined,
      options: RequestOptions,
    ) => Promise<ListPage<T>>,
    options: CallOptions & { since?: number } = {},
  ): Promise<T[]> {
    if (options.since === undefined) {
      // Connected first: the deadline is the listing's alone.
      await this.#maintenance.idle();
      await this.connect();
    }
    return listPages(
      what,
      this.server,
      most,
      (params, leftMs) =>
        this.request(
          { ...options, timeoutMs: Math.max(1, Math.ceil(leftMs)) },
          (client, request) => page(client, params, request),
        ),
      options.timeoutMs ?? this.#connectTimeoutMs,
      options.since,
    );
  }

  /**
   * Makes one request on a live connection: connects first, and after a timeout or an
   * abort pings the server (restarting it when the ping goes unanswered); after a
   * transport failure starts afresh on the next request. With `options.onprogress`, `send`
   * gets a progress token to put in the request's `_meta`; the server's progress
   * notifications for it reach the callback until the request ends.
   *
   * @param options Signal, timeout and progress callback.
   * @param send Sends the request on the live client.
   * @returns What `send` resolves to.
   * @throws {Error} The live connection's failure, an `InvalidResponseError`, or what `send` throws.
   */
  protected async request<T>(
    options: CallOptions,
    send: (client: Client, request: RequestOptions, progressToken?: string) => Promise<T>,
  ): Promise<T> {
    const token = options.onprogress ? this.#progress.add(options.onprogress) : undefined;
    try {
      return await this.#requestLive(options, (client, request) => send(client, request, token));
    } finally {
      if (token) this.#progress.delete(token);
    }
  }

  async #requestLive<T>(
    options: CallOptions,
    send: (client: Client, request: RequestOptions) => Promise<T>,
  ): Promise<T> {
    await this.#maintenance.idle();
    const client = await this.connect();
    const live = this.#live!;
    const { signal } = options;
    // Checked at once on abort (not when the rejection arrives), so a call made right
    // after a timed-out one waits for the verdict.
    const onAbort = () => this.#check(live);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await send(client, { signal, timeout: options.timeoutMs ?? NO_TIMEOUT_MS });
    } catch (error) {
      if (live.failure) throw live.failure;
      // An answer the SDK refused: the connection is fine, the server answered wrongly.
      const invalid = invalidResponseOf(error);
      if (invalid) throw invalid;
      if (error instanceof McpError) {
        if ((error as McpError).code === ErrorCode.RequestTimeout) this.#check(live);
      } else if (!signal?.aborted) {
        // A transport failure (an HTTP server that went away or lost our session, a
        // broken pipe): start afresh on the next call.
        this.#maintenance.add(() => this.#retire(live));
      }
      throw error;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Pings the server (unless a ping of it is due); one that does not answer in time is restarted. */
  #check(live: Live): void {
    this.#maintenance.addOnce(live, async () => {
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
    await terminate(live.transport);
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
    await this.#maintenance.idle();
    const live = this.#live;
    this.#live = undefined;
    await live?.client.close().catch(() => {});
  }
}
