/**
 * How a shell is given its script: `-c '…'`, stdin, or a file.
 *
 * @module
 */

/** Options of a shell that take the next word as their value (`bash -o errexit -c …`). */
const SHELL_VALUE_OPTIONS = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);

/**
 * How a shell call is given its script: with `-c`, its first operand; else, with no operand,
 * `-s`, or `/dev/stdin`, it reads it from stdin (`"stdin"`); else it runs a file (`undefined`).
 *
 * @param words The call's words, the shell's name first.
 * @param dynamic Which words are not known before the call runs.
 * @returns The script, `"stdin"`, or `undefined` (a file, or not known).
 *
 * @example Options around `-c`, and stdin
 * ```ts
 * import { shellScript } from "./shell_script.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const words = ["bash", "-o", "pipefail", "-ec", "rm -rf x"];
 * deepEqual(shellScript(words, words.map(() => false)), { script: "rm -rf x" });
 * equal(shellScript(["sh", "-s"], [false, false]), "stdin");
 * equal(shellScript(["sh", "run.sh"], [false, false]), undefined);
 * ```
 */
export function shellScript(
  words: readonly string[],
  dynamic: readonly boolean[],
): { script: string } | "stdin" | undefined {
  let command = false;
  let stdin = false;
  for (let i = 1; i < words.length; i++) {
    if (dynamic[i]) return undefined;
    const word = words[i];
    if (word === "--" || word === "-") {
      if (command) return dynamic[i + 1] === false ? { script: words[i + 1] } : undefined;
      return i + 1 >= words.length || stdin || isStdinPath(words[i + 1]) ? "stdin" : undefined;
    }
    if (SHELL_VALUE_OPTIONS.has(word)) i++;
    else if (/^[-+][a-zA-Z]+$/.test(word)) {
      if (word[0] === "-") {
        command ||= word.includes("c");
        stdin ||= word.includes("s");
      }
      // Each o or O of a cluster takes the next word: `-euo pipefail`, `-co pipefail`.
      i += word.slice(1).match(/[oO]/g)?.length ?? 0;
    } else if (!word.startsWith("--")) {
      if (command) return { script: word };
      return stdin || isStdinPath(word) ? "stdin" : undefined;
    }
  }
  return command ? undefined : "stdin";
}

/**
 * Whether a path is the caller's stdin: `/dev/stdin`, `/dev/fd/0`, `/proc/<self|pid>/fd/0`.
 *
 * @param word A word, if any.
 * @returns Whether it names stdin.
 *
 * @example
 * ```ts
 * import { isStdinPath } from "./shell_script.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(isStdinPath("/proc/self/fd/0"), true);
 * equal(isStdinPath("run.sh"), false);
 * ```
 */
export function isStdinPath(word: string | undefined): boolean {
  return word !== undefined &&
    /^(?:\/dev\/stdin|\/dev\/fd\/0|\/proc\/(?:self|thread-self|\d+)\/fd\/0)$/.test(word);
}

/**
 * Quotes a word for display so it reads back as the same single word.
 *
 * @param word The word's value.
 * @returns The word, single-quoted when it has characters the shell treats specially.
 *
 * @example
 * ```ts
 * import { quoteShellWord } from "@tack/agent/plugins/rules";
 * import { equal } from "node:assert/strict";
 *
 * equal(quoteShellWord("a b"), "'a b'");
 * equal(quoteShellWord("--force"), "--force");
 * ```
 */
export function quoteShellWord(word: string): string {
  if (/^[A-Za-z0-9_\-.,:/=@%+^~]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
