// A host that lacks a permission loadPlugin needs gets `Cannot load plugin "<specifier>": …`
// naming what it may not do and the flag that grants it, never Deno's raw exception. Real
// host processes with narrow flags (`--no-prompt`), in a temp folder.
import { equal } from "node:assert/strict";
import { skipWithoutBwrap } from "../support/os_layer.ts";
import { onTerminal } from "../support/on_terminal.ts";
import { NO_GROUP_KILL_WARNING, NOT_CONFINED_WARNING } from "../../sdk/sandbox/mod.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** A plugin with no imports (it needs no config), granted its folder `./notes`. */
const NOTES = `export default {
  name: "notes",
  permissions: { read: ["./notes"], write: ["./notes"] },
  tools: [{
    name: "count_notes",
    description: "Counts the notes",
    parameters: { type: "object" },
    execute: () => ({ content: [{ type: "text", text: "0" }] }),
  }],
};
`;

/** A plugin granted only to write `./out`. */
const WRITER = `export default {
  name: "writer",
  permissions: { write: ["./out"] },
  tools: [{
    name: "write_out",
    description: "Writes out",
    parameters: { type: "object" },
    execute: () => ({ content: [{ type: "text", text: "done" }] }),
  }],
};
`;

/** A plugin whose JSON module is a symlink to a file outside its folder. */
const LEAKY = `import data from "./data.json" with { type: "json" };

export default {
  name: "leaky",
  permissions: {},
  tools: [{
    name: "leak",
    description: "Returns its data",
    parameters: { type: "object" },
    execute: () => ({ content: [{ type: "text", text: JSON.stringify(data) }] }),
  }],
};
`;

function host(plugin: string, options = ""): string {
  return `import { loadPlugin } from ${JSON.stringify(`file://${ROOT}/mod.ts`)};

try {
  const plugin = await loadPlugin(${
    JSON.stringify(plugin)
  }, { sandbox: true, onWarning: () => {}${options} });
  console.log("loaded", plugin.name);
  const result = await plugin.tools[0].execute({}, { toolCallId: "1", signal: AbortSignal.timeout(10_000) });
  console.log(JSON.stringify(result.content));
  await plugin.dispose?.();
} catch (error) {
  console.log(error.message);
}
`;
}

/**
 * Runs `source` as a host in a new project folder (holding the plugins, `./notes`, `./out`,
 * and `./leaky/data.json`, a symlink to `./secrets/creds.json`) with `flags` and `env` (each
 * given the folder): what it printed.
 */
async function runHost(
  source: string,
  flags: (dir: string) => string[],
  env: (dir: string) => Record<string, string> = () => ({}),
  setUp: (dir: string) => Promise<void> = () => Promise.resolve(),
): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-host-permissions-" }));
  try {
    await Deno.mkdir(`${dir}/notes`);
    await Deno.mkdir(`${dir}/out`);
    await Deno.mkdir(`${dir}/tmp`);
    await Deno.writeTextFile(`${dir}/notes_plugin.js`, NOTES);
    await Deno.writeTextFile(`${dir}/writer_plugin.js`, WRITER);
    await Deno.mkdir(`${dir}/leaky`);
    await Deno.mkdir(`${dir}/secrets`);
    await Deno.writeTextFile(`${dir}/secrets/creds.json`, '{ "key": "s3cr3t" }');
    await Deno.symlink(`${dir}/secrets/creds.json`, `${dir}/leaky/data.json`);
    await Deno.writeTextFile(`${dir}/leaky/plugin.js`, LEAKY);
    await Deno.writeTextFile(`${dir}/host.js`, source);
    await setUp(dir);
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", `--config=${ROOT}/deno.json`, ...flags(dir), "host.js"],
      cwd: dir,
      env: { NO_COLOR: "1", ...env(dir) },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    equal(output.code, 0, decoder.decode(output.stderr));
    return decoder.decode(output.stdout).trimEnd();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Where the project's Deno config and lockfile would be: a host must be able to look. */
const CONFIG_READ = "./deno.json,./deno.jsonc,./deno.lock";

const TEMP_FOLDER_UNKNOWN =
  "the host may not write to its temp folder ($TMPDIR, else /tmp), where each sandbox's entry module, import map and lockfile are written: add --allow-write=/tmp (or the folder $TMPDIR names) to the host's flags";

Deno.test("a host that may not write to its temp folder: the load error names it and the flag", async () => {
  // The README's host with --allow-write for its plugin's grant alone.
  const printed = await runHost(
    host("./notes_plugin.js"),
    () => ["--allow-read", "--allow-write=./notes", "--allow-run"],
  );
  equal(printed, `Cannot load plugin "./notes_plugin.js": ${TEMP_FOLDER_UNKNOWN}`);
});

Deno.test("a host that may read TMPDIR and not write there: the load error names that folder", async () => {
  let folder = "";
  const printed = await runHost(
    host("./notes_plugin.js"),
    () => ["--allow-read", "--allow-write=./notes", "--allow-run", "--allow-env=TMPDIR"],
    (dir) => ({ TMPDIR: folder = `${dir}/tmp` }),
  );
  equal(
    printed,
    `Cannot load plugin "./notes_plugin.js": the host may not write to its temp folder "${folder}", where each sandbox's entry module, import map and lockfile are written: add --allow-write=${folder} to the host's flags`,
  );
});

Deno.test("a worker sandbox on a host that may not write to its temp folder: the same load error", async () => {
  const printed = await runHost(
    host("./notes_plugin.js", ', isolation: "worker"'),
    () => ["--allow-read", "--allow-write=./notes", "--unstable-worker-options"],
  );
  equal(printed, `Cannot load plugin "./notes_plugin.js": ${TEMP_FOLDER_UNKNOWN}`);
});

Deno.test("a host that may not run deno: the load error names it and the flag", async () => {
  const printed = await runHost(
    host("./notes_plugin.js"),
    (dir) => ["--allow-read", `--allow-write=./notes,${dir}/tmp`],
    (dir) => ({ TMPDIR: `${dir}/tmp` }),
  );
  equal(
    printed,
    `Cannot load plugin "./notes_plugin.js": Requires run access to "${Deno.execPath()}", run again with the --allow-run flag`,
  );
});

Deno.test({
  name:
    "a host that may not read a write grant cannot tell it exists: the load error names the flag",
  ignore: skipWithoutBwrap("a host that may not read a write grant"),
  async fn() {
    let out = "";
    const printed = await runHost(
      host("./writer_plugin.js"),
      (dir) => [
        `--allow-read=${dir}/writer_plugin.js,${CONFIG_READ}`,
        `--allow-write=./out,${dir}/tmp`,
        "--allow-run",
      ],
      (dir) => {
        out = `${dir}/out`;
        return { TMPDIR: `${dir}/tmp` };
      },
    );
    equal(
      printed,
      `Cannot load plugin "./writer_plugin.js": the host may not read its write grant "${out}", so it cannot tell that it exists (bubblewrap mounts only what exists): add --allow-read=${out} to the host's flags`,
    );
  },
});

Deno.test("a host without the plugin's grants: the load error names what it lacks and the flag", async () => {
  let notes = "";
  const printed = await runHost(
    host("./notes_plugin.js"),
    (dir) => [
      `--allow-read=./notes_plugin.js,${CONFIG_READ}`,
      `--allow-write=./notes,${dir}/tmp`,
      "--allow-run",
    ],
    (dir) => {
      notes = `${dir}/notes`;
      return { TMPDIR: `${dir}/tmp` };
    },
  );
  equal(
    printed,
    `Cannot load plugin "./notes_plugin.js": it asks for read: ["${notes}"], write: ["${notes}"]; the host process lacks read: ["${notes}"] (add --allow-read=${notes} to the host's flags)`,
  );
});

Deno.test("a host that may not read a plugin's modules cannot tell a symlink out of its folder: the load error names the flag", async () => {
  // Loaded, its JSON module (a symlink to a file neither it nor the host may read) was
  // mounted as it points: the plugin read the host's secret.
  let folder = "";
  const printed = await runHost(
    host("./leaky/plugin.js"),
    (dir) => [
      `--allow-read=./notes,./leaky/deno.json,./leaky/deno.jsonc,${CONFIG_READ}`,
      `--allow-write=${dir}/tmp`,
      "--allow-run",
    ],
    (dir) => {
      folder = `${dir}/leaky`;
      return { TMPDIR: `${dir}/tmp` };
    },
  );
  equal(
    printed,
    `Cannot load plugin "./leaky/plugin.js": the host may not read its module "${folder}/plugin.js", so it cannot tell whether it is a symlink out of its folder "${folder}": add --allow-read=${folder} to the host's flags`,
  );
});

Deno.test("a host that may run only deno is not prompted for bubblewrap on a terminal: it loads unconfined, warned", async () => {
  const { prompt, output } = await onTerminal(
    `import { loadPlugin } from ${JSON.stringify(`file://${ROOT}/sdk/sandbox/mod.ts`)};
const plugin = await loadPlugin(${
      JSON.stringify(`${ROOT}/tests/fixtures/sandbox/hostile_plugin.ts`)
    }, { sandbox: true, stderr: "capture", onWarning: (warning) => console.log(warning) });
console.log("loaded");
await plugin.dispose();\n`,
    [
      `--config=${ROOT}/deno.json`,
      "--allow-read",
      "--allow-write",
      "--allow-env",
      `--allow-run=${Deno.execPath()}`,
    ],
  );
  equal(prompt, undefined, prompt);
  equal(
    output.replaceAll("\r", ""),
    [
      `plugin "hostile": ${NOT_CONFINED_WARNING}`,
      `plugin "hostile": ${NO_GROUP_KILL_WARNING}`,
      "loaded",
      "",
    ].join("\n"),
  );
});

Deno.test("a host that may not read its project's Deno config: the load error names it and the flag (the sandbox would run without its lockfile)", async () => {
  // The README's host with --allow-read for the plugin and its grant alone: loaded before,
  // its sandbox ran without the project's lockfile, silently.
  let project = "";
  const printed = await runHost(
    host("./notes_plugin.js"),
    (dir) => [
      "--allow-read=./notes_plugin.js,./notes",
      `--allow-write=./notes,${dir}/tmp`,
      "--allow-run",
    ],
    (dir) => ({ TMPDIR: `${project = dir}/tmp` }),
    (dir) => Deno.writeTextFile(`${dir}/deno.json`, "{}"),
  );
  equal(
    printed,
    `Cannot load plugin "./notes_plugin.js": the host may not read ${project}/deno.json, where a Deno config would set the plugin's import map and lockfile: add --allow-read=${project}/deno.json,${project}/deno.jsonc,${project}/deno.lock (or --allow-read=${project}) to the host's flags`,
  );
});

Deno.test("a host that may read its project's config but not the lockfile it names: the load error names the lockfile", async () => {
  let project = "";
  const printed = await runHost(
    host("./notes_plugin.js"),
    (dir) => [
      "--allow-read=./notes_plugin.js,./notes,./deno.json,./deno.jsonc",
      `--allow-write=./notes,${dir}/tmp`,
      "--allow-run",
    ],
    (dir) => ({ TMPDIR: `${project = dir}/tmp` }),
    async (dir) => {
      await Deno.writeTextFile(`${dir}/deno.json`, JSON.stringify({ lock: "./locks/deno.lock" }));
      await Deno.mkdir(`${dir}/locks`);
      await Deno.writeTextFile(`${dir}/locks/deno.lock`, JSON.stringify({ version: "5" }));
    },
  );
  equal(
    printed,
    `Cannot load plugin "./notes_plugin.js": the host may not read ${project}/locks/deno.lock, the lockfile of ${project}/deno.json the sandbox runs frozen to: add --allow-read=${project}/locks/deno.lock to the host's flags`,
  );
});

Deno.test("a host that may read its project's config and lockfile loads the plugin, frozen to the lock", async () => {
  const printed = await runHost(
    host("./notes_plugin.js"),
    (dir) => [
      `--allow-read=./notes_plugin.js,./notes,${CONFIG_READ}`,
      `--allow-write=./notes,${dir}/tmp`,
      "--allow-run",
    ],
    (dir) => ({ TMPDIR: `${dir}/tmp` }),
    async (dir) => {
      await Deno.writeTextFile(`${dir}/deno.json`, "{}");
      await Deno.writeTextFile(`${dir}/deno.lock`, JSON.stringify({ version: "5" }));
    },
  );
  equal(printed, 'loaded notes\n[{"type":"text","text":"0"}]');
});
