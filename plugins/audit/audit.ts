/**
 * `audit()`: a JSONL intent line before each tool call runs and an end line after it,
 * written synchronously.
 *
 * @module
 */

import { dirname, resolve } from "node:path";
import {
  type AgentEvent,
  type AgentTool,
  canonicalJson,
  definePlugin,
  type Plugin,
  type ToolResult,
} from "@tack/agent";
import { hostMay } from "../../sdk/sandbox/host_may.ts";
import { makePrivateDir, openPrivateForAppend } from "../../sdk/private_files.ts";
import { appendJsonlSync } from "./append_jsonl_sync.ts";
import { endPartialLineSync } from "./end_partial_line.ts";
import type { AuditEntry, AuditIntent, AuditOutcome } from "./audit_entry.ts";
import { truncateStrings } from "./truncate_strings.ts";
import { thrownText } from "../../core/thrown_text.ts";

/** Options of {@linkcode audit}. */
export interface AuditOptions {
  /** The JSONL file to append to (created with its directory if missing). */
  path: string;
  /** Strings in arguments longer than this are cut in the log (default 4096). */
  maxStringChars?: number;
  /** Flush each line to disk (survives power loss, not just a crash; default `false`). */
  fsync?: boolean;
  /**
   * Who approved a call, for its intent line (`approvedBy`): e.g. `confirmPlugin.approvalOf`.
   * Asked when the intent line is written, after every `beforeToolCall`.
   */
  approvedBy?: (toolCallId: string) => string | undefined;
}

/** The audit plugin, with where it writes. */
export interface AuditPlugin extends Plugin {
  /** The log's absolute path. */
  readonly path: string;
  /** Why the last write failed, or `undefined` while writes succeed. */
  readonly failure: string | undefined;
  /** Who approved a call (see `AuditOptions.approvedBy`); settable once the approver exists. */
  approvedBy: ((toolCallId: string) => string | undefined) | undefined;
}

type ToolExecutionEnd = Extract<AgentEvent, { type: "tool_execution_end" }>;

interface CallState {
  started: number;
  modelArgs: Record<string, unknown>;
  /**
   * The arguments its intent line logged (bounded): what the end line says it ran with. The
   * tool and `afterToolCall` hooks get the arguments object itself and may change it in
   * place; the log must not then say it ran with something else.
   */
  logged?: unknown;
}

function textOf(result: ToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`))
    .join("");
}

function messageOf(error: unknown): string {
  return thrownText(error);
}

/**
 * The text of a call blocked because the log cannot be written.
 *
 * @param path The log's path.
 * @param failure Why writing failed.
 * @returns The block text.
 *
 * @example
 * ```ts
 * import { auditFailureMessage } from "@tack/agent/plugins/audit";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   auditFailureMessage("/log.jsonl", "disk full"),
 *   'Blocked by plugin "audit": cannot write the audit log /log.jsonl (disk full), so no tool may run',
 * );
 * ```
 */
export function auditFailureMessage(path: string, failure: string): string {
  return `Blocked by plugin "audit": cannot write the audit log ${path} (${failure}), so no tool may run`;
}

/**
 * A plugin that appends JSON lines to a file. Before a call runs (in its
 * `verifyToolCall`, after every `beforeToolCall` hook let the call through), an intent
 * line (`phase: "intent"`): time, call id, tool, owning plugin, the arguments it will run
 * with. When the call ends, an end line (`phase: "end"`): the arguments it ran with (and
 * the model's, when a hook or coercion changed them), outcome (`ok`, `error`, `blocked`),
 * error text, duration, which plugin blocked the call and which rewrote its arguments.
 * Who blocked and who rewrote come from the loop's `tool_execution_end` event, so they are
 * right for any plugin (third-party ones included) and for the agent's own hooks
 * (`"createAgent"`). Lines are written synchronously, so a crash or kill while a call
 * runs leaves at least its intent line. Calls that never reach a hook (unknown tool,
 * invalid arguments) get an end line too. Arguments of any shape are logged bounded
 * (see `truncateStrings`), never thrown on.
 *
 * If the log cannot be written, the failure is reported on stderr and every further call
 * is blocked (fail closed); a call whose intent line cannot be written does not run. Put it first among the plugins, so that block comes before
 * any other plugin acts (confirm would otherwise ask the user about a call that cannot
 * run).
 *
 * @param options The log's path and limits.
 * @returns The plugin, named `"audit"`, declaring write permission for the log.
 * @throws {TypeError} When `path` is missing or `maxStringChars` is not a positive integer.
 * @throws {Error} When the log cannot be opened for appending
 * (`Cannot create audit plugin: cannot open <path> for appending: <why>`).
 *
 * @example Logging a call
 * ```ts
 * import { createAgent, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
 * import { audit } from "@tack/agent/plugins/audit";
 * import { equal } from "node:assert/strict";
 *
 * const dir = Deno.makeTempDirSync();
 * const ping = defineTool({
 *   name: "ping", description: "Pings", parameters: { type: "object" } as const,
 *   execute: () => ({ content: [{ type: "text", text: "pong" }] }),
 * });
 * const log = audit({ path: `${dir}/audit.jsonl` });
 * const agent = createAgent({
 *   model: scriptedModel([[toolCall("ping", {}, "c1")], [text("done")]]),
 *   tools: [ping],
 *   plugins: [log],
 * });
 * await agent.prompt("ping");
 * const [intent, end] = Deno.readTextFileSync(log.path).trim().split("\n").map((l) => JSON.parse(l));
 * equal(`${intent.phase} ${intent.tool} ${intent.toolCallId}`, "intent ping c1");
 * equal(`${end.phase} ${end.tool} ${end.toolCallId} ${end.outcome}`, "end ping c1 ok");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function audit(options: AuditOptions): AuditPlugin {
  if (typeof options?.path !== "string" || options.path === "") {
    throw new TypeError("Cannot create audit plugin: path must be a non-empty string");
  }
  const maxStringChars = options.maxStringChars ?? 4096;
  if (!Number.isInteger(maxStringChars) || maxStringChars < 1) {
    throw new TypeError(
      `Cannot create audit plugin: maxStringChars must be a positive integer, got ${
        JSON.stringify(options.maxStringChars)
      }`,
    );
  }
  const path = resolve(options.path);
  const fsync = options.fsync === true;
  // Asked first: a host on a terminal is never prompted, for the log or for its folder (a
  // host granting just the log, as the plugin declares, has the folder already).
  if (!hostMay({ name: "write", path })) {
    throw new Error(
      `Cannot create audit plugin: cannot open ${path} for appending: this process may not ` +
        `write it; add --allow-write=${path} to the host's flags`,
    );
  }
  try {
    if (hostMay({ name: "write", path: dirname(path) })) {
      makePrivateDir(dirname(path));
    }
    openPrivateForAppend(path).close();
    // A line a crash or a full disk cut short is ended, so the first line this session
    // writes is not glued to it (both would be unreadable). Skipped when the host may
    // only write the log.
    if (hostMay({ name: "read", path })) endPartialLineSync(path);
  } catch (error) {
    throw new Error(
      `Cannot create audit plugin: cannot open ${path} for appending: ${messageOf(error)}`,
      { cause: error },
    );
  }

  const calls = new Map<string, CallState>();
  const owners = new Map<string, string | undefined>();
  let knownTools: readonly AgentTool[] | undefined;
  let failure: string | undefined;

  /** Appends a line; on failure records why (every further call is blocked) and says so. */
  const write = (build: () => AuditEntry | AuditIntent): boolean => {
    try {
      appendJsonlSync(path, build(), fsync);
      return true;
    } catch (error) {
      failure = messageOf(error);
      console.error(`Tack audit: cannot write ${path}: ${failure}; further tool calls are blocked`);
      return false;
    }
  };

  // Every text a line holds is cut, the model's names and ids too (a 5 MB tool name or
  // call id made a 5 MB line).
  const cut = (text: string) => truncateStrings(text, maxStringChars) as string;

  const intent = (toolCallId: string, tool: AgentTool, args: unknown): AuditIntent => {
    const line: AuditIntent = {
      phase: "intent",
      time: new Date().toISOString(),
      toolCallId: cut(toolCallId),
      tool: cut(tool.name),
      args: truncateStrings(args, maxStringChars),
    };
    const owner = tool.plugin ?? owners.get(tool.name);
    if (owner !== undefined) line.plugin = owner;
    const approval = plugin.approvedBy?.(toolCallId);
    if (typeof approval === "string") {
      line.approvedBy = cut(approval);
    }
    const modelArgs = calls.get(toolCallId)?.modelArgs;
    if (modelArgs !== undefined && modelArgs !== args) {
      const original = truncateStrings(modelArgs, maxStringChars);
      if (JSON.stringify(original) !== JSON.stringify(line.args)) line.originalArgs = original;
    }
    return line;
  };

  const finish = (event: ToolExecutionEnd): AuditEntry => {
    const state = calls.get(event.toolCallId);
    calls.delete(event.toolCallId);
    const error = event.isError ? textOf(event.result) : undefined;
    let outcome: AuditOutcome;
    if (!event.isError) outcome = "ok";
    else if (event.blockedBy !== undefined) outcome = "blocked";
    else outcome = "error";
    const modelArgs = state?.modelArgs ?? event.args ?? {};
    const args = event.args ?? modelArgs;
    const entry: AuditEntry = {
      phase: "end",
      time: new Date().toISOString(),
      toolCallId: cut(event.toolCallId),
      tool: cut(event.toolName),
      // It ran: what its intent line logged. It did not (a later verifyToolCall blocked
      // it): the model's arguments.
      args: event.args !== undefined && state?.logged !== undefined
        ? state.logged
        : truncateStrings(args, maxStringChars),
      outcome,
      durationMs: state ? Math.round((performance.now() - state.started) * 10) / 10 : 0,
    };
    const owner = owners.get(event.toolName);
    if (owner !== undefined) entry.plugin = owner;
    if (args !== modelArgs) {
      const original = truncateStrings(modelArgs, maxStringChars);
      if (canonicalJson(original) !== canonicalJson(entry.args)) entry.originalArgs = original;
    }
    if (error !== undefined) entry.error = cut(error);
    if (event.blockedBy !== undefined) entry.blockedBy = cut(event.blockedBy);
    if (event.rewrittenBy?.length) entry.rewrittenBy = event.rewrittenBy.map(cut);
    return entry;
  };

  const plugin: AuditPlugin = {
    name: "audit",
    description: "Appends every tool call to a JSONL file",
    permissions: { write: [path] },
    path,
    get failure(): string | undefined {
      return failure;
    },
    approvedBy: options.approvedBy,
    onEvent(event) {
      switch (event.type) {
        case "tool_execution_start":
          calls.set(event.toolCallId, { started: performance.now(), modelArgs: event.args });
          break;
        case "tool_execution_end":
          write(() => finish(event));
          break;
        case "agent_end":
          calls.clear();
      }
    },
    beforeToolCall: function auditBeforeToolCall({ context }) {
      if (context.tools !== knownTools) {
        knownTools = context.tools;
        for (const tool of knownTools) owners.set(tool.name, tool.plugin);
      }
      if (failure !== undefined) return { block: true, reason: auditFailureMessage(path, failure) };
      return undefined;
    },
    verifyToolCall: function auditVerifyToolCall({ toolCall, tool, args, deferred }) {
      // The intent line: written before the call runs, or the call does not run. A deferred
      // call does not run now: its line says so instead.
      const line = () => {
        const built = intent(toolCall.id, tool, args);
        if (deferred === undefined) {
          const state = calls.get(toolCall.id);
          if (state) state.logged = built.args;
          return built;
        }
        const { phase: _intent, approvedBy: _notYet, ...rest } = built;
        return { phase: "deferred" as const, ...rest, reason: deferred.reason };
      };
      if (failure === undefined && write(line)) return undefined;
      return { block: true, reason: auditFailureMessage(path, failure ?? "unknown") };
    },
  };
  return definePlugin(plugin);
}
