/**
 * `confirm()`: asks the user before calls that write or execute (or match an `ask` rule),
 * binding each approval to the call id and a hash of its final arguments.
 *
 * @module
 */

import { type AgentTool, definePlugin, type ToolCall } from "@tack/agent";
import {
  type CompiledRule,
  compileRules,
  evaluateRules,
  isShellArgument,
  parseShell,
  ruleBlockMessage,
} from "../rules/mod.ts";
import type {
  ConfirmAnswer,
  ConfirmOptions,
  ConfirmPlugin,
  ConfirmRequest,
} from "./confirm_types.ts";
import { hashArguments } from "./hash_arguments.ts";
import { thrownText } from "../../core/thrown_text.ts";

/**
 * The block text when the user says no.
 *
 * @param toolName The declined tool.
 * @returns `The user declined to run <tool>`.
 *
 * @example
 * ```ts
 * import { declinedMessage } from "@tack/agent/plugins/confirm";
 * import { equal } from "node:assert/strict";
 *
 * equal(declinedMessage("bash"), "The user declined to run bash");
 * ```
 */
export function declinedMessage(toolName: string): string {
  return `The user declined to run ${toolName}`;
}

/**
 * The block text when confirmation is needed and nobody can be asked.
 *
 * @param toolName The tool.
 * @param reason Why it needed confirmation.
 * @returns The block text.
 *
 * @example
 * ```ts
 * import { nonInteractiveMessage } from "@tack/agent/plugins/confirm";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   nonInteractiveMessage("bash", "bash has effect exec"),
 *   'Tool bash needs the user\'s confirmation (bash has effect exec), but no one can be asked ' +
 *     '(non-interactive), and whenNonInteractive is "deny"',
 * );
 * ```
 */
export function nonInteractiveMessage(toolName: string, reason: string): string {
  return `Tool ${toolName} needs the user's confirmation (${reason}), but no one can be asked ` +
    `(non-interactive), and whenNonInteractive is "deny"`;
}

/**
 * The text when a call's arguments changed after confirm checked them.
 *
 * @param toolName The tool.
 * @returns The text.
 *
 * @example
 * ```ts
 * import { argumentsChangedMessage } from "@tack/agent/plugins/confirm";
 * import { match } from "node:assert/strict";
 *
 * match(argumentsChangedMessage("bash"), /^Tool bash: its arguments changed after confirm/);
 * ```
 */
export function argumentsChangedMessage(toolName: string): string {
  return `Tool ${toolName}: its arguments changed after confirm checked them (a hook placed ` +
    `after confirm rewrote them), so the approval does not cover them. Put confirm last among ` +
    `the plugins.`;
}

const ASKED_EFFECTS = ["write", "exec"] as const;

interface Approval {
  hash: string;
  toolName: string;
  /** Who or what let the call through (see `ConfirmPlugin.approvalOf`). */
  by?: string;
}

/** How a call passed that nobody was asked about: an allow rule, or no effect that asks. */
function passedWithout(why: { decision: string; ruleName?: string } | undefined): string {
  return why?.ruleName === undefined ? "no approval needed" : `rule "${why.ruleName}"`;
}

interface Block {
  block: true;
  reason: string;
}

interface AskReason {
  decision: "allow" | "deny" | "ask";
  reason: string;
  key: string;
  message: string;
  /** What "always" covers, in words. */
  always: string;
  /** The parts of a shell command no allow rule approves. */
  flagged?: string[];
  /** The rule that decided, if one did. */
  ruleName?: string;
}

/**
 * For a shell command: what "always" is scoped to (the command in mvdan/sh's normal form,
 * or as given when it cannot be read), and the parts no allow rule approves.
 */
function shellScope(
  rules: readonly CompiledRule[],
  tool: AgentTool,
  args: Record<string, unknown>,
): { command: string; flagged: string[] } | undefined {
  const command = args.command;
  if (typeof command !== "string") return undefined;
  if (!isShellArgument({ toolName: tool.name, effects: tool.effects }, "command")) return undefined;
  const parsed = parseShell(command);
  // Unreadable, or code built at run time: "always" covers these exact bytes only (two
  // texts with one normal form may run differently, e.g. after a comment ending in `\`).
  if (parsed.kind === "error" || parsed.evaluates !== undefined) {
    return { command, flagged: [command] };
  }
  const flagged = parsed.parts.filter((part) =>
    evaluateRules(rules, {
      toolName: tool.name,
      effects: tool.effects,
      args: { ...args, command: part.text },
    })?.action !== "allow"
  ).map((part) => part.text);
  return { command: parsed.normalized, flagged };
}

function messageOf(error: unknown): string {
  return thrownText(error);
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | "aborted"> {
  if (signal.aborted) return Promise.resolve("aborted");
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * A policy plugin that asks the user before a call runs. Asked about: calls matching an
 * `ask` rule and, when no rule matches, every tool declaring a `write` or `exec` effect.
 * `allow` rules exempt calls; `deny` rules block them (`Blocked by rule "…" (…)`).
 *
 * - "yes" runs that one call; "no" blocks it with `The user declined to run <tool>`;
 *   "always" runs it and every later call of that tool asked about for the same reason,
 *   for the plugin instance's lifetime (the session); for a shell command (`command` of
 *   an `exec` tool), only that exact command, in mvdan/sh's normal form.
 * - Without `ask` (CI), `whenNonInteractive` decides: `"deny"` (default) blocks with a
 *   reason saying no one could be asked, so a run never hangs waiting; `"defer"` defers the
 *   call (`{ defer: true }`): the run stops, `agent.pending` lists it, and a person decides
 *   later, in this process or another (`agent.resume`, `resumeAgent`). Its `key` is the
 *   reason it was asked about, so "always" with `always: "key"` covers that reason only.
 * - Each decision is bound to the call id and a SHA-256 of the arguments confirm saw.
 *   Put confirm **last** among the plugins, so the user is asked about the final
 *   arguments. Its `verifyToolCall` runs in the core's last, block-only stage (after every
 *   `beforeToolCall`, the agent's own included, and after the arguments were validated
 *   again), on exactly the arguments the tool would get: if a later hook changed them,
 *   the call is blocked before it runs unless the changed arguments need no approval
 *   either (no `ask` or `deny` rule and no `write`/`exec` effect, or answered "always").
 *   No extra wiring is needed: `plugins: [..., confirm()]` is enough.
 * - Asks are one at a time; an abort while asking blocks the call.
 *
 * @param options Rules, the ask function, and what to do without one.
 * @returns The plugin, named `"confirm"`, with `alwaysAllowed`.
 * @throws {TypeError} When a rule or `whenNonInteractive` is malformed.
 *
 * @example In CI nothing that writes runs unasked
 * ```ts
 * import { createAgent, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
 * import { confirm } from "@tack/agent/plugins/confirm";
 * import { equal } from "node:assert/strict";
 *
 * const write = defineTool({
 *   name: "write", description: "Writes a file", effects: ["write"],
 *   parameters: { type: "object" } as const,
 *   execute: () => ({ content: [{ type: "text", text: "written" }] }),
 * });
 * const agent = createAgent({
 *   model: scriptedModel([[toolCall("write", {})], [text("ok")]]),
 *   tools: [write],
 *   plugins: [confirm({ ask: () => Promise.resolve("no") })],
 * });
 * const [, , result] = await agent.prompt("write it");
 * equal(
 *   result.role === "toolResult" && result.content[0].type === "text" && result.content[0].text,
 *   "The user declined to run write",
 * );
 * ```
 */
export function confirm(options: ConfirmOptions = {}): ConfirmPlugin {
  const rules = compileRules(options.rules, "confirm plugin");
  const whenNonInteractive = options.whenNonInteractive ?? "deny";
  if (
    whenNonInteractive !== "allow" && whenNonInteractive !== "deny" &&
    whenNonInteractive !== "defer"
  ) {
    throw new TypeError(
      `Cannot create confirm plugin: whenNonInteractive must be "allow", "deny" or "defer", got ${
        JSON.stringify(whenNonInteractive)
      }`,
    );
  }
  if (options.ask !== undefined && typeof options.ask !== "function") {
    throw new TypeError("Cannot create confirm plugin: ask must be a function");
  }
  const ask = options.ask;
  const approvals = new Map<string, Approval>();
  const always = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();

  const block = (toolCall: ToolCall, reason: string): Block => {
    approvals.delete(toolCall.id);
    return { block: true, reason };
  };

  const whyAsk = (tool: AgentTool, args: Record<string, unknown>): AskReason | undefined => {
    const decision = evaluateRules(rules, { toolName: tool.name, effects: tool.effects, args });
    if (decision && decision.action !== "ask") {
      return {
        decision: decision.action,
        reason: "",
        key: "",
        message: ruleBlockMessage(decision.rule),
        always: "",
        ruleName: decision.rule.rule.name,
      };
    }
    let reason: string;
    let key: string;
    if (decision) {
      reason = `rule "${decision.rule.rule.name}" (${decision.rule.description})`;
      key = `${tool.name} for rule "${decision.rule.rule.name}"`;
    } else {
      const effects = (tool.effects ?? []).filter((e) =>
        (ASKED_EFFECTS as readonly string[]).includes(e)
      );
      if (effects.length === 0) return undefined;
      reason = `${tool.name} has effect ${effects.join(" and ")}`;
      key = `${tool.name} for effects`;
    }
    // "Always" for a shell command covers that exact command (normalized), nothing more.
    const scope = shellScope(rules, tool, args);
    if (scope) key += `: ${scope.command}`;
    return {
      decision: "ask",
      reason,
      key,
      message: "",
      always: scope
        ? `exactly this ${tool.name} command`
        : `every ${tool.name} call asked for this reason`,
      flagged: scope?.flagged,
    };
  };

  const askUser = (request: ConfirmRequest, signal: AbortSignal) => {
    const turn = queue.then(() => abortable(ask!(request), signal));
    queue = turn.catch(() => undefined);
    return turn;
  };

  const plugin: ConfirmPlugin = {
    name: "confirm",
    description: "Asks the user before tool calls that write or execute",
    permissions: {},
    // A person's time at the prompt is not a hook's time: its wait is unbounded (the
    // run's abort ends it), while every other plugin's hooks stay bounded.
    hookTimeoutMs: ask ? Infinity : undefined,
    get alwaysAllowed(): readonly string[] {
      return [...always];
    },
    approvalOf: (toolCallId) => approvals.get(toolCallId)?.by,
    onEvent(event) {
      if (event.type === "tool_execution_end" || event.type === "tool_execution_deferred") {
        approvals.delete(event.toolCallId);
      }
    },
    beforeToolCall: async function confirmBeforeToolCall({ toolCall, tool, args }, signal) {
      const hash = await hashArguments(args);
      const approval: Approval = { hash, toolName: tool.name };
      approvals.set(toolCall.id, approval);
      const why = whyAsk(tool, args);
      if (!why || why.decision === "allow") {
        approval.by = passedWithout(why);
        return undefined;
      }
      if (why.decision === "deny") return block(toolCall, why.message);
      if (always.has(why.key)) {
        approval.by = `an earlier "always" (${why.key})`;
        return undefined;
      }
      if (!ask) {
        if (whenNonInteractive === "allow") approval.by = "whenNonInteractive: allow";
        if (whenNonInteractive === "defer") {
          return {
            defer: true,
            reason: `${tool.name} needs approval: ${why.reason}`,
            key: why.key,
          };
        }
        return whenNonInteractive === "allow"
          ? undefined
          : block(toolCall, nonInteractiveMessage(tool.name, why.reason));
      }
      let answer: ConfirmAnswer | "aborted";
      try {
        answer = await askUser(
          {
            toolName: tool.name,
            args: structuredClone(args),
            reason: why.reason,
            toolCallId: toolCall.id,
            always: why.always,
            plugin: "confirm",
            ...(why.flagged ? { flagged: why.flagged } : {}),
          },
          signal,
        );
      } catch (error) {
        return block(
          toolCall,
          `Tool ${tool.name} was not run: asking the user failed: ${messageOf(error)}`,
        );
      }
      if (answer === "aborted") {
        return block(
          toolCall,
          `Tool ${tool.name} was not run: the run was aborted while asking the user`,
        );
      }
      if (answer === "always") {
        always.add(why.key);
        approval.by = `the user, always (${why.key})`;
      } else if (answer === "yes") approval.by = "the user";
      else if (answer === "no") return block(toolCall, declinedMessage(tool.name));
      else if (answer !== "yes") {
        return block(
          toolCall,
          `Tool ${tool.name} was not run: the ask function answered ${
            JSON.stringify(answer)
          }; expected "yes", "no" or "always"`,
        );
      }
      return undefined;
    },
    verifyToolCall: async function confirmVerifyToolCall({ toolCall, tool, args }) {
      const approval = approvals.get(toolCall.id);
      if (!approval) {
        return block(
          toolCall,
          `Tool ${tool.name} was not run: confirm has no record of checking this call`,
        );
      }
      if (approval.toolName === tool.name && approval.hash === await hashArguments(args)) {
        return undefined;
      }
      // Changed after confirm judged them: they pass only if they need no one's approval.
      const why = whyAsk(tool, args);
      if (!why || why.decision === "allow") {
        approval.by = `${passedWithout(why)}, for the arguments as changed after confirm asked`;
        return undefined;
      }
      if (why.decision === "deny") return block(toolCall, why.message);
      if (always.has(why.key)) {
        approval.by = `an earlier "always" (${why.key})`;
        return undefined;
      }
      if (!ask && whenNonInteractive === "allow") {
        approval.by = "whenNonInteractive: allow";
        return undefined;
      }
      return block(toolCall, `${argumentsChangedMessage(tool.name)} It was not run.`);
    },
  };
  return definePlugin(plugin);
}
