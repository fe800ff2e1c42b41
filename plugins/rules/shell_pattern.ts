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
/**
 * How a wrapper's own arguments end: the options that take the next word as their value
 * (long ones also by an unambiguous prefix, as GNU getopt reads them), and how many operands
 * come before the command (`timeout 5 cmd`, `flock file cmd`, `chroot dir cmd`).
 */
interface Wrapper {
  values: readonly string[];
  operands?: number;
  /** Options may also follow the operands (`setarch x86_64 -R cmd`). */
  optionsAfter?: boolean;
}

const WRAPPERS: Record<string, Wrapper> = {
  sudo: {
    values: ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group"]
      .concat(["--close-from", "--chdir", "--host", "--prompt", "--role", "--type"])
      .concat(["--other-user", "--command-timeout", "-R", "--chroot", "-a", "--auth-type"])
      .concat(["-c", "--login-class"]),
  },
  doas: { values: ["-u", "-C", "-a"] },
  env: { values: ["-u", "-C", "--unset", "--chdir"] },
  command: { values: [] },
  builtin: { values: [] },
  exec: { values: ["-a"] },
  nohup: { values: [] },
  nice: { values: ["-n", "--adjustment"] },
  time: { values: ["-f", "-o", "--format", "--output"] },
  timeout: { values: ["-s", "-k", "--signal", "--kill-after"], operands: 1 },
  stdbuf: { values: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  setsid: { values: [] },
  ionice: { values: ["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"] },
  xargs: {
    values: ["-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter"]
      // Not `--max-lines`, `--replace`, `--eof`: their value is optional, so only `=` gives one.
      .concat(["--max-args", "--max-procs", "--max-chars", "--process-slot-var"]),
  },
  watch: { values: ["-n", "-d", "--interval"] },
  unbuffer: { values: [] },
  flock: { values: ["-w", "-E", "--timeout", "--wait", "--conflict-exit-code"], operands: 1 },
  taskset: { values: [], operands: 1 },
  chrt: { values: [], operands: 1 },
  prlimit: { values: ["-p", "--pid", "-o", "--output"] },
  unshare: {
    values: ["-S", "-G", "-R", "-w", "-l", "--setuid", "--setgid", "--root", "--wd"]
      .concat(["--propagation", "--setgroups", "--monotonic", "--boottime", "--load-interp"]),
  },
  nsenter: {
    values: ["-t", "-S", "-G", "-w", "-r", "--target", "--setuid", "--setgid", "--wd"]
      .concat(["--root", "--wdns"]),
  },
  "ssh-agent": { values: ["-a", "-E", "-t", "-P", "-O"] },
  "dbus-run-session": { values: [] },
  // `time -p -- cmd`: the parser leaves the `--` as the command's first word.
  "--": { values: [] },
  setpriv: {
    values: ["--reuid", "--regid", "--ruid", "--rgid", "--euid", "--egid", "--groups"]
      .concat(["--inh-caps", "--ambient-caps", "--bounding-set", "--securebits"])
      .concat(["--pdeathsig", "--selinux-label", "--apparmor-profile"]),
  },
  runuser: { values: ["-u", "-g", "-G", "--user", "--group", "--supp-group"] },
  setarch: { values: [], operands: 1, optionsAfter: true },
  linux32: { values: [] },
  linux64: { values: [] },
  strace: {
    values: ["-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-S", "-X", "-P", "-U"]
      .concat(["--output", "--attach", "--string-limit", "--user", "--env", "--columns"])
      .concat(["--trace-path", "--trace", "--signal", "--status", "--summary-columns"])
      // Not `--seccomp-bpf` (a flag) nor `--decode-fds` (its value is optional).
      .concat(["--const-print-style", "--detach-on"]),
  },
  ltrace: { values: ["-o", "-e", "-p", "-s", "-u", "-a", "-n"] },
  fakeroot: { values: ["-s", "-i", "-l", "--lib", "--faked"] },
  chroot: { values: ["--userspec", "--groups"], operands: 1 },
  busybox: { values: [] },
};

const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/**
 * A command word's program name: its basename (`/bin/rm` is `rm`).
 *
 * @param word The word.
 * @returns The name.
 *
 * @example
 * ```ts
 * import { programName } from "./shell_pattern.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(programName("/usr/bin/env"), "env");
 * ```
 */
export function programName(word: string): string {
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

/**
 * `rm --interactive=never` (`no`, `none`, or a prefix of them, as GNU's argmatch accepts; the
 * option's name abbreviated too): it deletes without asking, as `-f` does.
 */
function neverAsks(program: string, word: string): boolean {
  const at = word.indexOf("=");
  if (program !== "rm" || at < 3) return false;
  const value = word.slice(at + 1);
  return "--interactive".startsWith(word.slice(0, at)) && value !== "" &&
    ["never", "no", "none"].some((never) => never.startsWith(value));
}

function normalizeFlags(program: string, word: string): string[] {
  const aliases = ALIASES[program] ?? {};
  if (neverAsks(program, word)) return ["-f"];
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

/** Whether a wrapper's option takes the next word: by name, or a long one by its prefix. */
function takesValue(wrapper: Wrapper, word: string): boolean {
  if (word.startsWith("--")) {
    if (word.includes("=") || word.length === 2) return false;
    return wrapper.values.some((name) => name.startsWith("--") && name.startsWith(word));
  }
  // A short cluster, read as getopt does: the first letter that takes a value takes the rest
  // of the word (`-uroot`, `-IFILE`), or the next word when it is the last (`-la name`).
  for (let at = 1; at < word.length; at++) {
    if (wrapper.values.includes(`-${word[at]}`)) return at === word.length - 1;
  }
  return false;
}

/**
 * Whether one of a wrapper's own options takes the next word as its value (`sudo -u root`,
 * `xargs --max-args 1`; not `-uroot` or `--unset=X`).
 *
 * @param program The wrapper (`env`, `flock`, `sudo`, …).
 * @param word The option as written.
 * @returns `false` too for a program that is not a known wrapper.
 *
 * @example
 * ```ts
 * import { wrapperTakesValue } from "./shell_pattern.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(wrapperTakesValue("sudo", "-u"), true);
 * equal(wrapperTakesValue("sudo", "-uroot"), false);
 * ```
 */
export function wrapperTakesValue(program: string, word: string): boolean {
  const wrapper = WRAPPERS[program];
  return wrapper !== undefined && takesValue(wrapper, word);
}

/** The command a wrapper runs, or `undefined` when `words` is not a wrapper call. */
function unwrap(words: readonly string[], dynamic: readonly boolean[]): number | undefined {
  const name = programName(words[0] ?? "");
  if (dynamic[0]) return undefined;
  const wrapper = WRAPPERS[name];
  if (!wrapper) return undefined;
  let operands = wrapper.operands ?? 0;
  let i = 1;
  const skipOptions = () => {
    while (i < words.length) {
      const word = words[i];
      if (word === "--") {
        i++;
        return;
      }
      // `env X=1 cmd`, `sudo X=1 cmd`: variables for the command, before it.
      if ((name === "env" || name === "sudo") && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) i++;
      else if (word.startsWith("-") && word !== "-") i += takesValue(wrapper, word) ? 2 : 1;
      else return;
    }
  };
  skipOptions();
  // Operands before the command: timeout's duration, flock's file, chroot's folder, …
  for (; operands > 0 && i < words.length; operands--) i++;
  if (wrapper.optionsAfter) skipOptions();
  return i < words.length ? i : undefined;
}

/** Where each `find -exec`/`-execdir`/`-ok` command starts and ends (`;`, or `+` after `{}`). */
function findCommands(words: readonly string[], dynamic: readonly boolean[]): [number, number][] {
  const commands: [number, number][] = [];
  for (let at = 1; at < words.length; at++) {
    if (dynamic[at] || !FIND_EXEC.has(words[at])) continue;
    let end = at + 1;
    while (
      end < words.length &&
      !(words[end] === ";" || (words[end] === "+" && words[end - 1] === "{}"))
    ) end++;
    commands.push([at + 1, end]);
    at = end;
  }
  return commands;
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
  if (part.kind !== "call") return [{ words: part.words, dynamic: part.dynamic }];
  return viewsOf(part.words, part.dynamic, 0);
}

function viewsOf(
  words: string[],
  dynamic: boolean[],
  depth: number,
): { words: string[]; dynamic: boolean[] }[] {
  const views = [{ words, dynamic }];
  if (depth >= 8) return views;
  if (programName(words[0] ?? "") === "find" && !dynamic[0]) {
    for (const [start, end] of findCommands(words, dynamic)) {
      views.push(...viewsOf(words.slice(start, end), dynamic.slice(start, end), depth + 1));
    }
    return views;
  }
  const at = unwrap(words, dynamic);
  if (at !== undefined) views.push(...viewsOf(words.slice(at), dynamic.slice(at), depth + 1));
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
  if (words.length === 0 || dynamic[0] || programName(words[0]) !== pattern.program) return false;
  const flags = new Set<string>();
  const others = new Set<string>();
  let options = true;
  let pushing = false;
  for (let i = 1; i < words.length; i++) {
    if (dynamic[i]) continue;
    const word = words[i];
    if (options && word === "--") options = false;
    else if (options && word.startsWith("-") && word !== "-") {
      for (const flag of normalizeFlags(pattern.program, word)) flags.add(flag);
    } else {
      // git push origin +main: a refspec with "+" after `push` is a forced update of that ref.
      if (pushing && /^\+./.test(word)) flags.add("-f");
      if (pattern.program === "git" && word === "push") pushing = true;
      others.add(word);
    }
  }
  return pattern.flags.every((flag) => flags.has(flag)) &&
    pattern.words.every((word) => others.has(word));
}
