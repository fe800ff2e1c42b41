/**
 * Policy rules: allow, deny or ask about tool calls by tool name (glob), declared effect
 * and argument patterns (regex or path glob). `rules()` enforces `deny`; `confirm` reads
 * the same rules to decide what to ask.
 *
 * @example Rules from plain JSON
 * ```ts
 * import { rules } from "@tack/agent/plugins/rules";
 * import { equal } from "node:assert/strict";
 *
 * const plugin = rules({
 *   rules: [{ name: "no-env", action: "deny", effect: "write", args: { path: { glob: ".env" } } }],
 * });
 * equal(plugin.name, "rules");
 * ```
 *
 * @module
 */

export { defaultDenyMessage, rules, type RulesOptions } from "./rules.ts";
export {
  type ArgPattern,
  type CompiledArgPattern,
  type CompiledRule,
  compileRules,
  type Rule,
  type RuleAction,
} from "./rule.ts";
export {
  evaluateRules,
  normalizeRulePath,
  ruleBlockMessage,
  type RuleDecision,
  type RuleSubject,
} from "./evaluate_rules.ts";
export { globToRegExp } from "./glob_to_regexp.ts";
export { parseShell, quoteShellWord, type ShellParse, type ShellPart } from "./parse_shell.ts";
export {
  compileShellPattern,
  matchesShellPattern,
  shellPartViews,
  type ShellPattern,
} from "./shell_pattern.ts";
export { isShellArgument, matchesShellArgument } from "./match_shell_argument.ts";
export { rules as default } from "./rules.ts";
