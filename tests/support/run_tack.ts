/**
 * The `tack` CLI run as a user runs it: a real `deno run` of `cli/main.ts` in a folder, with
 * the repository's config, a clean environment, no terminal, and a fake API key.
 *
 * @module
 */

import { join } from "node:path";
import { childEnv } from "./child_env.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const MAIN = join(ROOT, "cli", "main.ts");

/** What a run printed and how it ended. */
export interface TackRun {
  code: number;
  stdout: string;
  /** Without Deno's warning that permission sets are experimental. */
  stderr: string;
}

/** Options of {@linkcode runTack}. */
export interface RunTackOptions {
  /** Variables over the clean environment (`XDG_STATE_HOME`, `HOME`, …). */
  env?: Record<string, string>;
  /** Deno's flags (default `-A`). */
  flags?: readonly string[];
  /** Kill the run after this long (a run that would never end fails the test). */
  timeoutMs?: number;
}

/**
 * Runs `tack` with `args` in `cwd`.
 *
 * @param cwd The folder it runs in.
 * @param args Its arguments.
 * @param options Environment, Deno flags, a time bound.
 * @returns Its exit code and output.
 */
export async function runTack(
  cwd: string,
  args: readonly string[],
  options: RunTackOptions = {},
): Promise<TackRun> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...options.flags ?? ["-A"], `--config=${ROOT}deno.json`, MAIN, ...args],
    cwd,
    env: childEnv({ NO_COLOR: "1", OPENAI_API_KEY: "sk-test", ...options.env }),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs),
  }).output();
  const text = (bytes: Uint8Array) =>
    new TextDecoder().decode(bytes).split("\n")
      .filter((line) => !line.includes("Permissions in the config file is an experimental"))
      .join("\n");
  return { code: output.code, stdout: text(output.stdout), stderr: text(output.stderr) };
}
