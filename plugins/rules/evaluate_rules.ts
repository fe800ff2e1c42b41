/**
 * Which rule decides a call: deny before ask before allow.
 *
 * @module
 */

import type { ToolEffect } from "@tack/agent";
import type { CompiledArgPattern, CompiledRule, RuleAction } from "./rule.ts";
import { isShellArgument, matchesShellArgument } from "./match_shell_argument.ts";
import { parseShell, type ShellParse } from "./parse_shell.ts";

/** The parts of a call rules look at. */
export interface RuleSubject {
  /** The tool's name. */
  toolName: string;
  /** The tool's declared effects. */
  effects?: readonly ToolEffect[];
  /** The call's arguments. */
  args: Record<string, unknown>;
}

/** The rule that decides a call, and what it says. */
export interface RuleDecision {
  /** What the deciding rule says. */
  action: RuleAction;
  /** The deciding rule. */
  rule: CompiledRule;
}

/**
 * Normalizes a path the way rules read it: `\` kept as is, `//` and `./` collapsed, `..`
 * resolved (a leading `..` that cannot be resolved is kept).
 *
 * @param path The argument's value.
 * @returns The normalized path (`.` for an empty one).
 *
 * @example Sneaky spellings of the same path
 * ```ts
 * import { normalizeRulePath } from "@tack/agent/plugins/rules";
 * import { equal } from "node:assert/strict";
 *
 * equal(normalizeRulePath("./src/../.git//config"), ".git/config");
 * ```
 */
export function normalizeRulePath(path: string): string {
  const absolute = path.startsWith("/");
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else if (segment !== ".." || !absolute) out.push(segment);
  }
  const joined = out.join("/");
  return absolute ? `/${joined}` : joined === "" ? "." : joined;
}

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? "";
}

function matchesGlob(pattern: RegExp, value: string): boolean {
  const path = normalizeRulePath(value);
  if (pattern.test(path)) return true;
  for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
    if (pattern.test(path.slice(i + 1))) return true;
  }
  return false;
}

type Parsed = (source: string) => ShellParse;

function matchesArg(
  arg: CompiledArgPattern,
  action: RuleAction,
  subject: RuleSubject,
  parsed: Parsed,
): boolean {
  const value = subject.args[arg.name];
  if (value === undefined || value === null) return false;
  const text = asText(value);
  if (arg.kind === "glob") return matchesGlob(arg.pattern, text);
  if (arg.kind === "shell" || isShellArgument(subject, arg.name)) {
    return matchesShellArgument(arg, action, text, parsed(text));
  }
  arg.pattern.lastIndex = 0;
  return arg.pattern.test(text);
}

function matches(rule: CompiledRule, subject: RuleSubject, parsed: Parsed): boolean {
  if (rule.tools && !rule.tools.some((glob) => glob.test(subject.toolName))) return false;
  if (rule.effects && !subject.effects?.some((effect) => rule.effects!.has(effect))) return false;
  for (const arg of rule.args) {
    if (!matchesArg(arg, rule.rule.action, subject, parsed)) return false;
  }
  return true;
}

const RANK: Record<RuleAction, number> = { deny: 0, ask: 1, allow: 2 };

/**
 * Finds the rule that decides a call. Every matching rule is considered; a `deny` wins
 * over an `ask`, which wins over an `allow`; among equals the first given wins. So a
 * catch-all `allow` never overrides a narrower `deny`. A shell command argument is
 * parsed (once) and read part by part: see `matchesShellArgument`.
 *
 * @param rules Compiled rules (see `compileRules`).
 * @param subject The tool's name and effects, and the call's arguments.
 * @returns The deciding rule and its action, or `undefined` when no rule matches.
 *
 * @example A deny beats an earlier allow
 * ```ts
 * import { compileRules, evaluateRules } from "@tack/agent/plugins/rules";
 * import { equal } from "node:assert/strict";
 *
 * const rules = compileRules([
 *   { name: "shell-ok", action: "allow", tool: "bash" },
 *   { name: "no-rm-rf", action: "deny", tool: "bash", args: { command: { regex: "rm -rf" } } },
 * ]);
 * const decision = evaluateRules(rules, { toolName: "bash", args: { command: "rm -rf /" } });
 * equal(decision?.rule.rule.name, "no-rm-rf");
 * ```
 */
export function evaluateRules(
  rules: readonly CompiledRule[],
  subject: RuleSubject,
): RuleDecision | undefined {
  let best: CompiledRule | undefined;
  const cache = new Map<string, ShellParse>();
  const parsed = (source: string) => {
    let result = cache.get(source);
    if (!result) cache.set(source, result = parseShell(source));
    return result;
  };
  for (const rule of rules) {
    if (best && RANK[rule.rule.action] >= RANK[best.rule.action]) continue;
    if (!matches(rule, subject, parsed)) continue;
    best = rule;
    if (rule.rule.action === "deny") break;
  }
  return best && { action: best.rule.action, rule: best };
}

/**
 * The text the model reads when a rule blocks its call.
 *
 * @param rule The rule that fired.
 * @returns `Blocked by rule "<name>" (<description>)`, then `: <reason>` when it has one.
 *
 * @example
 * ```ts
 * import { compileRules, ruleBlockMessage } from "@tack/agent/plugins/rules";
 * import { equal } from "node:assert/strict";
 *
 * const [rule] = compileRules([
 *   { name: "no-rm-rf", action: "deny", tool: "bash", args: { command: { regex: "rm -rf" } } },
 * ]);
 * equal(ruleBlockMessage(rule), 'Blocked by rule "no-rm-rf" (deny bash command matching /rm -rf/)');
 * ```
 */
export function ruleBlockMessage(rule: CompiledRule): string {
  const base = `Blocked by rule "${rule.rule.name}" (${rule.description})`;
  return rule.rule.reason ? `${base}: ${rule.rule.reason}` : base;
}
