// Depending on Tack from your own project, as the README shows: a project in a temp folder
// outside the repo, with its own deno.json linking `jsr:@tack/agent` to this checkout, a plugin
// and a script, run in-process and sandboxed (the plugin is resolved and locked by the
// project's own config, not the repo's).
import { equal, match } from "node:assert/strict";
import { join } from "node:path";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The deno.json the README tells a user to write (offline: JSR's name, linked to the checkout). */
function projectConfig(): string {
  return JSON.stringify(
    { links: [REPO], imports: { "@tack/agent": "jsr:@tack/agent@^0.1" } },
    null,
    2,
  );
}

// The plugin API and the testing helpers by their subpaths, as the README's snippets import
// them (a path mapping of "@tack/agent/" to the checkout broke every subpath).
const PLUGIN = `import { definePlugin, defineTool, Type } from "@tack/agent/plugin";

export default definePlugin({
  name: "shout",
  permissions: {},
  tools: [
    defineTool({
      name: "shout",
      description: "Upper-cases a text",
      parameters: Type.Object({ text: Type.String() }),
      execute: ({ text }) => ({ content: [{ type: "text", text: text.toUpperCase() }] }),
    }),
  ],
});
`;

const SCRIPT = `import { createAgent, loadPlugin } from "@tack/agent";
import { scriptedModel, text, toolCall } from "@tack/agent/sdk/testing";
import { readOnly } from "@tack/agent/plugins/read_only";

const sandbox = Deno.args[0] === "sandboxed";
const plugin = await loadPlugin("./shout_plugin.ts", { sandbox });
const agent = createAgent({
  model: scriptedModel([[toolCall("shout", { text: "hello" })], [text("done")]]),
  plugins: [plugin, readOnly()],
});
const messages = await agent.prompt("shout hello");
const result = messages.find((m) => m.role === "toolResult");
console.log(result?.role === "toolResult" && !result.isError ? result.content[0].type === "text" && result.content[0].text : "error");
await agent.dispose();
`;

async function project(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "tack-user-project-" });
  await Deno.writeTextFile(join(dir, "deno.json"), projectConfig());
  await Deno.writeTextFile(join(dir, "shout_plugin.ts"), PLUGIN);
  await Deno.writeTextFile(join(dir, "main.ts"), SCRIPT);
  return dir;
}

async function run(dir: string, mode: string): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts", mode],
    cwd: dir,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  const log = decoder.decode(output.stdout) + decoder.decode(output.stderr);
  equal(output.code, 0, log);
  return decoder.decode(output.stdout);
}

Deno.test("a project outside the repo depends on Tack by path: in-process and sandboxed", async () => {
  const dir = await project();
  try {
    equal(await run(dir, "in-process"), "HELLO\n");
    equal(await run(dir, "sandboxed"), "HELLO\n");
    // The project's own lock, written by its own config, is what the sandbox ran with.
    match(await Deno.readTextFile(join(dir, "deno.lock")), /typebox@1\.4\.3/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A host that loads the plugin sandboxed and prints its name, or why it could not. */
/** A host script that loads `specifier` sandboxed and prints its name, or why it could not. */
function loaderOf(specifier: string): string {
  return `import { loadPlugin } from "@tack/agent";

try {
  const plugin = await loadPlugin(${
    JSON.stringify(specifier)
  }, { sandbox: true, onWarning: () => {} });
  console.log("loaded", plugin.name);
  await plugin.dispose?.();
} catch (error) {
  console.log((error as Error).message);
}
`;
}

/** Runs `deno <args>` in `dir` (a backtrace on, as where Rust's is: Deno's errors then carry one). */
async function deno(dir: string, args: string[]): Promise<{ code: number; out: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: dir,
    env: { NO_COLOR: "1", RUST_BACKTRACE: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    out: decoder.decode(output.stdout) + decoder.decode(output.stderr),
  };
}

Deno.test("a plugin whose package is not in its project's frozen lock: the error names the command that fixes it", async () => {
  const dir = await project();
  try {
    equal(await run(dir, "in-process"), "HELLO\n"); // writes the lock
    const config = JSON.parse(await Deno.readTextFile(join(dir, "deno.json")));
    await Deno.writeTextFile(
      join(dir, "deno.json"),
      JSON.stringify({ ...config, lock: { frozen: true } }),
    );
    // The host runs in a folder of the project (not where its deno.json is).
    await Deno.mkdir(join(dir, "app"));
    await Deno.writeTextFile(join(dir, "app", "load.ts"), loaderOf("../shout_plugin.ts"));
    // In Tack's lock (so in the cache: no network), not in the project's.
    await Deno.writeTextFile(
      join(dir, "shout_plugin.ts"),
      `import "npm:diff@9.0.0";\n${PLUGIN}`,
    );
    const failed = await deno(join(dir, "app"), ["run", "-A", "load.ts"]);
    equal(failed.code, 0, failed.out);
    const message = failed.out.trimEnd();
    equal(
      message.startsWith(
        'Cannot load plugin "../shout_plugin.ts": Cannot prepare plugin: deno cache failed: error: The lockfile is out of date. Run `deno install --frozen=false`, or rerun with `--frozen=false` to update it.\nchanges:\n',
      ),
      true,
      message,
    );
    match(message, /"npm:diff@9\.0\.0": "9\.0\.0"/);
    // Deno's backtrace (Rust's, under RUST_BACKTRACE) is not part of what went wrong.
    equal(message.includes("Stack backtrace"), false, message);
    equal(
      message.endsWith(
        `    }, (the plugin's module graph is not in its project's frozen deno.lock: run \`deno cache --frozen=false ${
          join(dir, "shout_plugin.ts")
        }\` where its deno.json is, so the lock records it, then load it again)`,
      ),
      true,
      message,
    );
    // The command it names fixes it, run where the project's deno.json is.
    const command = /run `deno ([^`]+)` where its deno\.json is/.exec(message)![1].split(" ");
    const fixed = await deno(dir, command);
    equal(fixed.code, 0, fixed.out);
    match(await Deno.readTextFile(join(dir, "deno.lock")), /"npm:diff@9\.0\.0"/);
    equal((await deno(join(dir, "app"), ["run", "-A", "load.ts"])).out, "loaded shout\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
