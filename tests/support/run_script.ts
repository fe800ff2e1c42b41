// Runs a script in a new deno process, its source on stdin (no file to clean up).

/** What the child printed, and how it ended. */
export interface ScriptOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `source` with `deno run <flags> -` and collects its output.
 *
 * @param source The script.
 * @param flags The `deno run` flags before `-`.
 * @param options Where it runs and its environment (with `clearEnv`, only `env`).
 * @returns Its exit code and output.
 *
 * @example
 * ```ts ignore
 * import { runScript } from "./run_script.ts";
 * const { stdout } = await runScript(`console.log(1 + 1)`, []);
 * ```
 */
export async function runScript(
  source: string,
  flags: string[],
  options: { cwd?: string; env?: Record<string, string>; clearEnv?: boolean } = {},
): Promise<ScriptOutput> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, "-"],
    cwd: options.cwd,
    env: options.env,
    clearEnv: options.clearEnv,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(source));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** What {@linkcode outputWithin} collected. */
export interface BoundedOutput extends ScriptOutput {
  /** `"SIGKILL"` when the child outlived the bound and was killed: a hang. */
  signal: Deno.Signal | null;
}

/**
 * Runs a command to its end, killing it (SIGKILL) if it outlives `ms`: a test of a hang fails
 * on the child's `signal` instead of holding the suite.
 *
 * @param command The command (stdout and stderr piped).
 * @param ms How long it may run.
 * @returns Its exit code, signal and output.
 *
 * @example
 * ```ts ignore
 * import { outputWithin } from "./run_script.ts";
 * const command = new Deno.Command("true", { stdout: "piped", stderr: "piped" });
 * const { signal } = await outputWithin(command, 20_000);
 * ```
 */
export async function outputWithin(command: Deno.Command, ms: number): Promise<BoundedOutput> {
  const child = command.spawn();
  const guard = setTimeout(() => child.kill("SIGKILL"), ms);
  try {
    const { code, signal, stdout, stderr } = await child.output();
    const decoder = new TextDecoder();
    return { code, signal, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
  } finally {
    clearTimeout(guard);
  }
}
