/**
 * `rules()`: allow and deny calls by tool name, effect and argument patterns.
 *
 * @module
 */

import { definePlugin, type Plugin, type ToolEffect } from "@tack/agent";
import { evaluateRules, ruleBlockMessage } from "./evaluate_rules.ts";
import { compileRules, type Rule } from "./rule.ts";

/** Options of {@linkcode rules}; plain JSON, so `tack.jsonc` can hold them. */
export interface RulesOptions {
  /** The rules; `deny` beats `ask` beats `allow` (see `evaluateRules`). */
  rules?: readonly Rule[];
  /** What happens to a call no rule matches: `"allow"` (the default) or `"deny"`. */
  default?: "allow" | "deny";
  /** The plugin's name (default `"rules"`), to use two rule sets in one agent. */
  name?: string;
}

/**
 * The text of a block by the `"deny"` default.
 *
 * @param plugin The rules plugin's name.
 * @param toolName The tool no rule allowed.
 * @returns The block text.
 *
 * @example
 * ```ts
 * import { defaultDenyMessage } from "@tack/agent/plugins/rules";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   defaultDenyMessage("rules", "bash"),
 *   'Blocked by plugin "rules": no rule allows bash and the default is "deny"',
 * );
 * ```
 */
export function defaultDenyMessage(plugin: string, toolName: string): string {
  return `Blocked by plugin "${plugin}": no rule allows ${toolName} and the default is "deny"`;
}

/**
 * A policy plugin that blocks calls matching a `deny` rule (and, with `default: "deny"`,
 * calls no rule matches), naming the rule that fired:
 * `Blocked by rule "no-rm-rf" (deny bash command matching /rm -rf/)`.
 *
 * `ask` rules are passed through: asking is `confirm`'s job, so give `confirm` the same
 * list (a call matching an `ask` rule counts as matched for the `"deny"` default). Put
 * policy plugins after any plugin that rewrites arguments, so they judge the final ones.
 *
 * @param options The rules, the default, the plugin's name.
 * @returns The plugin.
 * @throws {TypeError} When a rule or the default is malformed (the message names it).
 *
 * @example Deny `rm -rf` in bash
 * ```ts
 * import { createAgent, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
 * import { rules } from "@tack/agent/plugins/rules";
 * import { equal } from "node:assert/strict";
 *
 * const bash = defineTool({
 *   name: "bash", description: "Runs a command",
 *   parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } as const,
 *   execute: () => ({ content: [{ type: "text", text: "ran" }] }),
 * });
 * const agent = createAgent({
 *   model: scriptedModel([[toolCall("bash", { command: "rm -rf /" })], [text("ok")]]),
 *   tools: [bash],
 *   plugins: [rules({
 *     rules: [{ name: "no-rm-rf", action: "deny", tool: "bash", args: { command: { regex: "rm -rf" } } }],
 *   })],
 * });
 * const [, , result] = await agent.prompt("clean up");
 * equal(
 *   result.role === "toolResult" && result.content[0].type === "text" && result.content[0].text,
 *   'Blocked by rule "no-rm-rf" (deny bash command matching /rm -rf/)',
 * );
 * ```
 */
export function rules(options: RulesOptions = {}): Plugin {
  const name = options.name ?? "rules";
  const compiled = compileRules(options.rules, `${name} plugin`);
  const fallback = options.default ?? "allow";
  if (fallback !== "allow" && fallback !== "deny") {
    throw new TypeError(
      `Cannot create ${name} plugin: default must be "allow" or "deny", got ${
        JSON.stringify(fallback)
      }`,
    );
  }
  const judge = (
    tool: { name: string; effects?: readonly ToolEffect[] },
    args: Record<string, unknown>,
  ) => {
    const decision = evaluateRules(compiled, { toolName: tool.name, effects: tool.effects, args });
    if (decision?.action === "deny") {
      return { block: true as const, reason: ruleBlockMessage(decision.rule) };
    }
    if (!decision && fallback === "deny") {
      return { block: true as const, reason: defaultDenyMessage(name, tool.name) };
    }
    return undefined;
  };
  // The (frozen) arguments objects judged and let through: verifyToolCall gets the same
  // object when no hook rewrote them since, and need not judge them twice.
  const passed = new WeakSet<object>();
  return definePlugin({
    name,
    description: "Allows and denies tool calls by name, effect and argument patterns",
    permissions: {},
    beforeToolCall: function rulesBeforeToolCall({ tool, args }) {
      const verdict = judge(tool, args);
      if (verdict === undefined && Object.isFrozen(args)) passed.add(args);
      return verdict;
    },
    // A hook after this one (a later plugin's, or the agent's own, which always run after
    // every plugin's) may have rewritten the arguments: the final ones are judged again.
    verifyToolCall: function rulesVerifyToolCall({ tool, args }) {
      return passed.has(args) ? undefined : judge(tool, args);
    },
  });
}
