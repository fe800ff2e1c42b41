/**
 * What `confirm` asks and what it may be answered.
 *
 * @module
 */

import type { Plugin, VerifyToolCallHook } from "@tack/agent";
import type { Rule } from "../rules/mod.ts";

/** The user's answer: run it, do not, or run this tool without asking for the session. */
export type ConfirmAnswer = "yes" | "no" | "always";

/** What the user is asked about: the final arguments, and why confirmation is needed. */
export interface ConfirmRequest {
  /** The tool to run. */
  toolName: string;
  /** The final arguments (a copy): exactly what runs if the answer is yes. */
  args: Record<string, unknown>;
  /** Why it asks: `rule "push" (ask bash command matching /git push/)` or `bash has effect exec`. */
  reason: string;
  /** The call's id; the approval is bound to it. */
  toolCallId: string;
  /** What answering "always" covers: `exactly this bash command`, or `every write call asked for this reason`. */
  always?: string;
  /** For a shell command: its parts that no allow rule approves (show them highlighted). */
  flagged?: readonly string[];
  /** The plugin asking (`"confirm"`). */
  plugin?: string;
}

/** Asks the user; must resolve (a rejection blocks the call). */
export type AskFunction = (request: ConfirmRequest) => Promise<ConfirmAnswer>;

/** Options of `confirm`. */
export interface ConfirmOptions {
  /** `ask` rules say what to ask about, `allow` rules exempt calls, `deny` rules block. */
  rules?: readonly Rule[];
  /** How to ask; without it the agent is non-interactive and `whenNonInteractive` decides. */
  ask?: AskFunction;
  /**
   * Without `ask`: `"deny"` (the default) blocks calls needing confirmation, `"allow"` runs
   * them, `"defer"` stops the run with them pending until a person decides (`agent.resume`).
   */
  whenNonInteractive?: "allow" | "deny" | "defer";
}

/** The confirm plugin, with its final check. */
export interface ConfirmPlugin extends Plugin {
  /**
   * The final check, run by the core after every `beforeToolCall` (the agent's own
   * included) on exactly the arguments the tool will get: the call passes when they are
   * the ones confirm judged (same call id, same SHA-256), or when they need no approval
   * either; otherwise it is blocked before it runs.
   *
   * Contract: never rewrites, never throws; blocks when there is no matching approval.
   */
  readonly verifyToolCall: VerifyToolCallHook;
  /**
   * What was answered "always" this session: `bash for effects: git status`,
   * `write for effects`, `bash for rule "ask-push": git push`.
   */
  readonly alwaysAllowed: readonly string[];
  /**
   * Who or what let a call through, while it runs (until its `tool_execution_end`):
   * `the user`, `the user, always (<key>)`, `an earlier "always" (<key>)`, `rule "<name>"`
   * (an allow rule), `no approval needed` (nothing about it asks), or
   * `whenNonInteractive: allow`. `undefined` for a call confirm blocked or never saw.
   * Give it to `audit({ approvedBy })` to log it.
   *
   * @param toolCallId The call's id.
   * @returns The approval, in words.
   */
  approvalOf(toolCallId: string): string | undefined;
}
