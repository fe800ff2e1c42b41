import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";

const SCRIPT = new URL("../scripts/new_plugin.ts", import.meta.url).pathname;
const REPO = new URL("..", import.meta.url).pathname;

/** The environment without INIT_CWD: an outer `deno task` (as CI's) sets it to the repo. */
function envWithoutInitCwd(): Record<string, string> {
  const env = Deno.env.toObject();
  delete env.INIT_CWD;
  return env;
}

async function scaffold(args: string[], cwd?: string) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SCRIPT, ...args],
    cwd,
    clearEnv: true,
    env: envWithoutInitCwd(),
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "tack_new_plugin_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("new-plugin copies the template under the new name, importing Tack from JSR", async () => {
  await withTempDir(async (dir) => {
    const target = join(dir, "weather-tools");
    const { code, stdout } = await scaffold(["weather-tools", target, "--scope=@acme"]);
    equal(code, 0);
    match(stdout, /Created .*weather-tools/);
    const files: string[] = [];
    for await (const entry of Deno.readDir(target)) files.push(entry.name);
    deepEqual(files.sort(), [
      "README.md",
      "block_names.ts",
      "deno.json",
      "greet_tool.ts",
      "mod.ts",
      "tests",
    ]);
    equal(await exists(join(target, "tests", "weather_tools_test.ts")), true);
    const config = JSON.parse(await Deno.readTextFile(join(target, "deno.json")));
    equal(config.name, "@acme/tack-plugin-weather-tools");
    equal(config.version, "0.1.0");
    deepEqual(config.exports, { ".": "./mod.ts" });
    equal(config.imports["@tack/agent/plugin"], "jsr:@tack/agent@^0.1/plugin");
    equal(config.imports["@tack/agent/sdk"], "jsr:@tack/agent@^0.1/sdk");
    equal(config.imports["@tack/agent/sdk/testing"], "jsr:@tack/agent@^0.1/sdk/testing");
    // Outside a checkout, the one running the script is linked: Tack is not on JSR yet, and
    // without it the copy's own "deno task test" failed to resolve @tack/agent.
    equal(await Deno.realPath(join(target, config.links[0])), await Deno.realPath(REPO));
    match(stdout, /Its deno\.json links the Tack checkout .* in place of JSR's @tack\/agent/);
    const mod = await Deno.readTextFile(join(target, "mod.ts"));
    match(mod, /export function weatherTools\(options: WeatherToolsOptions = \{\}\): Plugin/);
    match(mod, /name: "weather-tools",/);
    match(mod, /export default weatherTools;/);
    match(mod, /`@acme\/tack-plugin-weather-tools`/);
    equal(/\bhello\b|HelloOptions|@you\//.test(mod), false);
    const test = await Deno.readTextFile(join(target, "tests", "weather_tools_test.ts"));
    match(test, /import weatherTools, \{/);
    match(test, /equal\(plugin\.name, "weather-tools"\)/);
    match(test, /Cannot create plugin weather-tools: blockedNames/);
  });
});

Deno.test("new-plugin defaults the target to ./<name>", async () => {
  await withTempDir(async (dir) => {
    const { code } = await scaffold(["greeter"], dir);
    equal(code, 0);
    const config = JSON.parse(await Deno.readTextFile(join(dir, "greeter", "deno.json")));
    equal(config.name, "@you/tack-plugin-greeter");
  });
});

Deno.test("new-plugin refuses to overwrite and writes nothing", async () => {
  await withTempDir(async (dir) => {
    const target = join(dir, "taken");
    await Deno.mkdir(target);
    await Deno.writeTextFile(join(target, "mod.ts"), "// mine\n");
    const { code, stderr } = await scaffold(["taken", target]);
    equal(code, 1);
    equal(stderr.trim(), `Cannot create plugin: ${target} already exists (nothing was written)`);
    equal(await Deno.readTextFile(join(target, "mod.ts")), "// mine\n");
    deepEqual([...Deno.readDirSync(target)].map((e) => e.name), ["mod.ts"]);
  });
});

Deno.test("new-plugin rejects a bad name or scope and creates nothing", async () => {
  await withTempDir(async (dir) => {
    const bad = await scaffold(["My_Plugin"], dir);
    equal(bad.code, 1);
    equal(
      bad.stderr.trim(),
      `Cannot create plugin: "My_Plugin" is not a valid name (use lowercase letters, digits and ` +
        `single hyphens, starting with a letter, e.g. "my-plugin")`,
    );
    const scope = await scaffold(["ok", "--scope=acme"], dir);
    equal(scope.code, 1);
    equal(
      scope.stderr.trim(),
      `Cannot create plugin: "acme" is not a valid JSR scope (e.g. "@you")`,
    );
    deepEqual([...Deno.readDirSync(dir)], []);
  });
});

Deno.test("new-plugin without a name prints the usage", async () => {
  const { code, stderr } = await scaffold([]);
  equal(code, 2);
  match(stderr, /^usage: deno task new-plugin <name> \[target\]/);
});

/** Runs the command the scaffolder prints (`deno task test`) in `cwd`, with no env grants. */
async function runPrintedTestCommand(cwd: string): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "test"],
    cwd,
    clearEnv: true,
    env: { ...envWithoutInitCwd(), NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const log = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  equal(output.code, 0, log);
  return log;
}

Deno.test("a copy outside the repo, wired to a Tack checkout, passes the command it prints", async () => {
  await withTempDir(async (dir) => {
    const target = join(dir, "local-one");
    const made = await scaffold(["local-one", target, `--tack=${REPO}`]);
    equal(made.code, 0);
    match(made.stdout, /Next: cd .*local-one && deno task test\n/);
    // JSR's names, as published, with the checkout linked in until Tack is on JSR (and offline).
    const config = JSON.parse(await Deno.readTextFile(join(target, "deno.json")));
    equal(config.imports["@tack/agent/plugin"], "jsr:@tack/agent@^0.1/plugin");
    equal(await Deno.realPath(join(target, config.links[0])), await Deno.realPath(REPO));
    // The tests and the JSDoc examples: 8 tests, 4 doc examples.
    match(await runPrintedTestCommand(target), /ok \| 12 passed \| 0 failed/);
    // What would be published imports JSR, not a path out of the package.
    const dryRun = await new Deno.Command(Deno.execPath(), {
      args: ["publish", "--dry-run", "--allow-dirty"],
      cwd: target,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const log = new TextDecoder().decode(dryRun.stdout) + new TextDecoder().decode(dryRun.stderr);
    equal(dryRun.code, 0, log);
    match(log, /Dry run complete/);
  });
});

Deno.test("the repo's plugin template passes deno task test as its README says", async () => {
  match(
    await runPrintedTestCommand(join(REPO, "examples/plugin-template")),
    /ok \| 12 passed \| 0 failed/,
  );
});

Deno.test("deno task new-plugin creates the copy where the user is, not in the repo", async () => {
  await withTempDir(async (dir) => {
    const name = `tasked-${Date.now()}`;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["task", "--config", join(REPO, "deno.json"), "new-plugin", name],
      cwd: dir,
      clearEnv: true,
      env: envWithoutInitCwd(),
      stdout: "piped",
      stderr: "piped",
    }).output();
    equal(output.code, 0, new TextDecoder().decode(output.stderr));
    equal(await exists(join(dir, name, "deno.json")), true);
    equal(await exists(join(REPO, name)), false);
  });
});
