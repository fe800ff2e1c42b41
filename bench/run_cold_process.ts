/**
 * Runs `cold_process.ts` once in a new process and reads the time it prints.
 *
 * @module
 */

/**
 * One sandbox cold start in a new host process, or (`floor`) its floor: a bare child
 * answering one line, spawned from a new process.
 *
 * @param env Extra environment for the process (e.g. a fresh `DENO_DIR`).
 * @param floor Time the floor instead.
 * @returns The time in ms, or why there is none (the last line of its stderr).
 */
export async function runColdProcess(
  env: Record<string, string> = {},
  floor = false,
): Promise<number | string> {
  const script = new URL("./cold_process.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--cached-only", script, ...(floor ? ["--floor"] : [])],
    cwd: new URL(".", import.meta.url).pathname,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ms = Number(new TextDecoder().decode(output.stdout).trim());
  if (output.success && Number.isFinite(ms)) return ms;
  const stderr = new TextDecoder().decode(output.stderr).trim().split("\n").at(-1);
  return `cold_process.ts failed: ${stderr}`;
}
