/**
 * The host side of a sandbox, whatever runs it (a process or a worker): a lazily
 * started child, calls and hooks matched to their answers by id, and restart after a
 * crash, garbage on the wire, or a call that would not stop.
 *
 * @module
 */

import type { AgentTool, ToolResult } from "../../core/tool.ts";
import { invalidContentReason } from "../../core/check_tool_result.ts";
import type { PluginManifest, ProxiedHook } from "./protocol.ts";
import type { SandboxChild, SpawnChild } from "./sandbox_child.ts";
import { toolSpec } from "./tool_spec.ts";
import { TranscriptCursor } from "./transcript_cursor.ts";
import { type Live, wakeIfQuiet } from "./live_child.ts";
import { printable } from "./strip_control_sequences.ts";
import { unaskedMessage } from "./unasked_message.ts";

export type { ChildHandlers, SandboxChild, SpawnChild } from "./sandbox_child.ts";

/** The raw outcome of a sandboxed call. */
export interface SandboxCallResult {
  result: ToolResult;
  isError: boolean;
}

/** The sandbox went away while a hook was waiting for it (not the hook's own failure). */
class SandboxFault extends Error {}

/** How long a child may take to load its module and report its manifest, by default. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;

/** How long a cancelled call may take to stop before its child is killed. */
const CANCEL_GRACE_MS = 200;

function failure(text: string): SandboxCallResult {
  return {
    result: { content: [{ type: "text", text }], details: { sandbox: "fault" } },
    isError: true,
  };
}

/**
 * One plugin's sandbox. Calls start the child if it is not running; a child that dies
 * ends its in-flight calls with error results, and the next call starts a fresh one.
 */
export class SandboxConnection {
  #spawn: SpawnChild;
  #label: string;
  #live: Live | undefined;
  #nextId = 1;
  #disposed = false;
  #stopping = new Set<Promise<void>>();
  #startTimeoutMs: number;

  /**
   * @param label The plugin's name (or specifier, until the manifest names it).
   * @param spawn Starts a child.
   * @param startTimeoutMs How long a child may take to report its manifest before it is
   * killed (its module's top level may hang).
   */
  constructor(label: string, spawn: SpawnChild, startTimeoutMs = DEFAULT_START_TIMEOUT_MS) {
    this.#label = label;
    this.#spawn = spawn;
    this.#startTimeoutMs = startTimeoutMs;
  }

  /** Names the plugin in error texts. */
  set label(label: string) {
    this.#label = label;
  }

  /**
   * Starts the child if needed and waits for its manifest.
   *
   * @returns The plugin's manifest.
   * @throws {Error} `Cannot start sandbox of plugin …` when the module fails to load.
   */
  start(): Promise<PluginManifest> {
    try {
      return this.#current().ready;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The child new work goes to, launched if there is none. */
  #current(): Live {
    if (this.#disposed) {
      throw new Error(`Cannot start sandbox of plugin "${this.#label}": it is disposed`);
    }
    return this.#live ??= this.#launch();
  }

  #launch(): Live {
    let resolveReady!: (manifest: PluginManifest) => void;
    let rejectReady!: (error: Error) => void;
    const ready = new Promise<PluginManifest>((resolve, reject) => {
      resolveReady = resolve;
      rejectReady = reject;
    });
    ready.catch(() => {});
    const live: Live = {
      child: undefined as unknown as SandboxChild,
      ready,
      pending: new Map(),
      hooks: new Map(),
      cancelled: new Set(),
      quiet: [],
      cursor: new TranscriptCursor(),
      toolsCursor: new TranscriptCursor(),
      started: false,
    };
    live.child = this.#spawn({
      onMessage: (message) => {
        // One that answers nothing is a fault, not dropped (see unasked_message.ts).
        const unasked = unaskedMessage(message, live);
        if (unasked !== undefined) {
          live.fault ??= `sent a message it was not asked for ${unasked}`;
          return this.#stop(live);
        }
        switch (message.type) {
          case "manifest":
            clearTimeout(startTimer);
            live.started = true;
            return resolveReady(message.manifest);
          case "fatal":
            // The plugin's own text (its factory's error): no escapes reach a terminal.
            live.fault = `failed to load its module: ${printable(message.message)}`;
            return this.#stop(live);
          case "update":
            // Content no result may have (a text that is not a string, an unknown block)
            // would reach the host's listeners as it came: left out, as a result's is refused.
            if (invalidContentReason(message.partial.content) !== undefined) return;
            return live.pending.get(message.id)?.update?.(message.partial);
          case "result": {
            if (live.cancelled.delete(message.id)) wakeIfQuiet(live);
            const pending = live.pending.get(message.id);
            live.pending.delete(message.id);
            return pending?.resolve({ result: message.result, isError: message.isError });
          }
          case "hook_result": {
            const hook = live.hooks.get(message.id);
            live.hooks.delete(message.id);
            if (message.error !== undefined) hook?.reject(new Error(printable(message.error)));
            else hook?.resolve(message.value);
          }
        }
      },
      onFault: (why) => {
        if (live.fault === undefined) {
          live.fault = why;
          live.bare = true;
        }
        this.#stop(live);
      },
      onGarbage: (line) => {
        live.fault ??= `printed invalid protocol output (${JSON.stringify(line.slice(0, 200))})`;
        this.#stop(live);
      },
      onExit: (reason) => {
        clearTimeout(startTimer);
        if (this.#live === live) this.#live = undefined;
        const tail = live.bare ? "" : live.child.stderrTail().trim();
        const why = live.fault ?? `crashed (${reason})`;
        const said = tail === "" ? "" : `; its last words on stderr: ${JSON.stringify(tail)}`;
        rejectReady(new Error(`Cannot start sandbox of plugin "${this.#label}": it ${why}${said}`));
        for (const [, pending] of live.pending) {
          pending.resolve(failure(
            `Tool ${pending.tool} failed: the sandbox of plugin "${this.#label}" ${why} while running it${said}; it restarts for the next call`,
          ));
        }
        live.pending.clear();
        for (const [, hook] of live.hooks) {
          hook.reject(new SandboxFault(`the sandbox of plugin "${this.#label}" ${why}`));
        }
        live.hooks.clear();
        wakeIfQuiet(live, true);
      },
    });
    const startTimer = setTimeout(() => {
      live.fault ??= `did not report its manifest within ${this.#startTimeoutMs} ms`;
      this.#stop(live);
    }, this.#startTimeoutMs);
    const closed = live.child.closed;
    this.#stopping.add(closed);
    closed.finally(() => this.#stopping.delete(closed));
    return live;
  }

  /**
   * Kills a child and hands it no more work: until it is gone (its `onExit` ends what it
   * owed), the next call or hook would otherwise be sent to it and fail with its fault.
   */
  #stop(live: Live): void {
    if (this.#live === live) this.#live = undefined;
    live.child.kill();
  }

  /** The running child when it can take work now (the common case: no waiting). */
  #readyNow(): Live | undefined {
    const live = this.#live;
    return live !== undefined && live.started && live.cancelled.size === 0 && !this.#disposed
      ? live
      : undefined;
  }

  /**
   * A started child that owes no answer to a cancel: while a cancelled call has not
   * stopped, the child may be stuck in it, so new work waits until it answers or is
   * killed (then a fresh child starts).
   */
  async #ready(): Promise<Live | string> {
    while (true) {
      // The child waited for is the one returned, even if it was stopped meanwhile: the
      // work then fails with its fault rather than starting children in a loop.
      let live: Live;
      try {
        live = this.#current();
        await live.ready;
      } catch (error) {
        return (error as Error).message;
      }
      if (live.cancelled.size === 0) return live;
      await new Promise<void>((resolve) => live.quiet.push(resolve));
    }
  }

  /**
   * Whether a child is ready for new work now; if not, starts one (after a fault) and
   * says when it is. Lets the host wait for a restart before a call's timeout starts.
   *
   * @returns `undefined` when ready; else a promise that settles once a child is ready
   * or has failed to start (never rejects).
   */
  readiness(): Promise<void> | undefined {
    const live = this.#live;
    if (live?.started && live.cancelled.size === 0) return undefined;
    return this.#ready().then(() => undefined);
  }

  /**
   * Runs a tool in the sandbox. Never rejects: faults become error results.
   *
   * @param tool The tool's name.
   * @param toolCallId The call's id.
   * @param args Validated arguments.
   * @param signal Aborted on timeout or abort: the call is cancelled, and the child is
   * killed if it does not stop within {@linkcode CANCEL_GRACE_MS}.
   * @param update Receives progress updates.
   * @returns The result and whether it is an error.
   */
  async call(
    tool: string,
    toolCallId: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    update?: (partial: ToolResult) => void,
  ): Promise<SandboxCallResult> {
    const live = this.#readyNow() ?? await this.#ready();
    if (typeof live === "string") return failure(`Tool ${tool} failed: ${live}`);
    if (live === undefined) {
      return failure(`Tool ${tool} failed: the sandbox of plugin "${this.#label}" stopped`);
    }
    const id = this.#nextId++;
    const outcome = new Promise<SandboxCallResult>((resolve) => {
      live.pending.set(id, { tool, resolve, update });
    });
    const onAbort = () => {
      const pending = live.pending.get(id);
      if (pending === undefined) return;
      live.pending.delete(id);
      live.cancelled.add(id);
      live.child.send({ type: "cancel", id });
      setTimeout(() => {
        if (live.cancelled.has(id)) {
          live.fault ??= `was stopped because a call to ${tool} did not stop when cancelled`;
          this.#stop(live);
        }
      }, CANCEL_GRACE_MS);
      pending.resolve(failure(`Tool ${tool} was aborted`));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    live.child.send({ type: "call", id, tool, toolCallId, args });
    try {
      return await outcome;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Runs one of the plugin's hooks in the sandbox.
   *
   * @param hook Which hook.
   * @param context The hook's context, as JSON but for `context.messages` and
   * `context.tools` (the tools themselves): of those, only what the child has not seen
   * crosses, the tools as specs.
   * @param timeoutMs How long the hook may take once the sandbox is ready (the host's
   * bound, whatever the agent's `hookTimeoutMs`); past it the child is killed (it restarts
   * for the next call) and the hook fails. Waiting for a (re)start is not counted.
   * @returns What the hook returned.
   * @throws {Error} When the hook threw, timed out, or the sandbox failed (the dispatcher
   * fails closed).
   */
  async hook(
    hook: ProxiedHook,
    context: Record<string, unknown>,
    timeoutMs = Infinity,
  ): Promise<unknown> {
    try {
      return await this.#hookOnce(hook, context, timeoutMs);
    } catch (error) {
      // A hook that met a dying sandbox (killed for a runaway call, crashed) runs again,
      // once, in a fresh one: the fault was not the hook's.
      if (!(error instanceof SandboxFault)) throw error;
      return await this.#hookOnce(hook, context, timeoutMs);
    }
  }

  async #hookOnce(
    hook: ProxiedHook,
    context: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<unknown> {
    const live = this.#readyNow() ?? await this.#ready();
    if (typeof live === "string") throw new Error(live);
    const id = this.#nextId++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answer = new Promise<unknown>((resolve, reject) => {
      live.hooks.set(id, { resolve, reject });
      if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => {
          live.hooks.delete(id);
          const why = `its ${hook} hook did not answer within ${timeoutMs} ms`;
          live.fault ??= `was stopped because ${why}`;
          this.#stop(live);
          reject(new Error(`${why}; its sandbox was stopped and restarts for the next call`));
        }, timeoutMs);
      }
    });
    // The transcript and the tools travel as deltas against what this child has already
    // seen (the tools as specs).
    const inner = context.context as { messages?: unknown; tools?: unknown } | undefined;
    if (Array.isArray(inner?.messages) || Array.isArray(inner?.tools)) {
      const { messages, tools, ...rest } = inner!;
      const toolsDelta = Array.isArray(tools) ? live.toolsCursor.delta(tools) : undefined;
      live.child.send({
        type: "hook",
        id,
        hook,
        context: { ...context, context: rest },
        transcript: Array.isArray(messages) ? live.cursor.delta(messages) : undefined,
        tools: toolsDelta &&
          { from: toolsDelta.from, append: (toolsDelta.append as AgentTool[]).map(toolSpec) },
      });
    } else live.child.send({ type: "hook", id, hook, context });
    try {
      return await answer;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops the child for good and waits until it is gone. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    if (this.#live !== undefined) {
      this.#live.fault ??= "was disposed";
      this.#live.child.kill();
    }
    while (this.#stopping.size > 0) await Promise.all([...this.#stopping]);
  }
}
