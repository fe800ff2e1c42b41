/**
 * How rules read a shell command argument: per part of the parsed command, so an allow
 * rule approves only a command made entirely of allowed parts, and deny and ask rules
 * see every part, through wrappers, whatever the quoting.
 *
 * @module
 */

import type { ToolEffect } from "@tack/agent";
import { parseShell, quoteShellWord, type ShellParse } from "./parse_shell.ts";
import type { CompiledArgPattern, RuleAction } from "./rule.ts";
import { matchesShellPattern, programName, shellPartViews } from "./shell_pattern.ts";

/**
 * Whether an argument holds a shell command: `command` of a tool that declares the `exec`
 * effect (or is named `bash`, `sh` or `shell`).
 *
 * @param subject The tool's name and effects.
 * @param name The argument's name.
 * @returns Whether rules read the argument as shell.
 *
 * @example
 * ```ts
 * import { isShellArgument } from "@tack/agent/plugins/rules";
 * import { equal } from "node:assert/strict";
 *
 * equal(isShellArgument({ toolName: "run", effects: ["exec"] }, "command"), true);
 * equal(isShellArgument({ toolName: "write", effects: ["write"] }, "command"), false);
 * ```
 */
export function isShellArgument(
  subject: { toolName: string; effects?: readonly ToolEffect[] },
  name: string,
): boolean {
  return name === "command" &&
    (subject.effects?.includes("exec") === true ||
      ["bash", "sh", "shell"].includes(subject.toolName));
}

function roughViews(
  source: string,
  program?: string,
): { words: string[]; dynamic: boolean[] }[] {
  // An unparseable text: split at every operator, drop quotes, and read each piece as a
  // command; for a shell pattern, also from every word naming its program on (a deny rule
  // then sees `rm -rf` inside `sh -c '…'` or `eval '…'` too; such a text is never allowed).
  // Linear in the words for each occurrence of the program, not in every suffix.
  return source.split(/[;&|()\n`{}]+|\$\(/).flatMap((segment) => {
    const words = segment.trim().split(/\s+/)
      .map((word) => word.replace(/\$(?=['"])/g, "").replace(/["'\\]/g, ""))
      .filter((word) => word !== "");
    if (words.length === 0) return [];
    const view = (rest: string[]) => ({ words: rest, dynamic: rest.map(() => false) });
    const own = shellPartViews({ kind: "call", ...view(words), assigns: [], text: "" });
    if (program === undefined) return own;
    const inner = words.flatMap((word, from) =>
      from > 0 && programName(word) === program ? [view(words.slice(from))] : []
    );
    return [...own, ...inner];
  });
}

function viewText(words: readonly string[], dynamic: readonly boolean[]): string {
  return words.map((word, i) => dynamic[i] ? word : quoteShellWord(word)).join(" ");
}

/**
 * Whether a rule's pattern matches a shell command, for the rule's action:
 * - `allow`: the command parses and **every** part matches (an unparseable command never);
 * - `deny`, `ask`: the whole text matches (regex), or **any** part does, in any of its
 *   views (`sudo rm -rf x` is also `rm -rf x`); an unparseable text is split at its
 *   operators and each piece is tried; here-document and here-string bodies read as data
 *   are tried as commands too.
 *
 * @param arg The compiled pattern (`regex` or `shell`).
 * @param action The rule's action.
 * @param source The command text.
 * @param parsed `parseShell(source)` (parsed once per call).
 * @returns Whether the rule matches.
 *
 * @example An allow rule does not approve a chain
 * ```ts
 * import { compileRules, matchesShellArgument, parseShell } from "@tack/agent/plugins/rules";
 * import { equal } from "node:assert/strict";
 *
 * const [rule] = compileRules([{ name: "git", action: "allow", tool: "bash", args: { command: { regex: "^git status$" } } }]);
 * const source = "git status; touch pwned";
 * equal(matchesShellArgument(rule.args[0], "allow", source, parseShell(source)), false);
 * ```
 */
export function matchesShellArgument(
  arg: CompiledArgPattern,
  action: RuleAction,
  source: string,
  parsed: ShellParse = parseShell(source),
): boolean {
  const test = (text: string) => {
    arg.pattern.lastIndex = 0;
    return arg.pattern.test(text);
  };
  const matchView = (words: readonly string[], dynamic: readonly boolean[]) =>
    arg.shell ? matchesShellPattern(arg.shell, words, dynamic) : test(viewText(words, dynamic));
  // A text bash rejects, or one it will run as code it builds at run time (arithmetic,
  // subscripts, `${!x}`): never allowed, and read roughly too (every word naming a program
  // as a command, quoted or not) for deny and ask rules.
  const unreadable = parsed.kind === "error" || parsed.evaluates !== undefined;
  if (action === "allow") {
    return !unreadable && parsed.kind === "ok" && parsed.parts.length > 0 &&
      parsed.parts.every((part) =>
        arg.shell ? matchesShellPattern(arg.shell, part.words, part.dynamic) : test(part.text)
      );
  }
  if (!arg.shell && test(source)) return true;
  if (
    unreadable &&
    roughViews(source, arg.shell?.program).some((view) => matchView(view.words, view.dynamic))
  ) {
    return true;
  }
  if (parsed.kind !== "ok") return false;
  if (
    parsed.parts.some((part) =>
      shellPartViews(part).some((view) => matchView(view.words, view.dynamic))
    )
  ) return true;
  // Here-document bodies read as data may still reach a shell (`{ bash; } <<< '…'`, `bash
  // /dev/fd/3 3<<< '…'`): read as commands too. At worst a deny rule blocks a file's text.
  return (parsed.data ?? []).some((body) => matchesShellArgument(arg, action, body));
}
