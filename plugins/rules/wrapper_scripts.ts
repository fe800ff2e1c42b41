/**
 * The scripts wrappers run from their own options: `env -S '…'`, `su … -c '…'`, `flock f -c '…'`.
 * Each takes a call's words and which of them are dynamic (not known before it runs).
 *
 * @module
 */

import { programName, wrapperTakesValue } from "./shell_pattern.ts";
import { quoteShellWord, shellScript } from "./shell_script.ts";

/**
 * `env -S '…'` (`-iS'…'`, `--split-string=…`, an abbreviation of it): the string env splits
 * into a command, looked for among env's own options only (getopt's reading: `-u` and `-C`
 * take the rest of their word or the next one).
 *
 * @param words The call's words.
 * @param dynamic Which words are not known before the call runs.
 * @returns The script, or `undefined` when there is none or it is not known.
 *
 * @example
 * ```ts
 * import { envSplitString } from "./wrapper_scripts.ts";
 * import { equal } from "node:assert/strict";
 *
 * const words = ["env", "-S", "rm -rf x"];
 * equal(envSplitString(words, words.map(() => false)), "rm -rf x");
 * const more = ["env", "-S", "bash -c", "rm -rf x"];
 * equal(envSplitString(more, more.map(() => false)), "bash -c 'rm -rf x'");
 * ```
 */
export function envSplitString(
  words: readonly string[],
  dynamic: readonly boolean[],
): string | undefined {
  let split: string | undefined;
  let i = 1;
  // env's own options (getopt's reading: `-u` and `-C` take the rest of their word or the
  // next one), `-S` among them, up to its first operand or `--`.
  for (; i < words.length && !dynamic[i]; i++) {
    const word = words[i];
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue; // NAME=value
    if (word === "--") {
      i++;
      break;
    }
    if (word === "-" || !word.startsWith("-")) break; // the command
    const next = dynamic[i + 1] === false ? words[i + 1] : undefined;
    if (word.startsWith("--")) {
      const [option, ...value] = word.split("=");
      if (option.length > 3 && "--split-string".startsWith(option)) {
        if (value.length > 0) split = value.join("=");
        else if (next === undefined) return undefined;
        else (split = next, i++);
        continue;
      }
    } else {
      // In a cluster, the first letter that takes a value takes the rest (`-uSOMEVAR`).
      const at = [...word].findIndex((letter, k) =>
        k > 0 && (letter === "S" || wrapperTakesValue("env", `-${letter}`))
      );
      if (at > 0 && word[at] === "S") {
        const glued = word.slice(at + 1);
        if (glued !== "") split = glued;
        else if (next === undefined) return undefined;
        else (split = next, i++);
        continue;
      }
    }
    if (wrapperTakesValue("env", word)) i++;
  }
  if (split === undefined) return undefined;
  // The command env runs is the split string, then its operands (`env -S 'bash -c' '…'`).
  const rest = words.slice(i).map((word, k) => dynamic[i + k] ? word : quoteShellWord(word));
  return [split, ...rest].join(" ");
}

/** su's and runuser's long options (util-linux), and what each takes. */
const SU_LONG: Readonly<Record<string, "script" | "value" | "flag">> = {
  "--command": "script",
  "--session-command": "script",
  "--group": "value",
  "--supp-group": "value",
  "--shell": "value",
  "--whitelist-environment": "value",
  "--user": "value",
  "--fast": "flag",
  "--login": "flag",
  "--preserve-environment": "flag",
  "--pty": "flag",
  "--help": "flag",
  "--version": "flag",
};

/** Their short options that take a value: `c` the script, the others a name. */
const SU_SHORT_VALUES = new Set(["c", "g", "G", "s", "w", "u"]);

/**
 * What `su [options] [user] [shell arguments]` and `runuser` (without `-u`) have their shell
 * run: the command given to `-c` (`--command`, `--session-command`); else the shell's own
 * arguments (`su root -- -ec '…'` runs the script too, `su root -- -s` reads stdin); with
 * none, the script the shell reads from stdin (`su <<< '…'`). Read as their getopt_long
 * reads them: options anywhere (`su root -c …`), a value glued to its letter (`-c'…'`,
 * `-lc'…'`), a long name abbreviated (`--comm`); after `--`, only the user and the shell's
 * arguments.
 *
 * @param words The call's words.
 * @param dynamic Which words are not known before the call runs.
 * @returns The script, `"stdin"`, or `undefined` when it runs a file, runs a command itself
 * (`runuser -u user -- cmd`), or is not known.
 *
 * @example
 * ```ts
 * import { suCommand } from "./wrapper_scripts.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const words = ["runuser", "root", "-c", "rm -rf x"];
 * deepEqual(suCommand(words, words.map(() => false)), { script: "rm -rf x" });
 * // `su -c'rm -rf x'`, as bash hands it over: the script glued to `-c`
 * deepEqual(suCommand(["su", "-crm -rf x"], [false, false]), { script: "rm -rf x" });
 * equal(suCommand(["su"], [false]), "stdin");
 * ```
 */
export function suCommand(
  words: readonly string[],
  dynamic: readonly boolean[],
): { script: string } | "stdin" | undefined {
  const next = (i: number) => (dynamic[i] === false ? { script: words[i] } : undefined);
  const positional: number[] = []; // the user, then the shell's arguments
  // `runuser -u user -- cmd` runs the command itself (a wrapper), not through a shell; with a
  // `-c` too, runuser refuses to run at all: the script is still reported, to be safe.
  let runsCommand = false;
  for (let i = 1; i < words.length; i++) {
    // A word not known before the call (`su "$user" -c …`) is taken for an operand.
    if (dynamic[i]) {
      positional.push(i);
      continue;
    }
    const word = words[i];
    if (word === "--") {
      for (let k = i + 1; k < words.length; k++) positional.push(k);
      break;
    }
    if (word.startsWith("--")) {
      const at = word.indexOf("=");
      const name = at < 0 ? word : word.slice(0, at);
      const matches = Object.keys(SU_LONG).filter((long) => long.startsWith(name));
      const option = SU_LONG[name] ? name : matches.length === 1 ? matches[0] : undefined;
      if (option === undefined) continue; // su refuses it: nothing runs
      if (option === "--user") runsCommand = true;
      const kind = SU_LONG[option];
      if (kind === "script") return at < 0 ? next(i + 1) : { script: word.slice(at + 1) };
      if (kind === "value" && at < 0) i++;
    } else if (word === "-" || !word.startsWith("-")) {
      if (word !== "-") positional.push(i); // `-` alone is `--login`
    } else {
      // In a cluster, the first letter that takes a value takes the rest (`-lc'…'`).
      const letter = [...word.slice(1)].findIndex((l) => SU_SHORT_VALUES.has(l)) + 1;
      if (letter === 0) continue;
      if (word[letter] === "u") runsCommand = true;
      const glued = word.slice(letter + 1);
      if (word[letter] === "c") return glued !== "" ? { script: glued } : next(i + 1);
      if (glued === "") i++;
    }
  }
  if (runsCommand) return undefined;
  const shell = positional.slice(1);
  if (shell.some((k) => dynamic[k])) return undefined;
  return shellScript(["sh", ...shell.map((k) => words[k])], [false, ...shell.map(() => false)]);
}

/**
 * The script word `i` gives when it is a `-c` option (`-c '…'`, `-lc '…'`, a long name followed
 * by the script or `=script`); `null` when it is not one, `undefined` when the script is not
 * known before the call runs.
 */
function commandOption(
  words: readonly string[],
  dynamic: readonly boolean[],
  i: number,
  longNames: readonly string[],
): string | undefined | null {
  const word = words[i];
  if (/^-[a-zA-Z]*c$/.test(word) || longNames.includes(word)) {
    return dynamic[i + 1] === false ? words[i + 1] : undefined;
  }
  const long = longNames.find((name) => word.startsWith(`${name}=`));
  return long === undefined ? null : word.slice(long.length + 1);
}

/**
 * `flock [options] file -c '…'`: the command given to flock's own `-c`.
 *
 * @param words The call's words.
 * @param dynamic Which words are not known before the call runs.
 * @returns The script, or `undefined` when there is none or it is not known.
 *
 * @example
 * ```ts
 * import { flockCommand } from "./wrapper_scripts.ts";
 * import { equal } from "node:assert/strict";
 *
 * const words = ["flock", "/tmp/lock", "-c", "rm -rf x"];
 * equal(flockCommand(words, words.map(() => false)), "rm -rf x");
 * ```
 */
export function flockCommand(
  words: readonly string[],
  dynamic: readonly boolean[],
): string | undefined {
  for (let i = 1; i < words.length && !dynamic[i]; i++) {
    const word = words[i];
    const given = commandOption(words, dynamic, i, ["--command"]);
    if (given !== null) return given;
    if (wrapperTakesValue("flock", word)) i++;
    else if (!word.startsWith("-")) {
      // The lock file: `-c` may follow it; anything else is the command itself.
      const after = words[i + 1];
      return after === "-c" || after === "--command"
        ? (dynamic[i + 2] === false ? words[i + 2] : undefined)
        : undefined;
    }
  }
  return undefined;
}

/**
 * What `sg [-] group [-c] command` and `newgrp [-] [group]` run: sg hands its command to
 * `/bin/sh -c`; with none, and newgrp always, they start a shell that reads its script from
 * stdin.
 *
 * @param words The call's words (`sg` or `newgrp` first).
 * @param dynamic Which words are not known before the call runs.
 * @returns The script, `"stdin"`, or `undefined` when it is not known.
 *
 * @example
 * ```ts
 * import { groupShellScript } from "./wrapper_scripts.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const words = ["sg", "root", "-c", "rm -rf x"];
 * deepEqual(groupShellScript(words, words.map(() => false)), { script: "rm -rf x" });
 * equal(groupShellScript(["newgrp", "root"], [false, false]), "stdin");
 * ```
 */
export function groupShellScript(
  words: readonly string[],
  dynamic: readonly boolean[],
): { script: string } | "stdin" | undefined {
  let i = words[1] === "-" ? 2 : 1;
  if (programName(words[0] ?? "") === "newgrp" || i + 1 >= words.length) return "stdin";
  i++; // the group
  if (words[i] === "-c") i++;
  if (i >= words.length) return "stdin";
  return dynamic[i] ? undefined : { script: words.slice(i).join(" ") };
}

/** sudo's and doas's options that take a value (a cluster's letter after one is its value). */
const SUDO_VALUE_LETTERS = new Set([..."ugCDhprtUTRac"]);

/**
 * Whether `sudo -s`/`-i` (`--shell`, `--login`) or `doas -s` is given no command: it starts
 * a shell that reads its script from stdin (`sudo -s <<< '…'`).
 *
 * @param words The call's words (`sudo` or `doas` first).
 * @param hasCommand Whether a command follows its options.
 * @returns Whether the shell reads stdin.
 *
 * @example
 * ```ts
 * import { sudoShellReadsStdin } from "./wrapper_scripts.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(sudoShellReadsStdin(["sudo", "-u", "root", "-s"], false), true);
 * equal(sudoShellReadsStdin(["sudo", "-s", "ls"], true), false);
 * ```
 */
export function sudoShellReadsStdin(words: readonly string[], hasCommand: boolean): boolean {
  if (hasCommand) return false;
  return words.slice(1).some((word) =>
    word === "--shell" || word === "--login" ||
    (/^-[A-Za-z]+$/.test(word) &&
      [...word.slice(1)].some((letter, k) =>
        (letter === "s" || letter === "i") &&
        ![...word.slice(1, k + 1)].some((before) => SUDO_VALUE_LETTERS.has(before))
      ))
  );
}
