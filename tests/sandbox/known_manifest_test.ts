// A plugin that declares permissions is started twice on its first load (its manifest read
// with no permissions, then restarted with them) and once on a later load of the same
// version, in the same process or a new one: its manifest is remembered. Each child start
// runs the plugin's top level, which prints a line the host forwards; the host scripts
// count them.
import { deepEqual, equal } from "node:assert/strict";
import { runHost, withFreshDenoDir } from "../support/fresh_deno_dir.ts";

const linux = Deno.build.os === "linux";
const TACK = new URL("../../", import.meta.url);
const PLUGIN_API = JSON.stringify(new URL("sdk/plugin_api.ts", TACK).href);
const SANDBOX = JSON.stringify(new URL("sdk/sandbox/mod.ts", TACK).href);

/**
 * A plugin granted `env: ["HOME"]` (its tool answers with HOME); `description` is the JS
 * expression of its tool's description.
 */
const plugin = (description: string) =>
  `import { definePlugin, defineTool, Type } from ${PLUGIN_API};
console.log("top level ran");
export default (options) => definePlugin({
  name: "counted",
  permissions: { env: ["HOME"] },
  tools: [defineTool({ name: options?.tool ?? "echo", description: ${description},
    parameters: Type.Object({ text: Type.String() }),
    execute: ({ text }) => ({ content: [{ type: "text", text: text + ":" + Deno.env.get("HOME") }] }) })],
});`;

/**
 * A host that loads `file` once per entry of `loads` (each its load options), calls its
 * tool, and prints, per load, how many child starts it took, the tool's name and
 * description, the call's text, and the error if the load failed.
 */
const host = (file: string, loads: unknown[]) =>
  `import { loadPlugin } from ${SANDBOX};
let starts = 0;
console.error = (...parts) => { if (parts.join(" ").includes("top level ran")) starts++; };
const out = [];
for (const options of ${JSON.stringify(loads)}) {
  const before = starts;
  let plugin;
  try {
    plugin = await loadPlugin(${
    JSON.stringify(file)
  }, { sandbox: true, onWarning: () => {}, ...options });
    const tool = plugin.tools[0];
    const result = await tool.execute({ text: "hi" }, { toolCallId: "c", signal: new AbortController().signal });
    await plugin.dispose();
    out.push({ starts: starts - before, tool: tool.name, description: tool.description, text: result.content[0].text });
  } catch (error) {
    await plugin?.dispose();
    out.push({ starts: starts - before, error: error.message });
  }
}
console.log(JSON.stringify(out));`;

/**
 * Writes a plugin file dated a minute ago: a graph described within a second of a change
 * to its files is not kept (it may have been read mid-edit), nor is its manifest.
 */
async function writeSettled(file: string, source: string): Promise<void> {
  await Deno.writeTextFile(file, source);
  const past = new Date(Date.now() - 60_000);
  await Deno.utime(file, past, past);
}

/** A Linux test (bubblewrap) with a fresh `DENO_DIR` and a temp folder for its plugin. */
function freshDenoDirTest(name: string, fn: (denoDir: string, dir: string) => Promise<void>) {
  Deno.test({ name, ignore: !linux, fn: () => withFreshDenoDir(fn) });
}

/** Runs {@linkcode host} for `file` with these loads, in a new process on `denoDir`. */
async function loadsOf(file: string, loads: unknown[], denoDir: string): Promise<Load[]> {
  return await runHost(host(file, loads), denoDir) as Load[];
}

interface Load {
  starts: number;
  tool?: string;
  description?: string;
  text?: string;
  error?: string;
}

freshDenoDirTest(
  "known manifests: a plugin with permissions starts once when loaded again, here or in a new process",
  async (denoDir, dir) => {
    const file = `${dir}/counted.js`;
    await writeSettled(file, plugin('"Echoes"'));
    const first = await loadsOf(file, [{}, {}, {}], denoDir);
    deepEqual(first.map((load) => load.starts), [2, 1, 1]);
    // Granted its env permission every time (its call reads HOME).
    for (const load of first) equal(load.text, `hi:${Deno.env.get("HOME")}`);
    const next = await loadsOf(file, [{}], denoDir);
    deepEqual(next.map((load) => load.starts), [1]);
    equal(next[0].text, `hi:${Deno.env.get("HOME")}`);
    // Another version of it (an edit) is read the long way again.
    await writeSettled(file, plugin('"Echoes, edited"'));
    const edited = await loadsOf(file, [{}, {}], denoDir);
    deepEqual(edited.map((load) => [load.starts, load.description]), [
      [2, "Echoes, edited"],
      [1, "Echoes, edited"],
    ]);
  },
);

freshDenoDirTest("known manifests: remembered per factory options", async (denoDir, dir) => {
  const file = `${dir}/counted.js`;
  await writeSettled(file, plugin('"Echoes"'));
  const loads = await loadsOf(file, [
    { options: { tool: "first" } },
    { options: { tool: "second" } },
    { options: { tool: "first" } },
  ], denoDir);
  deepEqual(loads.map((load) => [load.starts, load.tool]), [
    [2, "first"],
    [2, "second"],
    [1, "first"],
  ]);
});

freshDenoDirTest(
  "known manifests: a plugin whose manifest changed is loaded the long way, with its new one",
  async (denoDir, dir) => {
    // Its tool's description is new on every start, and it asks for no permission, so it
    // loads (one start) and never matches what was remembered.
    const file = `${dir}/restless.js`;
    await writeSettled(
      file,
      plugin("crypto.randomUUID()").replace('permissions: { env: ["HOME"] },', "")
        .replace(' + ":" + Deno.env.get("HOME")', ""),
    );
    const loads = await loadsOf(file, [{}, {}], denoDir);
    deepEqual(loads.map((load) => [load.starts, load.error]), [[1, undefined], [2, undefined]]);
    equal(loads[0].description === loads[1].description, false);
  },
);

freshDenoDirTest(
  "known manifests: a remembered manifest that is refused never starts the plugin with its grants",
  async (denoDir, dir) => {
    const file = `${dir}/counted.js`;
    await writeSettled(file, plugin('"Echoes"'));
    const loads = await loadsOf(file, [{}, { manifestHash: "sha256-0000" }], denoDir);
    equal(loads[0].starts, 2);
    // Read again with no permissions (one start), then refused as without a known one.
    equal(loads[1].starts, 1);
    equal(
      loads[1].error!.replace(/now sha256-[0-9a-f]{64}/, "now sha256-…"),
      `Cannot load plugin "${file}": plugin "counted": its manifest (tools, schemas, hooks, ` +
        "permissions) differs from the one inspected (sha256-0000, now sha256-…); it is refused",
    );
  },
);

freshDenoDirTest(
  "known manifests: inspecting a plugin remembers its manifest for the load after",
  async (denoDir, dir) => {
    const file = `${dir}/counted.js`;
    await writeSettled(file, plugin('"Echoes"'));
    const inspectFirst = host(file, [{}]).replace(
      "const out = [];",
      `const { inspectPlugin } = await import(${SANDBOX});
await inspectPlugin(${JSON.stringify(file)});
const out = [];`,
    );
    const loads = await runHost(inspectFirst, denoDir) as Load[];
    deepEqual(loads.map((load) => [load.starts, load.text]), [[1, `hi:${Deno.env.get("HOME")}`]]);
  },
);

/**
 * A plugin whose manifest depends on what its top level may read: it declares `env:
 * ["HOME"]` only when it can read HOME. Read with no permissions it declares nothing; its
 * tool says whether its top level could read HOME.
 */
const shifty = `import { definePlugin, defineTool, Type } from ${PLUGIN_API};
console.log("top level ran");
let home;
try { home = Deno.env.get("HOME"); } catch { /* no env access */ }
export default definePlugin({
  name: "shifty",
  permissions: home === undefined ? {} : { env: ["HOME"] },
  tools: [defineTool({ name: "echo", description: "Echoes",
    parameters: Type.Object({ text: Type.String() }),
    execute: ({ text }) => ({ content: [{ type: "text", text: text + ":" + (home === undefined ? "no env" : "env") }] }) })],
});`;

freshDenoDirTest(
  "known manifests: a manifest read with given permissions is not remembered for a load without them",
  async (denoDir, dir) => {
    const file = `${dir}/shifty.js`;
    await writeSettled(file, shifty);
    const loads = await loadsOf(file, [{ permissions: { env: ["HOME"] } }, {}, {}], denoDir);
    // Given env, its top level reads HOME; without, its manifest is read with no
    // permissions, and it declares (and gets) nothing, every time.
    deepEqual(loads.map((load) => [load.starts, load.text]), [
      [1, "hi:env"],
      [1, "hi:no env"],
      [1, "hi:no env"],
    ]);
  },
);

freshDenoDirTest(
  "known manifests: a factory passed null and one passed no options are different versions",
  async (denoDir, dir) => {
    // Passed null it declares env; passed nothing, nothing. Each factory run prints
    // whether it could read HOME.
    const file = `${dir}/optioned.js`;
    await writeSettled(
      file,
      `import { definePlugin, defineTool, Type } from ${PLUGIN_API};
console.log("top level ran");
export default (options) => {
  let home;
  try { home = Deno.env.get("HOME"); } catch { /* no env access */ }
  console.log("factory ran " + (home === undefined ? "without env" : "with env"));
  return definePlugin({
name: "optioned",
permissions: options === null ? { env: ["HOME"] } : {},
tools: [defineTool({ name: "echo", description: "Echoes",
  parameters: Type.Object({ text: Type.String() }),
  execute: ({ text }) => ({ content: [{ type: "text", text }] }) })],
  });
};`,
    );
    const source = host(file, [{ options: null }, {}, {}, { options: null }])
      .replace(
        "let starts = 0;",
        "let starts = 0; const factories = [];",
      )
      .replace(
        "starts++; };",
        `starts++;
  const ran = parts.join(" ").match(/factory ran (.*)/); if (ran) factories.push(ran[1]); };`,
      )
      .replace("const before = starts;", "const before = starts; factories.length = 0;")
      .replace(
        "out.push({ starts: starts - before,",
        "out.push({ factories: [...factories], starts: starts - before,",
      );
    const loads = await runHost(source, denoDir) as (Load & { factories: string[] })[];
    // Passed nothing, its factory never runs with env, as without a remembered manifest.
    deepEqual(loads.map((load) => [load.starts, load.factories, load.error]), [
      [2, ["without env", "with env"], undefined],
      [1, ["without env"], undefined],
      [1, ["without env"], undefined],
      [1, ["with env"], undefined],
    ]);
  },
);

freshDenoDirTest(
  "known manifests: an edit keeping size and time runs the new top level once with the remembered grants, then the long way",
  async (denoDir, dir) => {
    // Two versions of one size: the first declares env, the second nothing; each top
    // level prints whether it could read HOME.
    const version = (declared: string) =>
      `import { definePlugin, defineTool, Type } from ${PLUGIN_API};
let home;
try { home = Deno.env.get("HOME"); } catch { /* no env access */ }
console.log("top level ran " + (home === undefined ? "without env" : "with env"));
export default definePlugin({
  name: "edited",
  permissions: ${declared},
  tools: [defineTool({ name: "echo", description: "Echoes",
parameters: Type.Object({ text: Type.String() }),
execute: ({ text }) => ({ content: [{ type: "text", text }] }) })],
});`;
    const first = version('{ env: ["HOME"] }');
    const second = version("{}".padEnd('{ env: ["HOME"] }'.length));
    equal(first.length, second.length);
    const file = `${dir}/edited.js`;
    await writeSettled(file, first);
    const { mtime, atime } = await Deno.stat(file);
    const source = (loads: unknown[]) =>
      host(file, loads)
        .replace("let starts = 0;", "let starts = 0; const tops = [];")
        .replace(
          "starts++; };",
          `starts++;
  const ran = parts.join(" ").match(/top level ran (.*)/); if (ran) tops.push(ran[1]); };`,
        )
        .replace("const before = starts;", "const before = starts; tops.length = 0;")
        .replace(
          "out.push({ starts: starts - before,",
          "out.push({ tops: [...tops], starts: starts - before,",
        )
        .replace(
          "console.log(JSON.stringify(out));",
          // No sandbox is left running after a start that went the long way (one killed a
          // moment ago may still be reaped: a zombie is not running, and it is waited for).
          `const childrenNow = () => new TextDecoder().decode(new Deno.Command("ps", {
  args: ["-o", "args=", "--ppid", String(Deno.pid)],
}).outputSync().stdout).split("\\n").filter((line) =>
  line !== "" && !line.includes("ps -o args=") && !/ bundle /.test(line) && !line.includes("<defunct>")
);
let children = childrenNow();
for (let i = 0; i < 40 && children.length > 0; i++) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  children = childrenNow();
}
out.push({ children: children.length });
if (children.length > 0) console.error(children.join("\\n"));
console.log(JSON.stringify(out));`,
        );
    deepEqual(await runHost(source([{}]), denoDir), [
      {
        tops: ["without env", "with env"],
        starts: 2,
        tool: "echo",
        description: "Echoes",
        text: "hi",
      },
      { children: 0 },
    ]);
    await Deno.writeTextFile(file, second);
    await Deno.utime(file, atime!, mtime!);
    // Not told from the first version: its top level runs once with the first's grants,
    // reports another manifest, and is loaded the long way, with none.
    deepEqual(await runHost(source([{}, {}]), denoDir), [
      {
        tops: ["with env", "without env"],
        starts: 2,
        tool: "echo",
        description: "Echoes",
        text: "hi",
      },
      { tops: ["without env"], starts: 1, tool: "echo", description: "Echoes", text: "hi" },
      { children: 0 },
    ]);
  },
);
