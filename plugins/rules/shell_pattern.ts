/**
 * Shell command patterns (`{ "shell": "rm -rf" }`): a program and the flags and words it
 * must have, matched whatever the spelling (`rm -r -f`, `rm -Rf`, `rm --recursive
 * --force`) and through the wrappers that run another command (`sudo`, `env`, `command`,
 * `xargs`, `find -exec`, …).
 *
 * @module
 */

import type { ShellPart } from "./parse_shell.ts";

/** A compiled shell command pattern. */
export interface ShellPattern {
  /** The program's name (matched against the basename: `/bin/rm` is `rm`). */
  program: string;
  /** Flags it must have, normalized (`-rf` is `-r`, `-f`). */
  flags: string[];
  /** Other words it must have, anywhere after the program (`push` in `git push --force`). */
  words: string[];
}

/** Flag spellings that mean the same, per program. */
const ALIASES: Record<string, Record<string, string>> = {
  rm: { "-R": "-r", "--recursive": "-r", "--force": "-f", "--dir": "-d" },
  cp: { "-R": "-r", "--recursive": "-r", "--force": "-f" },
  mv: { "--force": "-f" },
  chmod: { "--recursive": "-R" },
  chown: { "--recursive": "-R" },
  git: { "--force": "-f", "--force-with-lease": "-f" },
  shred: { "--remove": "-u" },
};

/** Programs whose options are long with one dash (`find -delete`): never split. */
const SINGLE_DASH_LONG = new Set(["find"]);

/** Wrappers: their options that take a value (so the value is not the command). */
const WRAPPERS: Record<string, Set<string>> = {
  sudo: new Set(["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"]),
  doas: new Set(["-u", "-C"]),
  env: new Set(["-u", "-C", "--unset", "--chdir"]),
  command: new Set(),
  builtin: new Set(),
  exec: new Set(["-a"]),
  nohup: new Set(),
  nice: new Set(["-n", "--adjustment"]),
  time: new Set(["-f", "-o"]),
  timeout: new Set(["-s", "-k", "--signal", "--kill-after"]),
  stdbuf: new Set(["-i", "-o", "-e"]),
  setsid: new Set(),
  ionice: new Set(["-c", "-n", "-p"]),
  xargs: new Set(["-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter"]),
  watch: new Set(["-n", "-d", "--interval"]),
  unbuffer: new Set(),
};

const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

function basename(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/**
 * A long option by its name or, as GNU getopt and git accept, an unambiguous prefix of it
 * (`--rec` is `--recursive`): the flag it stands for when every long name it can begin
 * points to the same one, else the name as written.
 */
function longFlag(aliases: Record<string, string>, name: string): string {
  if (aliases[name] !== undefined) return aliases[name];
  const targets = new Set(
    Object.keys(aliases).filter((long) => long.startsWith("--") && long.startsWith(name))
      .map((long) => aliases[long]),
  );
  return name.length > 2 && targets.size === 1 ? [...targets][0] : name;
}

function normalizeFlags(program: string, word: string): string[] {
  const aliases = ALIASES[program] ?? {};
  if (word.startsWith("--")) return [longFlag(aliases, word.split("=")[0])];
  if (SINGLE_DASH_LONG.has(program) || !/^-[A-Za-z0-9]+$/.test(word)) return [word];
  return [...word.slice(1)].map((letter) => aliases[`-${letter}`] ?? `-${letter}`);
}

/**
 * Compiles a pattern like `rm -rf`, `find -delete` or `git push --force`.
 *
 * @param text The program, then the flags and words it must have.
 * @returns The pattern.
 * @throws {TypeError} When the text is empty.
 *
 * @example One spelling stands for all
 * ```ts
 * import { compileShellPattern } from "@tack/agent/plugins/rules";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(compileShellPattern("rm --recursive -f"), { program: "rm", flags: ["-r", "-f"], words: [] });
 * ```
 */
export function compileShellPattern(text: string): ShellPattern {
  const [program, ...rest] = text.trim().split(/\s+/).filter((word) => word !== "");
  if (!program) throw new TypeError("a shell pattern needs a program name");
  const flags = new Set<string>();
  const words: string[] = [];
  for (const word of rest) {
    if (word.startsWith("-") && word !== "-") {
      for (const flag of normalizeFlags(program, word)) flags.add(flag);
    } else words.push(word);
  }
  return { program, flags: [...flags], words };
}

/** The command a wrapper runs, or `undefined` when `words` is not a wrapper call. */
function unwrap(words: readonly string[], dynamic: readonly boolean[]): number | undefined {
  const name = basename(words[0] ?? "");
  if (dynamic[0]) return undefined;
  const takesValue = WRAPPERS[name];
  if (!takesValue) return undefined;
  let i = 1;
  while (i < words.length) {
    const word = words[i];
    if (word === "--") return i + 1;
    if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) i++;
    else if (word.startsWith("-") && word !== "-") i += takesValue.has(word) ? 2 : 1;
    else return name === "timeout" ? i + 1 : i; // timeout: the duration, then the command
  }
  return undefined;
}

/**
 * Every command a part runs, as word lists: the part itself, the command inside each
 * wrapper (`sudo -u root env X=1 rm -rf /` gives three: `sudo …`, `env …`, `rm -rf /`),
 * and the command `find … -exec` runs.
 *
 * @param part A part from `parseShell`.
 * @returns The views, the part's own first.
 *
 * @example Through sudo and xargs
 * ```ts
 * import { parseShell, shellPartViews } from "@tack/agent/plugins/rules";
 * import { deepEqual } from "node:assert/strict";
 *
 * const parsed = parseShell("sudo xargs rm -rf");
 * if (parsed.kind !== "ok") throw new Error(parsed.message);
 * deepEqual(shellPartViews(parsed.parts[0]).map((v) => v.words.join(" ")), [
 *   "sudo xargs rm -rf", "xargs rm -rf", "rm -rf",
 * ]);
 * ```
 */
export function shellPartViews(
  part: ShellPart,
): { words: string[]; dynamic: boolean[] }[] {
  const views = [{ words: part.words, dynamic: part.dynamic }];
  if (part.kind !== "call") return views;
  for (let depth = 0; depth < 8; depth++) {
    const { words, dynamic } = views[views.length - 1];
    const program = basename(words[0] ?? "");
    if (program === "find" && !dynamic[0]) {
      const at = words.findIndex((word, i) => FIND_EXEC.has(word) && !dynamic[i]);
      if (at === -1) break;
      const end = words.findIndex((word, i) => i > at && (word === ";" || word === "+"));
      const stop = end === -1 ? words.length : end;
      views.push({ words: words.slice(at + 1, stop), dynamic: dynamic.slice(at + 1, stop) });
      continue;
    }
    const at = unwrap(words, dynamic);
    if (at === undefined || at >= words.length) break;
    views.push({ words: words.slice(at), dynamic: dynamic.slice(at) });
  }
  return views;
}

/**
 * Whether a command (one view of a part) matches a pattern: the same program, every flag
 * of the pattern in any spelling, every word of it. Words with expansions (`$x`) count as
 * neither: a pattern does not see through variables.
 *
 * @param pattern The compiled pattern.
 * @param words The command's words.
 * @param dynamic Which words have expansions.
 * @returns Whether it matches.
 *
 * @example
 * ```ts
 * import { compileShellPattern, matchesShellPattern } from "@tack/agent/plugins/rules";
 * import { equal } from "node:assert/strict";
 *
 * const pattern = compileShellPattern("rm -rf");
 * equal(matchesShellPattern(pattern, ["/bin/rm", "-R", "--force", "x"], [false, false, false, false]), true);
 * equal(matchesShellPattern(pattern, ["rm", "--", "-rf"], [false, false, false]), false);
 * ```
 */
export function matchesShellPattern(
  pattern: ShellPattern,
  words: readonly string[],
  dynamic: readonly boolean[],
): boolean {
  if (words.length === 0 || dynamic[0] || basename(words[0]) !== pattern.program) return false;
  const flags = new Set<string>();
  const others = new Set<string>();
  let options = true;
  for (let i = 1; i < words.length; i++) {
    if (dynamic[i]) continue;
    const word = words[i];
    if (options && word === "--") options = false;
    else if (options && word.startsWith("-") && word !== "-") {
      for (const flag of normalizeFlags(pattern.program, word)) flags.add(flag);
    } else {
      // git push origin +main: a refspec with "+" is a forced update of that ref.
      if (pattern.program === "git" && /^\+./.test(word)) flags.add("-f");
      others.add(word);
    }
  }
  return pattern.flags.every((flag) => flags.has(flag)) &&
    pattern.words.every((word) => others.has(word));
}
