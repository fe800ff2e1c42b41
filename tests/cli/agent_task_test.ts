// `deno task agent` runs the CLI with the `cli` permission set plus read and write grants on
// Deno's default cache folder (`$HOME/.cache/deno`), which a permission set cannot name. With
// them the host keeps a sandboxed plugin's described module graph between processes. Run here
// with the task's own flags, taken from deno.json, in a real process whose `$HOME/.cache/deno`
// is this test's Deno cache (a symlink, so nothing is downloaded).
import { deepEqual, equal, match } from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { childEnv } from "../support/child_env.ts";
import { denoCacheDir } from "../../sdk/sandbox/deno_dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The `deno run` flags of the `agent` task, with `$HOME` replaced by `home`. */
async function agentTaskFlags(home: string): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  const task: string = config.tasks.agent;
  const words = task.split(/\s+/);
  equal(words.slice(0, 2).join(" "), "deno run", task);
  equal(words.at(-1), "cli/main.ts", task);
  return words.slice(2, -1).map((word) => word.replaceAll("$HOME", home));
}

async function storedGraphs(cache: string): Promise<Set<string>> {
  const names = new Set<string>();
  try {
    for await (const entry of Deno.readDir(`${cache}/tack_graphs`)) names.add(entry.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names;
}

Deno.test({
  name: "deno task agent's grants let a sandboxed plugin's module graph be kept in Deno's cache",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const cache = await denoCacheDir();
    const home = await Deno.makeTempDir({ prefix: "tack-agent-home-" });
    // The set's read and write paths are relative to the repository: the plugin and host live there.
    const plugin = await Deno.makeTempFile({ dir: ROOT, prefix: ".tack-agent-", suffix: ".ts" });
    const host = await Deno.makeTempFile({ dir: ROOT, prefix: ".tack-agent-host-", suffix: ".ts" });
    try {
      await Deno.mkdir(`${home}/.cache`);
      await Deno.symlink(cache, `${home}/.cache/deno`);
      // A plugin no earlier run described (its own id), dated back: a description of files
      // being edited is not kept.
      await Deno.writeTextFile(
        plugin,
        `export default { name: "kept_${crypto.randomUUID().slice(0, 8)}", tools: [] };\n`,
      );
      const past = new Date(Date.now() - 60_000);
      await Deno.utime(plugin, past, past);
      await Deno.writeTextFile(
        host,
        `import { loadPlugin } from "./sdk/sandbox/mod.ts";
const plugin = await loadPlugin(${
          JSON.stringify(plugin)
        }, { sandbox: true, stderr: "capture", onWarning: () => {} });
console.log("loaded", plugin.name);
await plugin.dispose?.();\n`,
      );
      const before = await storedGraphs(cache);
      const env = childEnv({ HOME: home, NO_COLOR: "1" });
      delete env.DENO_DIR; // Deno's default cache folder: $HOME/.cache/deno
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...await agentTaskFlags(home), host],
        cwd: ROOT,
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(output.stderr);
      equal(output.code, 0, stderr);
      match(new TextDecoder().decode(output.stdout), /^loaded kept_/);
      // Tests running in parallel add descriptions of their own plugins: this plugin's is the one.
      const added = [...await storedGraphs(cache)].filter((name) => !before.has(name));
      const roots = await Promise.all(added.map(async (name) => {
        try {
          return JSON.parse(await Deno.readTextFile(`${cache}/tack_graphs/${name}`)).graph.root;
        } catch {
          return undefined; // pruned meanwhile
        }
      }));
      const ours = roots.filter((root) => root === pathToFileURL(plugin).href);
      equal(ours.length, 1, `new descriptions of: ${roots.join(", ")}; stderr: ${stderr}`);
    } finally {
      await Deno.remove(plugin);
      await Deno.remove(host);
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test("deno task agent's --allow-read and --allow-write are the cli set's lists plus Deno's cache folder and the trust store's", async () => {
  // A flag replaces the set's list: a path added to the set alone would do nothing there.
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  const flags = await agentTaskFlags("$HOME");
  const list = (name: string) => {
    const found = flags.filter((flag) => flag.startsWith(`--allow-${name}=`));
    equal(found.length, 1, `--allow-${name} in ${flags.join(" ")}`);
    return found[0].slice(`--allow-${name}=`.length).split(",");
  };
  const home = ["$HOME/.cache/deno", "$HOME/.local/state/tack"];
  deepEqual(list("read"), [...config.permissions.cli.read, ...home]);
  deepEqual(list("write"), [...config.permissions.cli.write, ...home]);
});

Deno.test("deno task agent: a --plugin outside the repository is refused with where to go instead", async () => {
  const home = await Deno.makeTempDir({ prefix: "tack-agent-home-" });
  const outside = await Deno.makeTempDir({ prefix: "tack-agent-plugin-" });
  try {
    // This test's Deno cache as the task's (nothing is downloaded).
    await Deno.mkdir(`${home}/.cache`);
    await Deno.symlink(await denoCacheDir(), `${home}/.cache/deno`);
    await Deno.writeTextFile(`${outside}/mod.ts`, `export default { name: "weather" };\n`);
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...await agentTaskFlags(home),
        "cli/main.ts",
        "--plugin",
        `${outside}/mod.ts`,
        "hi",
      ],
      cwd: ROOT,
      env: (() => {
        const env = childEnv({ HOME: home, NO_COLOR: "1", OPENAI_API_KEY: "sk-test" });
        delete env.DENO_DIR; // Deno's default cache folder: $HOME/.cache/deno
        return env;
      })(),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    equal(output.code, 2);
    // Deno reports the import it may not read as a TypeError: the hint was left out.
    equal(
      new TextDecoder().decode(output.stderr).split("\n").filter((line) => line !== "").at(-1),
      `Cannot load plugin "${outside}/mod.ts" (--plugin): its module failed to load: Requires read access to "${outside}/mod.ts", run again with the --allow-read flag (\`deno task agent\` may read only the Tack repository; the installed \`tack\`, from \`deno task install\`, reads plugins anywhere: see docs/cli.md)`,
    );
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});
