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
