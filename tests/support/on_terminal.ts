// Runs a host script on a terminal, to see whether Deno would prompt for a permission.
import { childEnv } from "./child_env.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/**
 * Runs `source` in a new host process on a terminal (`script` gives it one, so Deno would
 * prompt), with `flags`, from the repository's folder: the first permission prompt it
 * shows (the process is killed then), or what it printed.
 *
 * @param source The host script's source.
 * @param flags The `deno run` flags before the script.
 * @param env Variables for the host (over the passed ones).
 * @returns The prompt, if one was shown, and the output.
 *
 * @example A script that reads nothing
 * ```ts ignore
 * import { onTerminal } from "./on_terminal.ts";
 * const { prompt } = await onTerminal(`console.log("hi");`, ["--no-config"]);
 * ```
 */
export async function onTerminal(
  source: string,
  flags: string[],
  env: Record<string, string> = {},
): Promise<{ prompt?: string; output: string }> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-on-terminal-" }));
  try {
    const script = `${dir}/host.ts`;
    await Deno.writeTextFile(script, source);
    return await commandOnTerminal([Deno.execPath(), "run", ...flags, script], ROOT, env);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Runs a command on a terminal (`script` gives it one, so Deno would prompt) in `cwd`: the
 * first permission prompt it shows (the process is killed then), or what it printed.
 *
 * @param command The program and its arguments (none with spaces).
 * @param cwd Where it runs.
 * @param env Variables for the command (over the passed ones).
 * @returns The prompt, if one was shown, and the output.
 */
export async function commandOnTerminal(
  command: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ prompt?: string; output: string }> {
  const child = new Deno.Command("script", {
    args: ["-qec", command.join(" "), "/dev/null"],
    cwd,
    env: childEnv({ NO_COLOR: "1", ...env }),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let output = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    output += decoder.decode(chunk, { stream: true });
    const prompt = /Deno requests [^\r\n]*/.exec(output)?.[0];
    if (prompt !== undefined) {
      child.kill("SIGKILL");
      await child.status;
      await child.stdin.close().catch(() => {});
      return { prompt, output };
    }
  }
  await child.stdin.close();
  await child.status;
  return { output };
}
