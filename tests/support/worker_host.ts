/**
 * A host process for attacks on `isolation: "worker"`: it loads a plugin file in a worker
 * sandbox, calls its first tool once, prints the tool's text, then runs the test's own code.
 *
 * @module
 */

const SANDBOX = new URL("../../sdk/sandbox/mod.ts", import.meta.url).href;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** What the host process did. */
export interface HostOutcome {
  stdout: string;
  stderr: string;
  /** The signal that ended it, if one did. */
  signal: Deno.Signal | null;
}

/**
 * Writes `host.ts` into `dir` and runs it (`-A --unstable-worker-options`, stdin closed).
 *
 * @param dir Where the host is written (and, without `cwd`, a temp folder of the test).
 * @param plugin The plugin file's path.
 * @param after Host code run after the tool's text is printed (`plugin` is in scope).
 * @param cwd The host's working folder.
 * @returns Its output and the signal that ended it.
 */
export async function runWorkerHost(
  dir: string,
  plugin: string,
  after: string,
  cwd?: string,
): Promise<HostOutcome> {
  await Deno.writeTextFile(
    `${dir}/host.ts`,
    `import { loadPlugin } from ${JSON.stringify(SANDBOX)};
const plugin = await loadPlugin(${JSON.stringify(plugin)}, {
  sandbox: true, isolation: "worker", onWarning: () => {},
});
const call = { toolCallId: "1", signal: new AbortController().signal };
const result = await plugin.tools[0].execute({}, call);
console.log(result.content[0].text);
${after}
`,
  );
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-worker-options", `--config=${CONFIG}`, `${dir}/host.ts`],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
    signal: output.signal,
  };
}
