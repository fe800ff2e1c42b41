/**
 * Reads a bash command the way bash does, with mvdan/sh's parser (the `mvdan-sh` build),
 * and lists every simple command it would run: those chained with `;`, `&&`, `||`, `&`
 * and pipes, inside subshells, groups, functions, loops and conditionals, inside `$(…)`,
 * backticks and `<(…)`, and the scripts given to `bash -c` and `eval`. A redirection that
 * writes a file is listed as a part of its own (`> file`).
 *
 * @module
 */

import { shellSyntax } from "./shell_syntax.ts";
import { programName, shellPartViews } from "./shell_pattern.ts";
import {
  envSplitString,
  flockCommand,
  groupShellScript,
  suCommand,
  sudoShellReadsStdin,
} from "./wrapper_scripts.ts";
import { isStdinPath, quoteShellWord, shellScript } from "./shell_script.ts";

export { quoteShellWord };
import { type Node, Reader } from "./shell_reader.ts";
import { evaluatedAt, namedAt, setsPrompt } from "./run_time_code.ts";

/** One thing a command line does: run a program, or write a file through a redirection. */
export interface ShellPart {
  /** `"call"`: a simple command (or assignments only); `"write"`: a `>`/`>>` redirection. */
  kind: "call" | "write";
  /**
   * The words, unquoted where they are static (`r"m"` is `rm`); a word with an expansion
   * (`$x`, `$(…)`, a glob-free brace list, `$'…'`) is its source text.
   */
  words: string[];
  /** For each word, whether it has an expansion (its value is unknown before it runs). */
  dynamic: boolean[];
  /** The leading `NAME=value` assignments, as source text. */
  assigns: string[];
  /** The part as one normalized line: assignments then words, re-quoted, single spaces. */
  text: string;
}

/**
 * What {@linkcode parseShell} found: the parts, or why the text is not a bash script.
 * `evaluates` names the first place where bash runs text as code at run time (see
 * {@linkcode evaluatedAt}): rules never allow such a command.
 */
export type ShellParse =
  | {
    kind: "ok";
    parts: ShellPart[];
    normalized: string;
    evaluates?: string;
    /**
     * The bodies of here-documents and here-strings not read as a shell's script: data, as
     * far as the parser can tell, which a shell may still read (`{ bash; } <<< '…'`,
     * `bash /dev/fd/3 3<<< '…'`). Deny and ask rules look into them too.
     */
    data?: string[];
  }
  | { kind: "error"; message: string };

/** What parsing found beside the parts. */
interface Found {
  evaluates?: string;
  data: string[];
}

const syntax = shellSyntax;
const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh", "mksh", "rbash", "ash", "yash"]);
const NULL_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);
const MAX_DEPTH = 8;

function unescapeUnquoted(value: string): string {
  return value.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
}

function unescapeDoubleQuoted(value: string): string {
  return value.replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1");
}

const ANSI_C_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** The value of a `$'…'` word's body, as bash decodes it; `undefined` for what it may not. */
function ansiCQuoted(body: string): string | undefined {
  let unknown = false;
  const value = body.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (_, escape: string) => {
      const code = escape[0] === "x" || escape[0] === "u" || escape[0] === "U"
        ? parseInt(escape.slice(1), 16)
        : /^[0-7]/.test(escape)
        ? parseInt(escape, 8)
        : undefined;
      if (code !== undefined) {
        if (code === 0 || code > 0x10ffff) unknown = true; // bash cuts the word at a NUL
        return code > 0x10ffff ? "" : String.fromCodePoint(code);
      }
      if (escape[0] === "c") {
        unknown = true; // control characters: never a program name or a flag
        return "";
      }
      return ANSI_C_ESCAPES[escape] ?? `\\${escape}`;
    },
  );
  return unknown ? undefined : value;
}

/** The static value of a word, or `undefined` when it has an expansion. */
function staticWord(word: Node): string | undefined {
  let value = "";
  for (const part of word.Parts) {
    const type = syntax.NodeType(part);
    if (type === "Lit") {
      if (/[{}]/.test(part.Value)) return undefined; // brace expansion: {a,b} and {1..3}
      value += unescapeUnquoted(part.Value);
    } else if (type === "SglQuoted" && !part.Dollar) value += part.Value;
    else if (type === "SglQuoted") {
      // $'…': ANSI-C quoting, a quoting form (no expansion): rm $'-rf' is rm -rf.
      const decoded = ansiCQuoted(part.Value);
      if (decoded === undefined) return undefined;
      value += decoded;
    } else if (type === "DblQuoted") {
      // $"…" is a translated string: without a message catalog, its own text.
      for (const inner of part.Parts) {
        if (syntax.NodeType(inner) !== "Lit") return undefined;
        value += unescapeDoubleQuoted(inner.Value);
      }
    } else return undefined;
  }
  return value;
}

function partOf(reader: Reader, assigns: Node[], words: Node[]): ShellPart {
  const values = words.map(staticWord);
  const shown = values.map((value, i) => value ?? reader.text(words[i]));
  const assignTexts = assigns.map((assign) => reader.text(assign));
  return {
    kind: "call",
    words: shown,
    dynamic: values.map((value) => value === undefined),
    assigns: assignTexts,
    text: [
      ...assignTexts,
      ...shown.map((word, i) => values[i] === undefined ? word : quoteShellWord(word)),
    ].join(" "),
  };
}

function writePart(reader: Reader, redirect: Node): ShellPart | undefined {
  const source = reader.text(redirect);
  const op = /^(?:\d+|\{\w+\})?([<>&|]+)/.exec(source)?.[1] ?? "";
  if (!op.includes(">")) return undefined; // reads, here-documents, here-strings
  const target = redirect.Word ? staticWord(redirect.Word) : undefined;
  const shown = target ?? (redirect.Word ? reader.text(redirect.Word) : "");
  if ((op === ">&" || op === "<>&") && /^(\d+|-)$/.test(shown)) return undefined; // 2>&1
  if (target !== undefined && NULL_TARGETS.has(target)) return undefined;
  return {
    kind: "write",
    words: [op, shown],
    dynamic: [false, target === undefined],
    assigns: [],
    text: `${op} ${target === undefined ? shown : quoteShellWord(shown)}`,
  };
}

/**
 * The script one view of a call runs: `bash -c '…'` (options anywhere before it), `eval …`,
 * `trap '…' SIG`, `env -S '…'`; `undefined` when none.
 */
function scriptOf(words: readonly string[], dynamic: readonly boolean[]): string | undefined {
  const name = dynamic[0] ? undefined : programName(words[0] ?? "");
  if (name === "eval" && words.length > 1 && !dynamic.includes(true)) {
    // `eval -- '…'`: bash's eval takes `--` as the end of its (no) options.
    return words.slice(words[1] === "--" ? 2 : 1).join(" ");
  }
  if (name === "su" || name === "runuser") {
    const given = suCommand(words, dynamic);
    return typeof given === "object" ? given.script : undefined;
  }
  if (name === "trap") {
    // `trap 'action' SIG…`; `trap SIG` alone resets the signal: no action.
    const at = words[1] === "--" ? 2 : 1;
    return dynamic[at] === false && !words[at].startsWith("-") && words.length > at + 1
      ? words[at]
      : undefined;
  }
  if (name === "env") return envSplitString(words, dynamic);
  if (name === "sg") {
    const given = groupShellScript(words, dynamic);
    return typeof given === "object" ? given.script : undefined;
  }
  if (name === "flock") return flockCommand(words, dynamic);
  if (name === undefined || !SHELLS.has(name)) return undefined;
  const given = shellScript(words, dynamic);
  return typeof given === "object" ? given.script : undefined;
}

/**
 * Whether a call (through its wrappers) is a shell reading its script from stdin. Not
 * through `xargs` or `find`: their commands do not read the call's stdin.
 */
function readsScriptFromStdin(part: ShellPart): boolean {
  const views = shellPartViews(part);
  for (let at = 0; at < views.length; at++) {
    const { words, dynamic } = views[at];
    const name = dynamic[0] ? undefined : programName(words[0] ?? "");
    if (name === "xargs" || name === "find") return false;
    if (name === "." || name === "source") return isStdinPath(words[1]);
    // `su`, `runuser`, `sg`, `newgrp`, `sudo -s` without a command: their shell reads stdin.
    if ((name === "su" || name === "runuser") && suCommand(words, dynamic) === "stdin") return true;
    if ((name === "sg" || name === "newgrp") && groupShellScript(words, dynamic) === "stdin") {
      return true;
    }
    if (
      // Its command, if any, is the next view.
      (name === "sudo" || name === "doas") && sudoShellReadsStdin(words, at + 1 < views.length)
    ) return true;
    if (name !== undefined && SHELLS.has(name) && shellScript(words, dynamic) === "stdin") {
      return true;
    }
  }
  return false;
}

/**
 * The script an interpreter call runs, also behind wrappers (`env bash -c '…'`,
 * `sudo sh -c '…'`, `find … -exec sh -c '…' \;`); `undefined` when none.
 */
function innerScript(part: ShellPart): string | undefined {
  for (const view of shellPartViews(part)) {
    const script = scriptOf(view.words, view.dynamic);
    if (script !== undefined) return script;
  }
  return undefined;
}

function collect(source: string, depth: number, found: Found): ShellPart[] {
  const file = syntax.NewParser(syntax.KeepComments(true)).Parse(source, "");
  const reader = new Reader(source);
  const parts: ShellPart[] = [];
  syntax.Walk(file, (node: Node) => {
    if (!node) return true;
    const type = syntax.NodeType(node);
    if (found.evaluates === undefined) found.evaluates = evaluatedAt(type, node, reader);
    if (type === "Stmt" && node.Redirs) {
      // A shell fed its script by a here-document or here-string: `bash <<'EOF'`, `sh <<< '…'`.
      const call = node.Cmd && syntax.NodeType(node.Cmd) === "CallExpr"
        ? partOf(reader, node.Cmd.Assigns ?? [], node.Cmd.Args ?? [])
        : undefined;
      const script = call !== undefined && depth < MAX_DEPTH && readsScriptFromStdin(call);
      for (const redirect of node.Redirs) {
        const op = /^(?:\d+)?(<<<|<<-?)/.exec(reader.text(redirect))?.[1];
        const body = op === "<<<"
          ? staticWord(redirect.Word) ?? reader.text(redirect.Word)
          : op && redirect.Hdoc
          // `<<-` drops each line's leading tabs before the shell reads it (a tab after a
          // `\` continuation would split the word it continues).
          ? (op === "<<-"
            ? reader.text(redirect.Hdoc).replace(/^\t+/gm, "")
            : reader.text(redirect.Hdoc))
          : undefined;
        if (body === undefined) continue;
        // A script bash would run but this parser rejects makes the whole text unreadable.
        if (script) parts.push(...collect(body, depth + 1, found));
        else found.data.push(body);
      }
    } else if (type === "CallExpr") {
      const part = partOf(reader, node.Assigns ?? [], node.Args ?? []);
      parts.push(part);
      found.evaluates ??= namedAt(part);
      const inner = innerScript(part);
      // A script bash would run but this parser rejects makes the whole text unreadable
      // (rules then read it roughly, and never allow it).
      if (inner !== undefined && depth < MAX_DEPTH) parts.push(...collect(inner, depth + 1, found));
    } else if (type === "DeclClause") {
      // export/declare/local/readonly/typeset: the keyword, then its operands as written.
      const part = partOf(reader, [], []);
      const words = [
        reader.text(node.Variant),
        ...(node.Args ?? []).map((a: Node) => reader.text(a)),
      ];
      parts.push({ ...part, words, dynamic: words.map(() => true), text: words.join(" ") });
      // A name with a subscript or from an expansion (`declare "$n=1"`, `local 'a[$(…)]'`).
      found.evaluates ??= words.find((word, i) =>
        i > 0 && (/^[^=]*[[$`]/.test(word) || setsPrompt(word))
      );
    } else if (type === "Redirect") {
      const part = writePart(reader, node);
      if (part) parts.push(part);
    }
    return true;
  });
  return parts;
}

/**
 * Parses a bash command and lists its parts. A text bash would reject (an unclosed quote,
 * `$(`, or `(`) is an error: rules never allow what they cannot read.
 *
 * @param source The command, as given to `bash -c`.
 * @returns The parts and the command reprinted in a normal form, or the parse error.
 *
 * @example A chain is two parts
 * ```ts
 * import { parseShell } from "@tack/agent/plugins/rules";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const parsed = parseShell(`git status; r"m" -rf $(echo x) > out.txt`);
 * if (parsed.kind !== "ok") throw new Error(parsed.message);
 * deepEqual(parsed.parts.map((p) => p.text), ["git status", "rm -rf $(echo x)", "echo x", "> out.txt"]);
 * equal(parseShell("echo $(").kind, "error");
 * ```
 */
export function parseShell(source: string): ShellParse {
  try {
    const found: Found = { data: [] };
    // mvdan/sh reads a carriage return as a blank; bash as a character of a word.
    if (source.includes("\r")) found.evaluates = "\\r";
    const parts = collect(source, 0, found);
    const normalized = syntax.NewPrinter().Print(syntax.NewParser().Parse(source, "")).trim();
    const parse: ShellParse = { kind: "ok", parts, normalized };
    if (found.evaluates !== undefined) parse.evaluates = found.evaluates;
    if (found.data.length > 0) parse.data = found.data;
    return parse;
  } catch (error) {
    const message = (error as { Error?: () => string })?.Error?.() ?? String(error);
    return { kind: "error", message: `Cannot parse the command as bash: ${message}` };
  }
}
