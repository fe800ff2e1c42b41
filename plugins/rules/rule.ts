/**
 * Policy rules: what they look like (plain JSON, so `tack.jsonc` can hold them) and
 * their compiled form.
 *
 * @module
 */

import type { ToolEffect } from "@tack/agent";
import { LinearRegExp } from "../../core/linear_regexp.ts";
import { globToRegExp } from "./glob_to_regexp.ts";
import { compileShellPattern, type ShellPattern } from "./shell_pattern.ts";

/** What a rule does to the calls it matches. */
export type RuleAction = "allow" | "deny" | "ask";

/**
 * A pattern on one named argument: a regular expression (`{ regex, flags? }` in JSON, or a
 * `RegExp` from code; run by the linear-time RE2 engine, so valid in both JavaScript and
 * RE2 syntax: no backreferences or lookaround) tested against the value, or a glob (`{ glob }`) matched against the
 * value read as a path, normalized (`./`, `..` and `//` resolved) and at any depth
 * (`.git/**` matches `.git/config`, `./a/../.git/config`, `sub/.git/x` and `/repo/.git/x`).
 * Non-string values are tested as `String(value)` (numbers, booleans) or JSON.
 * `{ shell: "rm -rf" }` matches a shell command running that program with those flags
 * in any spelling (see `matchesShellArgument`); a regex on a shell command argument is
 * tested against each part of the parsed command.
 */
export type ArgPattern =
  | RegExp
  | { regex: string; flags?: string }
  | { glob: string }
  | { shell: string };

/**
 * One policy rule. A call matches when every condition given matches: the tool's name
 * (`tool`, a glob or a list of globs), its declared effects (`effect`, any of them), and
 * each named argument (`args`). At least one condition is required.
 */
export interface Rule {
  /** Quoted in every block it causes: `Blocked by rule "no-rm-rf" (…)`. */
  name: string;
  /** `deny` blocks, `ask` needs the user's yes (see `confirm`), `allow` lets it run. */
  action: RuleAction;
  /** Tool name glob(s): `"bash"`, `"mcp_*"`, `["write", "edit"]`, `"*"`. */
  tool?: string | readonly string[];
  /** Matches tools declaring any of these effects. */
  effect?: ToolEffect | readonly ToolEffect[];
  /** Patterns on named arguments; all must match. */
  args?: Readonly<Record<string, ArgPattern>>;
  /** Why, appended to the block text the model reads. */
  reason?: string;
}

/** An argument pattern ready to test. */
export interface CompiledArgPattern {
  /** The argument's name. */
  name: string;
  /** How the value is tested. */
  kind: "regex" | "glob" | "shell";
  /** The compiled pattern (for `shell`, one that matches nothing). */
  pattern: RegExp;
  /** For `shell`: the program and flags to match. */
  shell?: ShellPattern;
  /** How the pattern reads in block texts: `/rm -rf/` or `glob ".git/**"`. */
  label: string;
}

/** A checked rule, with its globs and expressions compiled. */
export interface CompiledRule {
  /** The rule as given. */
  rule: Rule;
  /** The tool globs, compiled (absent: any tool). */
  tools?: RegExp[];
  /** The effects matched (absent: any). */
  effects?: ReadonlySet<ToolEffect>;
  /** The argument patterns, all of which must match. */
  args: CompiledArgPattern[];
  /** What the rule does, in words: `deny bash command matching /rm -rf/`. */
  description: string;
}

const ACTIONS: readonly string[] = ["allow", "deny", "ask"];
const EFFECTS: readonly string[] = ["read", "write", "exec", "net"];

function list<T>(value: T | readonly T[] | undefined): readonly T[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value as T];
}

function compileArg(
  name: string,
  value: unknown,
  fail: (why: string) => never,
): CompiledArgPattern {
  if (value instanceof RegExp) {
    let pattern: RegExp;
    try {
      pattern = value instanceof LinearRegExp ? value : new LinearRegExp(value.source, value.flags);
    } catch (error) {
      fail(`args.${name} has an invalid regex: ${(error as Error).message}`);
    }
    return { name, kind: "regex", pattern, label: `/${value.source}/${value.flags}` };
  }
  if (typeof value !== "object" || value === null) {
    fail(
      `args.${name} must be { "regex": "…" } or { "glob": "…" }, got ${JSON.stringify(value)}`,
    );
  }
  const { regex, flags, glob } = value as { regex?: unknown; flags?: unknown; glob?: unknown };
  const { shell } = value as { shell?: unknown };
  if (shell !== undefined) {
    if (
      typeof shell !== "string" || shell.trim() === "" || regex !== undefined || glob !== undefined
    ) {
      fail(`args.${name}.shell must be a command pattern like "rm -rf" (and the only key)`);
    }
    const label = `shell command ${JSON.stringify(shell.trim())}`;
    return { name, kind: "shell", pattern: /[^\s\S]/, shell: compileShellPattern(shell), label };
  }
  if (typeof regex === "string" && glob === undefined) {
    if (flags !== undefined && typeof flags !== "string") {
      fail(`args.${name}.flags must be a string`);
    }
    let pattern: RegExp;
    try {
      pattern = new LinearRegExp(regex, flags as string | undefined);
    } catch (error) {
      fail(`args.${name} has an invalid regex: ${(error as Error).message}`);
    }
    return { name, kind: "regex", pattern, label: `/${pattern.source}/${pattern.flags}` };
  }
  if (typeof glob === "string" && regex === undefined) {
    let pattern: RegExp;
    try {
      pattern = globToRegExp(glob);
    } catch (error) {
      fail(`args.${name} has an invalid glob: ${(error as Error).message}`);
    }
    return { name, kind: "glob", pattern, label: `glob ${JSON.stringify(glob)}` };
  }
  fail(`args.${name} must have exactly one of "regex" (a string) or "glob" (a string)`);
}

function describe(compiled: Omit<CompiledRule, "description">): string {
  const { rule } = compiled;
  const tools = list(rule.tool);
  let text = `${rule.action} ${tools ? tools.join(" or ") : "any tool"}`;
  const effects = list(rule.effect);
  if (effects) text += ` with effect ${effects.join(" or ")}`;
  if (compiled.args.length > 0) {
    text += (effects ? ", " : " ") +
      compiled.args.map((arg) => `${arg.name} matching ${arg.label}`).join(" and ");
  }
  return text;
}

/**
 * Checks and compiles rules given as plain data (from code or `tack.jsonc`).
 *
 * @param rules The rules, in order.
 * @param owner Who is compiling, for error texts (`"rules plugin"`).
 * @returns The compiled rules, in the same order.
 * @throws {TypeError} When a rule is malformed: the message names the rule and the field,
 * e.g. `Cannot create rules plugin: rules[0] ("x"): action must be "allow", "deny" or "ask"`.
 *
 * @example Compiling a deny rule
 * ```ts
 * import { compileRules } from "@tack/agent/plugins/rules";
 * import { equal } from "node:assert/strict";
 *
 * const [rule] = compileRules([
 *   { name: "no-rm-rf", action: "deny", tool: "bash", args: { command: { regex: "rm -rf" } } },
 * ]);
 * equal(rule.description, "deny bash command matching /rm -rf/");
 * ```
 */
export function compileRules(rules: unknown, owner = "rules plugin"): CompiledRule[] {
  if (rules === undefined) return [];
  if (!Array.isArray(rules)) {
    throw new TypeError(`Cannot create ${owner}: rules must be an array of rules`);
  }
  const names = new Set<string>();
  return rules.map((rule: Rule, index) => {
    const label = typeof rule?.name === "string"
      ? `rules[${index}] ("${rule.name}")`
      : `rules[${index}]`;
    const fail = (why: string): never => {
      throw new TypeError(`Cannot create ${owner}: ${label}: ${why}`);
    };
    if (typeof rule !== "object" || rule === null) fail("must be an object");
    if (typeof rule.name !== "string" || rule.name.trim() === "") fail("needs a non-empty name");
    if (names.has(rule.name)) fail("another rule has the same name");
    names.add(rule.name);
    if (!ACTIONS.includes(rule.action)) {
      fail(`action must be "allow", "deny" or "ask", got ${JSON.stringify(rule.action)}`);
    }
    const toolGlobs = list(rule.tool);
    if (toolGlobs && (toolGlobs.length === 0 || toolGlobs.some((g) => typeof g !== "string"))) {
      fail("tool must be a glob or a non-empty list of globs");
    }
    const effects = list(rule.effect);
    if (effects && (effects.length === 0 || effects.some((e) => !EFFECTS.includes(e)))) {
      fail(`effect must be "read", "write", "exec" or "net" (or a list of them)`);
    }
    if (rule.args !== undefined && (typeof rule.args !== "object" || rule.args === null)) {
      fail("args must be an object of argument patterns");
    }
    const args = Object.entries(rule.args ?? {}).map(([name, value]) =>
      compileArg(name, value, fail)
    );
    if (!toolGlobs && !effects && args.length === 0) {
      fail('matches every call: give it a tool, effect or args (tool "*" matches every tool)');
    }
    if (rule.reason !== undefined && typeof rule.reason !== "string") {
      fail("reason must be a string");
    }
    let tools: RegExp[] | undefined;
    try {
      tools = toolGlobs?.map(globToRegExp);
    } catch (error) {
      fail(`tool has an invalid glob: ${(error as Error).message}`);
    }
    const compiled = { rule, tools, effects: effects && new Set(effects), args };
    return { ...compiled, description: describe(compiled) };
  });
}
