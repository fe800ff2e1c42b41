/**
 * Where bash runs text as code at run time, or reads a text otherwise than mvdan/sh does:
 * what no rule can read beforehand, so rules never allow a command that holds it.
 *
 * @module
 */

import { programName } from "./shell_pattern.ts";
import type { ShellPart } from "./parse_shell.ts";
import type { Node, Reader } from "./shell_reader.ts";

// Builtins whose operands name variables: a name with a subscript (`a[…]`) has its
// subscript evaluated as arithmetic, `$(…)` included, and a name that comes from an
// expansion may be one (`read "$v"`). `printf`, `test` and `wait` take a name only after
// an option. (`declare` and the like are read from their own node; `let` is arithmetic.)
const NAMES_EVERY_OPERAND = new Set(["read", "mapfile", "readarray", "unset", "getopts"]);
const NAME_OPTION = new Map([["printf", "-v"], ["test", "-v"], ["[", "-v"], ["wait", "-p"]]);

/** Variables whose value bash runs or expands as code later: the prompts, `PROMPT_COMMAND`. */
const PROMPT_VARIABLE = /^(?:PS[0-4]|PROMPT_COMMAND)(?:\[[^\]]*\])?\+?=/;

/**
 * Whether an assignment sets a variable whose value bash runs or expands as code later: a
 * prompt (`PS0` to `PS4`, expanded with `set -x` or at a prompt) or `PROMPT_COMMAND`.
 *
 * @param assignment The assignment as written (`name=value`, `name+=value`, `name[i]=value`).
 * @returns `true` for those variables.
 *
 * @example
 * ```ts
 * import { setsPrompt } from "./run_time_code.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(setsPrompt("PS4=$(rm -rf x)"), true);
 * equal(setsPrompt("PROMPT_COMMAND[0]+=date"), true);
 * equal(setsPrompt("PS5=x"), false);
 * equal(setsPrompt("PS1"), false);
 * ```
 */
export function setsPrompt(assignment: string): boolean {
  return PROMPT_VARIABLE.test(assignment);
}

/**
 * A name whose value bash may evaluate: it is not known beforehand, or it has a subscript
 * other than `@`, `*` or digits (`a[_]` reads `$_` as arithmetic, `a[$(…)]` runs).
 */
function riskyName(word: string, dynamic: boolean): boolean {
  return dynamic || /\[(?![@*]\]|\d+\])/.test(word);
}

/**
 * A part that hands a builtin a variable name bash will evaluate (see
 * {@linkcode riskyName}), or a `{name[…]}>` redirection (bash stores the descriptor in
 * `name[…]`, evaluating the subscript; the parser reads it as a word).
 *
 * @param part A part of the command.
 * @returns The word, or `undefined`.
 *
 * @example
 * ```ts
 * import { namedAt } from "./run_time_code.ts";
 * import { equal } from "node:assert/strict";
 *
 * const part = (...words: string[]) =>
 *   ({ kind: "call" as const, words, dynamic: words.map(() => false), assigns: [], text: "" });
 * equal(namedAt(part("printf", "-v", "a[$(touch x)]", "1")), "a[$(touch x)]");
 * equal(namedAt(part("printf", "%s", "a[1]")), undefined);
 * ```
 */
export function namedAt(part: ShellPart): string | undefined {
  const { words, dynamic } = part;
  // Text bash runs later as code: a prompt it expands (`PS4='$(…)'` with `set -x`), a command
  // before each prompt.
  const prompt = part.assigns.find(setsPrompt);
  if (prompt !== undefined) return prompt;
  const braced = words.find((word) => /^\{[A-Za-z_][A-Za-z0-9_]*\[/.test(word));
  if (braced !== undefined) return braced;
  const name = dynamic[0] ? undefined : programName(words[0] ?? "");
  if (name === undefined) return undefined;
  // `mapfile -C 'cmd'` runs its callback as code; `hash -p /bin/rm del` makes `del` run rm.
  if (name === "mapfile" || name === "readarray" || name === "hash") {
    const option = name === "hash" ? "-p" : "-C";
    const given = words.find((word, i) =>
      i > 0 && /^-[A-Za-z]*$/.test(word) && word.includes(option[1])
    );
    if (given !== undefined) return given;
  }
  if (NAMES_EVERY_OPERAND.has(name)) {
    return words.find((word, i) => i > 0 && !word.startsWith("-") && riskyName(word, dynamic[i]));
  }
  const option = NAME_OPTION.get(name);
  if (option !== undefined) {
    const at = words.findIndex((word, i) => i > 0 && word.startsWith(option) && !dynamic[i]);
    if (at < 0) return undefined;
    const glued = words[at].slice(2);
    if (glued !== "") return riskyName(glued, false) ? words[at] : undefined;
    return at + 1 < words.length && riskyName(words[at + 1], dynamic[at + 1])
      ? words[at + 1]
      : undefined;
  }
  return undefined;
}

/** A subscript or slice bound that evaluates nothing: `@`, `*`, or digits. */
function inert(reader: Reader, node: Node | undefined): boolean {
  return node === undefined || node === null || /^(?:[@*]|\d+)$/.test(reader.text(node));
}

/**
 * Where bash runs text as code at run time, which no rule can read beforehand: arithmetic
 * (`$((…))`, `$[…]`, `((…))`, `let`, `for ((…))`, `[[ … -eq … ]]`) and subscripts
 * (`${a[…]}`, a slice's offsets, `[[ -v … ]]`) evaluate a variable's value as an
 * expression, and an array subscript in that value runs its `$(…)`; `${!x}` and `${x@P}`
 * do too (`echo 'a[$(rm -rf ~)]'; echo $((_))` runs `rm` through `$_`). Names handed to
 * builtins are found in the parts ({@linkcode namedAt}). Backslash-newlines are removed
 * first, as bash does (`-e\<newline>q` is `-eq`).
 *
 * @param type The node's type.
 * @param node The node.
 * @param reader The source, for the node's text.
 * @returns The construct, or `undefined`.
 *
 * @example
 * ```ts
 * import { evaluatedAt } from "./run_time_code.ts";
 * import { Reader } from "./shell_reader.ts";
 * import { shellSyntax } from "./shell_syntax.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const source = "echo $((x)) $((1+2))";
 * const reader = new Reader(source);
 * const found: string[] = [];
 * shellSyntax.Walk(shellSyntax.NewParser().Parse(source, ""), (node: unknown) => {
 *   const at = node ? evaluatedAt(shellSyntax.NodeType(node), node, reader) : undefined;
 *   if (at !== undefined) found.push(at);
 *   return true;
 * });
 * deepEqual(found, ["$((x))"]);
 * ```
 */
export function evaluatedAt(type: string, node: Node, reader: Reader): string | undefined {
  const text = () => reader.text(node).replace(/\\\n/g, "");
  switch (type) {
    case "ArithmExp":
    case "ArithmCmd": {
      // Numbers alone (`$((1+2))`, `$((0x1F))`) evaluate nothing; a name or an expansion may.
      const source = text();
      const inside = source.replace(/^\$?(?:\(\(|\[)|(?:\)\)|\])$/g, "").replace(
        /\b0[xX][0-9a-fA-F]+\b/g,
        "",
      );
      return /[A-Za-z_$`]/.test(inside) ? source : undefined;
    }
    case "LetClause":
    case "CStyleLoop":
      return text();
    case "ParamExp": {
      if (node.Excl) return text();
      if (node.Index && !inert(reader, node.Index)) return text();
      if (node.Slice && !(inert(reader, node.Slice.Offset) && inert(reader, node.Slice.Length))) {
        return text();
      }
      if (!node.Exp) return undefined;
      const source = text();
      return /@P\}$/.test(source) ? source : quotedDefault(node, reader);
    }
    case "TestClause": {
      const source = text();
      return /\s-(?:eq|ne|lt|le|gt|ge|v)\s/.test(source) ? source : undefined;
    }
    // Where mvdan/sh and bash read the same text differently (each found by an attack
    // with real bash), the command is taken as unreadable:
    case "Comment": {
      // bash ends a comment at the newline; mvdan/sh joins a line after `#…\` into it.
      if (/\\\n?$/.test(node.Text)) return `#${node.Text}`;
      // bash starts a comment only at a word's start; mvdan/sh also after a quote or expansion.
      const before = reader.before(node);
      return before === "" || /[ \t\n;&|(<>]/.test(before) ? undefined : `#${node.Text}`;
    }
    case "ExtGlob":
      // mvdan/sh keeps an extended pattern as text; bash expands the $(…) in it.
      return /[$`]/.test(node.Pattern?.Value ?? "") ? reader.text(node) : undefined;
    case "Redirect":
      return hereDocEndedEarly(node, reader);
    default:
      return undefined;
  }
}

/**
 * A here-document whose body, as bash reads it, ends before where mvdan/sh ends it: bash
 * removes backslash-newlines before it looks for the end line (`EO\<newline>F` ends it),
 * and ends the body at that line even inside an expansion (`${x:-` … `EOF` … `}`); what
 * follows runs as commands. Only an unquoted marker's body is read this way.
 */
function hereDocEndedEarly(node: Node, reader: Reader): string | undefined {
  if (!node.Hdoc) return undefined;
  const op = /^(?:\d+)?(<<-?)(?!<)/.exec(reader.text(node))?.[1];
  const marker = node.Word ? reader.text(node.Word) : "";
  if (op === undefined || /['"\\$]/.test(marker)) return undefined;
  const lines = reader.text(node.Hdoc).replace(/\\\n/g, "").split("\n");
  const early = lines.some((line) => (op === "<<-" ? line.replace(/^\t+/, "") : line) === marker);
  return early ? reader.text(node) : undefined;
}

/** A `${x:-…}`, `${x:+…}` or `${x=…}` word with single quotes in it: inside double quotes
 * (or a here-document) bash takes `'` as a character, so a `$(…)` between them runs, where
 * mvdan/sh reads it as quoted text. */
function quotedDefault(node: Node, reader: Reader): string | undefined {
  if (!node.Exp?.Word) return undefined;
  return reader.text(node.Exp.Word).includes("'") ? reader.text(node) : undefined;
}
