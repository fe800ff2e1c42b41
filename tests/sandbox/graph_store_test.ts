// A plugin's module graph is described once and kept on disk (DENO_DIR/tack_graphs): a new
// process reuses the description without running `deno cache` or `deno info`, and
// describes the graph again when its files, its config or the stored file change. Each
// process here is a real `deno run` with its own empty DENO_DIR.
import { deepEqual, equal, match } from "node:assert/strict";
import { childEnv } from "../support/child_env.ts";
import { onTerminal } from "../support/on_terminal.ts";

const MODULE_GRAPH = new URL("../../sdk/sandbox/module_graph.ts", import.meta.url).href;
const DENO_DIR_MODULE = new URL("../../sdk/sandbox/deno_dir.ts", import.meta.url).href;

async function tempDir(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-graph-store-" }));
}

/**
 * Dates `files` a minute back: a description of files changed while (or just before) it
 * was made is not kept, and these stand for files nobody is editing.
 */
async function settle(files: string[]): Promise<void> {
  const past = new Date(Date.now() - 60_000);
  for (const file of files) await Deno.utime(file, past, past);
}

/** A folder with a plugin (`a.ts` importing `./b.ts`), a script describing it, and a DENO_DIR. */
async function setup(): Promise<{ dir: string; denoDir: string; script: string }> {
  const dir = await tempDir();
  const denoDir = `${dir}/deno_dir`;
  await Deno.mkdir(denoDir);
  await Deno.writeTextFile(`${dir}/a.ts`, `import { b } from "./b.ts";\nexport default b;\n`);
  await Deno.writeTextFile(`${dir}/b.ts`, `export const b = { name: "b" };\n`);
  await settle([`${dir}/a.ts`, `${dir}/b.ts`]);
  const script = `${dir}/describe.ts`;
  await Deno.writeTextFile(
    script,
    `import { prepareModuleGraph } from ${JSON.stringify(MODULE_GRAPH)};
const graph = await prepareModuleGraph(${JSON.stringify(`file://${dir}/a.ts`)}, ${
      JSON.stringify(dir)
    });
console.log(JSON.stringify(graph.localFiles.map((file) => file.slice(file.lastIndexOf("/") + 1))));\n`,
  );
  return { dir, denoDir, script };
}

/**
 * Describes the plugin in a new process; `run: false` denies it every subprocess, `write`
 * narrows its write grant (default: everything).
 */
async function describe(
  where: { dir: string; denoDir: string; script: string },
  run = true,
  write = "--allow-write",
): Promise<{ files?: string[]; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-config",
      "--no-prompt",
      "--allow-read",
      write,
      "--allow-env",
      ...(run ? ["--allow-run"] : []),
      where.script,
    ],
    cwd: where.dir,
    env: childEnv({ DENO_DIR: where.denoDir }),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  if (!output.success) return { stderr };
  return { files: JSON.parse(new TextDecoder().decode(output.stdout)), stderr };
}

async function storedFiles(denoDir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(`${denoDir}/tack_graphs`)) names.push(entry.name);
  return names;
}

Deno.test("graph store: a new process reuses a stored description and runs no deno subprocess", async () => {
  const where = await setup();
  try {
    // Denied every subprocess, describing the graph fails: the proof the next run reused it.
    const denied = await describe(where, false);
    equal(denied.files, undefined);
    match(denied.stderr, /NotCapable|Requires run access/);

    deepEqual((await describe(where)).files, ["a.ts", "b.ts"]);
    equal((await storedFiles(where.denoDir)).length, 1);
    deepEqual((await describe(where, false)).files, ["a.ts", "b.ts"]);
  } finally {
    await Deno.remove(where.dir, { recursive: true });
  }
});

Deno.test("graph store: an edited module is described again (a new import is mounted)", async () => {
  const where = await setup();
  try {
    deepEqual((await describe(where)).files, ["a.ts", "b.ts"]);
    await Deno.writeTextFile(`${where.dir}/c.ts`, `export const c = 1;\n`);
    await Deno.writeTextFile(
      `${where.dir}/b.ts`,
      `import { c } from "./c.ts";\nexport const b = { name: "b", c };\n`,
    );
    // Without subprocesses the stale description is not used: it fails instead.
    equal((await describe(where, false)).files, undefined);
    deepEqual((await describe(where)).files, ["a.ts", "b.ts", "c.ts"]);
  } finally {
    await Deno.remove(where.dir, { recursive: true });
  }
});

Deno.test("graph store: a description of files changed while it was made is not kept", async () => {
  const where = await setup();
  try {
    // An edit that lands between `deno info` reading b.ts and the fingerprint's stat would
    // pair the old description with the new file's stamp. Stood in for by an mtime that is
    // not before the description began (set ahead, so no timing is involved).
    const ahead = new Date(Date.now() + 10 * 60 * 1000);
    await Deno.utime(`${where.dir}/b.ts`, ahead, ahead);
    deepEqual((await describe(where)).files, ["a.ts", "b.ts"]);
    // Not reused: without subprocesses it fails.
    equal((await describe(where, false)).files, undefined);
  } finally {
    await Deno.remove(where.dir, { recursive: true });
  }
});

Deno.test("graph store: a stored file that is not a description is ignored, then replaced", async () => {
  const where = await setup();
  try {
    await describe(where);
    const [name] = await storedFiles(where.denoDir);
    const file = `${where.denoDir}/tack_graphs/${name}`;
    const stored = JSON.parse(await Deno.readTextFile(file));
    // Well-formed JSON of the wrong shape: an extra file to mount as a string, not a list.
    stored.graph.localFiles = "/etc/shadow";
    await Deno.writeTextFile(file, JSON.stringify(stored));
    equal((await describe(where, false)).files, undefined);
    deepEqual((await describe(where)).files, ["a.ts", "b.ts"]);
    deepEqual(JSON.parse(await Deno.readTextFile(file)).graph.localFiles.length, 2);
  } finally {
    await Deno.remove(where.dir, { recursive: true });
  }
});

Deno.test("graph store: a host that may not write DENO_DIR stores nothing and still describes", async () => {
  const where = await setup();
  try {
    const described = await describe(where, true, `--allow-write=${where.dir}/elsewhere`);
    deepEqual(described.files, ["a.ts", "b.ts"], described.stderr);
    equal(await Deno.stat(`${where.denoDir}/tack_graphs`).then(() => true, () => false), false);
  } finally {
    await Deno.remove(where.dir, { recursive: true });
  }
});

/** What `denoDirFromEnvironment` and `deno info` say in a new process with `env`. */
async function bothAnswers(
  env: Record<string, string>,
  cwd: string,
  allowEnv = true,
): Promise<{ ours: string | null; deno: string }> {
  const script = `${cwd}/where.ts`;
  await Deno.writeTextFile(
    script,
    `import { denoDirFromEnvironment } from ${JSON.stringify(DENO_DIR_MODULE)};
console.log(JSON.stringify(denoDirFromEnvironment() ?? null));\n`,
  );
  const ours = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-config",
      "--no-prompt",
      "--allow-read",
      ...(allowEnv ? ["--allow-env"] : []),
      script,
    ],
    cwd,
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  equal(ours.success, true, new TextDecoder().decode(ours.stderr));
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    cwd,
    env,
    clearEnv: true,
    stdout: "piped",
  }).output();
  return {
    ours: JSON.parse(new TextDecoder().decode(ours.stdout)),
    deno: JSON.parse(new TextDecoder().decode(info.stdout)).denoDir,
  };
}

Deno.test("deno dir: found from the environment exactly where deno info says it is", async () => {
  const dir = await tempDir();
  const path = Deno.env.get("PATH") ?? "";
  try {
    await Deno.mkdir(`${dir}/home/.cache/deno`, { recursive: true });
    await Deno.mkdir(`${dir}/xdg/deno`, { recursive: true });
    await Deno.mkdir(`${dir}/explicit`, { recursive: true });
    const cases: Record<string, string>[] = [
      { HOME: `${dir}/home` },
      { HOME: `${dir}/home`, XDG_CACHE_HOME: `${dir}/xdg` },
      // Deno takes a relative XDG_CACHE_HOME relative to the cwd; an empty one is unset.
      { HOME: `${dir}/home`, XDG_CACHE_HOME: "xdg" },
      { HOME: `${dir}/home`, XDG_CACHE_HOME: "" },
      { HOME: `${dir}/home`, DENO_DIR: `${dir}/explicit` },
      // A relative DENO_DIR is relative to the cwd.
      { HOME: `${dir}/home`, DENO_DIR: "explicit" },
    ];
    for (const env of cases) {
      const { ours, deno } = await bothAnswers({ ...env, PATH: path }, dir);
      equal(ours, deno, JSON.stringify(env));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno dir: without env access it is not guessed (deno info is asked)", async () => {
  const dir = await tempDir();
  try {
    const env = { HOME: `${dir}/home`, PATH: Deno.env.get("PATH") ?? "" };
    await Deno.mkdir(`${dir}/home/.cache/deno`, { recursive: true });
    const { ours, deno } = await bothAnswers(env, dir, false);
    equal(ours, null);
    equal(deno, `${dir}/home/.cache/deno`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * Describes `plugin/mod.ts` (it imports the bare `dep`) in this process, then runs `edit`
 * and describes it again: what `dep` resolves to each time.
 */
async function depBeforeAndAfter(
  files: Record<string, string>,
  edit: (dir: string) => Promise<void>,
): Promise<[string, string]> {
  const dir = await tempDir();
  try {
    for (const [name, text] of Object.entries(files)) {
      await Deno.mkdir(`${dir}/${name}`.replace(/\/[^/]+$/, ""), { recursive: true });
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    await settle(Object.keys(files).map((name) => `${dir}/${name}`));
    const url = `file://${dir}/plugin/mod.ts`;
    const dep = async () => {
      const { prepareModuleGraph } = await import(MODULE_GRAPH);
      const graph = await prepareModuleGraph(url, dir);
      const target: string = graph.importMap.scopes[url].dep;
      return target.slice(target.lastIndexOf("/") + 1);
    };
    const before = await dep();
    await edit(dir);
    return [before, await dep()];
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const PLUGIN = {
  "plugin/mod.ts": `import { v } from "dep";\nexport default v;\n`,
  "plugin/one.ts": `export const v = 1;\n`,
  "plugin/two.ts": `export const v = 2;\n`,
};

Deno.test("graph store: an edit of the import map file the plugin's deno.json names is described again", async () => {
  const resolved = await depBeforeAndAfter({
    ...PLUGIN,
    "plugin/deno.json": `{ "importMap": "./import_map.json" }\n`,
    "plugin/import_map.json": `{ "imports": { "dep": "./one.ts" } }\n`,
  }, (dir) =>
    Deno.writeTextFile(
      `${dir}/plugin/import_map.json`,
      `{ "imports": { "dep": "./two.ts" } }\n`,
    ));
  deepEqual(resolved, ["one.ts", "two.ts"]);
});

Deno.test("graph store: an edit of the workspace root's deno.json above the plugin's is described again", async () => {
  const resolved = await depBeforeAndAfter({
    ...PLUGIN,
    "deno.json": `{ "workspace": ["./plugin"], "imports": { "dep": "./plugin/one.ts" } }\n`,
    "plugin/deno.json": `{ "name": "@x/plugin", "version": "0.1.0", "exports": "./mod.ts" }\n`,
  }, (dir) =>
    Deno.writeTextFile(
      `${dir}/deno.json`,
      `{ "workspace": ["./plugin"], "imports": { "dep": "./plugin/two.ts" } }\n`,
    ));
  deepEqual(resolved, ["one.ts", "two.ts"]);
});

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** Loads the TypeBox fixture plugin sandboxed and calls it, {@linkcode onTerminal}. */
function loadOnTerminal(flags: string[]): Promise<{ prompt?: string; output: string }> {
  return onTerminal(
    `import { loadPlugin } from ${JSON.stringify(`file://${ROOT}/sdk/sandbox/mod.ts`)};
const plugin = await loadPlugin(${
      JSON.stringify(`${ROOT}/tests/fixtures/sandbox/typebox_plugin.ts`)
    }, { sandbox: true, stderr: "capture", onWarning: () => {} });
const probe = plugin.tools.find((tool) => tool.name === "typebox_probe");
const result = await probe.execute({}, { toolCallId: "p", signal: new AbortController().signal });
console.log("checks", JSON.parse(result.content[0].text).checks.join(","));
await plugin.dispose();\n`,
    flags,
  );
}

Deno.test("graph store: a host without read access to DENO_DIR loads a sandboxed plugin with no permission prompt", async () => {
  // The CLI's permission set reads only its folder; a host may also read its env but not DENO_DIR.
  for (
    const flags of [
      ["-P=cli", `--config=${ROOT}/deno.json`],
      [
        `--config=${ROOT}/deno.json`,
        `--allow-read=${ROOT}`,
        "--allow-write=/tmp",
        "--allow-env",
        "--allow-run",
      ],
    ]
  ) {
    const { prompt, output } = await loadOnTerminal(flags);
    equal(prompt, undefined, `${flags.join(" ")}: ${prompt}`);
    match(output, /checks true,false/, flags.join(" "));
  }
});

Deno.test("child cache: a host that may write DENO_DIR but not read it makes its child cache in the sandbox's temp folder with no permission prompt", async () => {
  const denoDir = await tempDir();
  try {
    const { prompt, output } = await onTerminal(
      `import { childCacheDir } from ${JSON.stringify(`file://${ROOT}/sdk/sandbox/child_cache.ts`)};
console.log("made", await childCacheDir("file:///new.ts", ${JSON.stringify(denoDir)}, ${
        JSON.stringify(`${denoDir}/temp`)
      }));\n`,
      [`--allow-read=${ROOT}`, "--allow-write"],
    );
    equal(prompt, undefined, prompt);
    // It could not bound the shared folder: the sandbox's own temporary one.
    match(output, new RegExp(`made ${denoDir}/temp/deno_dir`));
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});
