// The folder's tack.jsonc is obeyed only once trusted: without a terminal an untrusted one is
// refused before anything from it is loaded (its plugin's import would write a marker, its
// baseURL is a loopback fake model server that must see no request); `tack trust` records it;
// an edit to it or to its plugin file asks again; `--config` needs no trust; the trust store is
// never read or written through a symlink; without Deno's grant for the store it is refused;
// the file's strings reach the terminal as text. Real CLI processes, temporary folders.
import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { runTack } from "../support/run_tack.ts";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";
import { trustConfig } from "../support/trust_config.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

interface Project {
  /** The folder `tack` runs in, with its tack.jsonc and plugin.ts. */
  dir: string;
  /** The XDG_STATE_HOME the runs use. */
  state: string;
  /** Written by plugin.ts when it is imported. */
  marker: string;
  /** Writes the folder's tack.jsonc. */
  writeConfig(config: unknown, comment?: string): Promise<void>;
}

/** A project in a temporary folder (or `parent`), its plugin writing a marker at import. */
async function withProject(
  fn: (project: Project) => Promise<void>,
  parent?: string,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ dir: parent, prefix: ".tmp_trust_" }));
  try {
    const dir = join(root, "repo");
    // In the project: deno task agent's grants let it write there (and not beside it, unless
    // the test runs under /tmp).
    const marker = join(dir, "marker");
    await Deno.mkdir(dir);
    await Deno.writeTextFile(
      join(dir, "plugin.ts"),
      `Deno.writeTextFileSync(${JSON.stringify(marker)}, "imported");\n` +
        `export default { name: "marker", tools: [] };\n`,
    );
    const writeConfig = (config: unknown, comment = "") =>
      Deno.writeTextFile(join(dir, "tack.jsonc"), `${comment}${JSON.stringify(config)}\n`);
    await fn({ dir, state: join(root, "state"), marker, writeConfig });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const tack = (cwd: string, args: string[], env: Record<string, string>, flags = ["-A"]) =>
  runTack(cwd, args, { env, flags });

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

const PLUGINS = ["fs", "./plugin.ts"];

Deno.test("cli: an untrusted tack.jsonc is refused without a terminal: exit 2, nothing loaded, no model request; --config needs no trust", () =>
  withProject(async ({ dir, state, marker, writeConfig }) => {
    await using server = await startFakeOpenAI({ turns: [{ text: "chosen" }] });
    await writeConfig({ baseURL: server.baseURL, plugins: PLUGINS });
    for (const args of [["hello"], ["--json", "--yes", "hello"]]) {
      const run = await tack(dir, args, { XDG_STATE_HOME: state });
      equal(run.code, 2, run.stderr);
      equal(run.stdout, "");
      // One line: what is not trusted, and how to trust it.
      equal(run.stderr.trimEnd().split("\n").length, 1, run.stderr);
      match(
        run.stderr,
        new RegExp(
          `^${join(dir, "tack.jsonc")} is not trusted yet, and it can load plugins and run ` +
            'commands: nothing from it was loaded\\. To use it, read it, then run "tack trust" ' +
            "here to trust it, or pass --config \\./tack\\.jsonc to use it this once\\n$",
        ),
      );
    }
    equal(await exists(marker), false, "the plugin was imported");
    equal(server.requests.length, 0, "the model was asked");
    equal(await exists(join(dir, ".tack")), false);

    // Named with --config, the same file is the user's choice: it loads, with no trust asked.
    const chosen = await tack(dir, ["--config", "tack.jsonc", "hello"], { XDG_STATE_HOME: state });
    equal(chosen.code, 0, chosen.stderr);
    equal(chosen.stdout, "chosen\n");
    equal(await exists(marker), true);
    equal(await exists(state), false);
  }));

Deno.test("cli: tack trust shows what tack.jsonc does and records it; then it loads; an edit to it or its plugin file asks again", () =>
  withProject(async ({ dir, state, marker, writeConfig }) => {
    await using server = await startFakeOpenAI({
      turns: [{ text: "one" }, { text: "two" }, { text: "three" }],
    });
    await writeConfig({ baseURL: server.baseURL, plugins: PLUGINS });
    const env = { XDG_STATE_HOME: state };
    const trusted = await tack(dir, ["trust"], env);
    equal(trusted.code, 0, trusted.stderr);
    equal(
      trusted.stdout.split("\n").slice(0, 4).join("\n"),
      `${
        join(dir, "tack.jsonc")
      } is what you trust. It runs with your permissions; with it, tack:\n` +
        "  - loads the plugin fs (built in), in tack's own process, with all of tack's permissions\n" +
        `  - loads the plugin ./plugin.ts (${join(dir, "plugin.ts")}), in tack's own process, ` +
        "with all of tack's permissions\n" +
        `  - sends your OPENAI_API_KEY and the conversation to ${server.baseURL}`,
    );
    match(trusted.stdout, /\nTrusted .*tack\.jsonc \(sha256 [0-9a-f]{16}…\)/);
    const store = JSON.parse(await Deno.readTextFile(join(state, "tack", "trusted.json")));
    deepEqual(store.trusted.map((entry: { path: string }) => entry.path), [
      join(dir, "tack.jsonc"),
    ]);
    equal((await Deno.stat(join(state, "tack", "trusted.json"))).mode! & 0o777, 0o600);

    const run = await tack(dir, ["hello"], env);
    equal(run.code, 0, run.stderr);
    equal(run.stdout, "one\n");
    equal(await exists(marker), true);
    equal(server.requests.length, 1);

    // The file edited (a comment is enough): asked again, nothing loaded.
    await Deno.remove(marker);
    await writeConfig({ baseURL: server.baseURL, plugins: PLUGINS }, "// edited\n");
    const edited = await tack(dir, ["hello"], env);
    equal(edited.code, 2);
    match(edited.stderr, /tack\.jsonc changed since you trusted it \(the file changed\)/);
    equal(await exists(marker), false);

    // Trusted again, then the plugin file it lists edited: asked again too.
    equal((await tack(dir, ["trust"], env)).code, 0);
    equal((await tack(dir, ["hello"], env)).code, 0);
    await Deno.remove(marker);
    await Deno.writeTextFile(join(dir, "plugin.ts"), "// edited\n", { append: true });
    const pluginEdited = await tack(dir, ["hello"], env);
    equal(pluginEdited.code, 2);
    match(
      pluginEdited.stderr,
      new RegExp(
        `changed since you trusted it \\(the plugin file ${join(dir, "plugin.ts")} changed\\)`,
      ),
    );
    equal(await exists(marker), false);
    equal(server.requests.length, 2);
  }));

Deno.test("cli: a trust store that is a symlink is neither trusted through nor written through", () =>
  withProject(async ({ dir, state, marker, writeConfig }) => {
    await writeConfig({ baseURL: "http://127.0.0.1:9/v1", plugins: PLUGINS });
    // Elsewhere, a store that trusts this very file; the user's store is a link to it.
    const elsewhere = join(dir, "..", "elsewhere");
    await trustConfig(elsewhere, join(dir, "tack.jsonc"));
    const target = join(elsewhere, "tack", "trusted.json");
    const before = await Deno.readTextFile(target);
    await Deno.mkdir(join(state, "tack"), { recursive: true });
    await Deno.symlink(target, join(state, "tack", "trusted.json"));
    const env = { XDG_STATE_HOME: state };

    const run = await tack(dir, ["hello"], env);
    equal(run.code, 2);
    match(run.stderr, /trusted\.json is a symlink: it is not followed, nothing is trusted/);
    match(run.stderr, /is not trusted yet/);
    equal(await exists(marker), false);

    const trust = await tack(dir, ["trust"], env);
    equal(trust.code, 2);
    match(
      trust.stderr,
      /Cannot record trust: The trust store .* is a symlink: it is not written through/,
    );
    equal((await Deno.lstat(join(state, "tack", "trusted.json"))).isSymlink, true);
    equal(await Deno.readTextFile(target), before);
    deepEqual([...Deno.readDirSync(join(state, "tack"))].map((e) => e.name), ["trusted.json"]);
  }));

Deno.test("cli: a corrupt trust store trusts nothing, with a warning", () =>
  withProject(async ({ dir, state, marker, writeConfig }) => {
    await writeConfig({ plugins: PLUGINS });
    await Deno.mkdir(join(state, "tack"), { recursive: true });
    await Deno.writeTextFile(join(state, "tack", "trusted.json"), '{ "trusted": [ { "path": ');
    const run = await tack(dir, ["--base-url", "http://127.0.0.1:9/v1", "hello"], {
      XDG_STATE_HOME: state,
    });
    equal(run.code, 2);
    equal(
      run.stderr.split("\n")[0],
      `The trust store ${state}/tack/trusted.json is not valid: nothing in it is trusted`,
    );
    equal(await exists(marker), false);
  }));

/** `deno task agent`'s `deno run` flags, with `$HOME` replaced by `home`. */
async function agentTaskFlags(home: string): Promise<string[]> {
  const task: string = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))).tasks.agent;
  return task.split(/\s+/).slice(2, -1).map((word) => word.replaceAll("$HOME", home));
}

Deno.test("cli: under deno task agent's grants on a fresh $HOME, tack trust records the file and it loads; without the store's grant it is refused", async () => {
  const cache = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME")!, ".cache", "deno");
  const home = await Deno.makeTempDir({ prefix: "tack-trust-home-" });
  try {
    await Deno.mkdir(join(home, ".cache"));
    await Deno.symlink(cache, join(home, ".cache", "deno"));
    // The set's read and write paths are the repository's: the project lives there.
    await withProject(async ({ dir, marker, writeConfig }) => {
      await using server = await startFakeOpenAI({ turns: [{ text: "loaded" }] });
      await writeConfig({ baseURL: server.baseURL, plugins: PLUGINS });
      const env = { HOME: home };
      // The set alone (no flags naming $HOME): the store may not be read, so nothing is trusted.
      const bare = await tack(dir, ["hello"], env, ["-P=cli", "--no-prompt"]);
      equal(bare.code, 2);
      match(
        bare.stderr,
        new RegExp(
          `Deno does not grant read access to the trust store ${home}/\\.local/state/tack/trusted\\.json ` +
            `\\(run tack with --allow-read=${home}/\\.local/state/tack --allow-write=${home}/\\.local/state/tack\\)`,
        ),
      );
      equal(await exists(marker), false);
      const flags = await agentTaskFlags(home);
      const trusted = await tack(dir, ["trust"], env, flags);
      equal(trusted.code, 0, trusted.stderr);
      equal(await exists(join(home, ".local", "state", "tack", "trusted.json")), true);
      const run = await tack(dir, ["hello"], env, flags);
      equal(run.code, 0, run.stderr);
      equal(run.stdout, "loaded\n");
      equal(await exists(marker), true);
    }, join(ROOT, "tests", "cli"));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("cli: the escapes in tack.jsonc's strings, and in its folder's name, do not reach the terminal", () =>
  withProject(async ({ dir, state }) => {
    const folder = join(dir, "sub\x1b]0;title\x07\x1b[2J");
    await Deno.mkdir(folder);
    await Deno.writeTextFile(
      join(folder, "tack.jsonc"),
      JSON.stringify({
        baseURL: "http://127.0.0.1:9/v1\x1b[2J",
        plugins: [
          "./p\x1b[31m.ts",
          { specifier: "mcp", options: { command: "sh\x1b[8m", args: ["-c", "\x1b[1Aecho"] } },
        ],
        rules: [{ name: "r\x1b[2K", action: "allow", tool: "bash\x1b[1G" }],
        sessionDir: "s\x1b[H",
      }),
    );
    const env = { XDG_STATE_HOME: state };
    const refused = await tack(folder, ["hello"], env);
    equal(refused.code, 2);
    const trust = await tack(folder, ["trust"], env);
    equal(trust.code, 0, trust.stderr);
    for (const text of [trust.stdout, trust.stderr, refused.stderr]) {
      // deno-lint-ignore no-control-regex
      equal(/[\x00-\x09\x0b-\x1f\x7f]/.test(text), false, JSON.stringify(text));
    }
    // Each escape is shown as text, where it was.
    match(trust.stdout, /sub␛\]0;title␇␛\[2J\/tack\.jsonc is what you trust/);
    match(trust.stdout, /to http:\/\/127\.0\.0\.1:9\/v1␛\[2J\n/);
    match(trust.stdout, /loads the plugin \.\/p␛\[31m\.ts \(/);
    match(trust.stdout, /starts the MCP server "mcp": 'sh␛\[8m' -c '␛\[1Aecho'/);
    match(trust.stdout, /allows without asking \(rule "r\\u001b\[2K"\)/);
    match(trust.stdout, /writes sessions to .*s␛\[H\n/);
  }));
