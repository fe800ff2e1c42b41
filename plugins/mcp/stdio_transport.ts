/**
 * The stdio transport Tack uses for MCP servers: a `Deno.Command` child it owns, so
 * shutdown can escalate from closing stdin to SIGTERM to SIGKILL.
 *
 * @module
 */

import { invalidAnswer } from "./invalid_response.ts";
import { permittedEnv } from "../../sdk/permitted_env.ts";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { drainWithin, signalProcessGroup, spawnGroup } from "../../sdk/process_group.ts";
import { lineSplitter } from "../../sdk/sandbox/read_lines.ts";
import { settledWithin } from "../../sdk/sleep.ts";
import { MAX_MESSAGE_BYTES, tooLargeError } from "./bounded_body.ts";

/** The variables a server inherits from the host (the SDK's list, after sudo's). */
export const INHERITED_ENV: readonly string[] = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
];

/** How to start the server and how long it has to exit at each step of a shutdown. */
export interface StdioTransportOptions {
  /** The executable; no shell is involved. */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /** Variables on top of {@linkcode INHERITED_ENV}; nothing else is inherited. */
  env?: Readonly<Record<string, string>>;
  /** Its working directory. */
  cwd?: string;
  /** Its stderr: shown (default) or dropped. */
  stderr?: "inherit" | "ignore";
  /** How long each shutdown step waits for the process to exit, in ms (default 2 000). */
  killGraceMs?: number;
  /**
   * Called when the server writes a line (one message) over `MAX_MESSAGE_BYTES` (10 MB); the
   * line is not kept and the process is ended. `onerror` gets the same error.
   */
  onTooLarge?: (error: Error) => void;
}

function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = permittedEnv(key); // not permitted (it would prompt): not passed on
    // Exported bash functions look like `() { …`; the SDK leaves them out too.
    if (value !== undefined && !value.startsWith("()")) env[key] = value;
  }
  return env;
}

/**
 * An MCP client transport over a child process's stdin and stdout, one JSON-RPC message
 * per line. Unlike the SDK's (which goes through `node:child_process`, where Deno sends
 * nothing on a second `kill()`), its shutdown always ends the process: `close()` closes
 * stdin and waits `killGraceMs`, then sends SIGTERM and waits again, then SIGKILL;
 * `terminate()` starts at SIGTERM, for a server that stopped answering. Both resolve once
 * the process has exited. The server runs in a session and process group of its own: the
 * signals go to the group, and what is left of the group when the server exits is killed.
 * `onclose` fires once, when the process is gone and its output read (or, when a child that
 * left its group keeps stdout open, `killGraceMs` after the exit).
 *
 * @example Starting a server and stopping it
 * ```ts
 * import { StdioTransport } from "@tack/agent/plugins/mcp";
 * import { equal } from "node:assert/strict";
 *
 * const transport = new StdioTransport({
 *   command: "deno",
 *   args: ["run", "--quiet", "--cached-only", "tests/fixtures/mcp/stdio_server.ts"],
 * });
 * let closed = 0;
 * transport.onclose = () => closed++;
 * await transport.start();
 * equal(typeof transport.pid, "number");
 * await transport.close();
 * equal(closed, 1);
 * equal(transport.pid, undefined);
 * ```
 */
export class StdioTransport implements Transport {
  /** Called once when the process has exited. */
  onclose?: () => void;
  /** Called with unreadable output and failed reads. */
  onerror?: (error: Error) => void;
  /** Called with each message, in the order the server wrote them. */
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #options: StdioTransportOptions;
  readonly #graceMs: number;
  #child?: Deno.ChildProcess;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #exited = false;
  #done?: Promise<void>;
  #reader?: ReadableStreamDefaultReader<Uint8Array>;
  #stopping?: Promise<void>;

  /**
   * Prepares the transport; the process starts with {@linkcode StdioTransport.start}.
   *
   * @param options The command and the shutdown grace period.
   */
  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.#graceMs = options.killGraceMs ?? 2_000;
  }

  /** The process id while the process runs. */
  get pid(): number | undefined {
    return this.#child && !this.#exited ? this.#child.pid : undefined;
  }

  /**
   * Starts the process.
   *
   * @returns When it has been spawned.
   * @throws {Error} When it cannot be spawned (no such command, no `run` permission), or
   * the transport was started before.
   */
  start(): Promise<void> {
    if (this.#child) return Promise.reject(new Error("Cannot start transport: already started"));
    const { command, args = [], env = {}, cwd, stderr = "inherit" } = this.#options;
    try {
      // A session and process group of its own: a Ctrl-C in the host's terminal is the
      // host's to handle (it does not stop the server), and shutdown signals the whole group
      // (a server started through `npx` or a shell script is more than one process).
      this.#child = spawnGroup(command, {
        args: [...args],
        env: { ...inheritedEnv(), ...env },
        clearEnv: true,
        cwd,
        stdin: "piped",
        stdout: "piped",
        stderr: stderr === "ignore" ? "null" : "inherit",
      });
    } catch (error) {
      return Promise.reject(error);
    }
    this.#writer = this.#child.stdin.getWriter();
    this.#writer.closed.catch(() => {}); // a server that exits breaks the pipe
    const status = this.#child.status.then(() => {
      this.#exited = true;
    });
    const read = this.#read(this.#child.stdout);
    // What is left of its group was killed as it exited (see spawnGroup); a child that left
    // the group may hold stdout open: it is read for `killGraceMs` at most.
    const stop = () => void this.#reader?.cancel().catch(() => {});
    this.#done = status.then(() => drainWithin(read, this.#graceMs, stop))
      .then(() => this.onclose?.());
    return Promise.resolve();
  }

  /**
   * Reads the server's messages, one a line. Newlines are found in each chunk's bytes, never
   * by rescanning what came before: a line of 9 MB read as a string (appended to, searched
   * from its start at each chunk) held the event loop ~0.45 s, and a server writing such lines
   * without pause held it nearly all the time.
   */
  async #read(stdout: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    const reader = this.#reader = stdout.getReader();
    // A last line without a newline is not a message (the SDK's reader drops it too).
    const split = lineSplitter((bytes) => {
      const line = decoder.decode(bytes).replace(/\r$/, "");
      if (line.trim() !== "") this.#deliver(line);
    }, {
      maxLineBytes: MAX_MESSAGE_BYTES,
      long: "stop",
      onTooLong: () => {
        const error = tooLargeError(MAX_MESSAGE_BYTES);
        this.#options.onTooLarge?.(error);
        this.onerror?.(error);
        this.terminate();
      },
    });
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!split.push(value)) {
          await reader.cancel().catch(() => {});
          break;
        }
      }
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      // An invalid answer to a request fails that request now, not at its timeout.
      const answer = invalidAnswer(line);
      if (answer) this.onmessage?.(answer);
      return;
    }
    this.onmessage?.(message);
  }

  /**
   * Writes one message to the server's stdin.
   *
   * @param message The message.
   * @returns When it was written.
   * @throws {Error} When the transport is not started or the process has exited.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#writer || this.#exited) throw new Error("Not connected");
    await this.#writer.write(new TextEncoder().encode(serializeMessage(message)));
  }

  /**
   * Ends the process gently: closes its stdin, then SIGTERM, then SIGKILL, each after
   * `killGraceMs` without an exit. Idempotent.
   *
   * @returns When the process has exited.
   */
  close(): Promise<void> {
    return this.#stop(false);
  }

  /**
   * Ends a process that stopped answering: SIGTERM at once, SIGKILL after `killGraceMs`.
   *
   * @returns When the process has exited.
   */
  terminate(): Promise<void> {
    return this.#stop(true);
  }

  #stop(now: boolean): Promise<void> {
    if (!this.#child) return Promise.resolve();
    this.#stopping ??= this.#escalate(now);
    return this.#stopping;
  }

  async #escalate(now: boolean): Promise<void> {
    const child = this.#child!;
    // Not awaited: a server that stopped reading never drains the pipe.
    this.#writer?.close().catch(() => {});
    const steps: (Deno.Signal | undefined)[] = now
      ? ["SIGTERM", "SIGKILL"]
      : [undefined, "SIGTERM", "SIGKILL"];
    for (const signal of steps) {
      if (this.#exited) break;
      if (signal) signalProcessGroup(child, signal);
      if (signal === "SIGKILL") break;
      await settledWithin(child.status, this.#graceMs);
    }
    await this.#done;
  }
}
