// A long-running host restarts a crashed sandbox child after another host's housekeeping
// removed the child's cache folder and the TypeBox bundle it was prepared with: the
// restart makes a new cache and loads TypeBox from npm. A real host process with its own
// stores: a DENO_DIR holding copies of the npm packages the sandbox mounts (TypeBox and
// re2js) and links to this test's other cached packages, so nothing is downloaded.
// Also: the cache a restart keeps is marked used (docs/sandbox.md says so).
import { deepEqual, equal } from "node:assert/strict";
import { skipWithoutBwrap } from "../support/os_layer.ts";
import { keepChildCache } from "../../sdk/sandbox/restart_stores.ts";
import { runHost, withFreshDenoDir } from "../support/fresh_deno_dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * A host that loads `plugin` (once to start the bundle's build on its empty stores, then with
 * the bundle), crashes its child, removes the stores and calls it again.
 */
const hostSource = (plugin: string) =>
  `import { loadPlugin } from ${JSON.stringify(`${ROOT}sdk/sandbox/mod.ts`)};
import { npmBundlesBuilt } from ${JSON.stringify(`${ROOT}sdk/sandbox/npm_bundle.ts`)};
const denoDir = Deno.env.get("DENO_DIR"); // resolved URLs start with "file://" + denoDir
const load = () => loadPlugin(${
    JSON.stringify(plugin)
  }, { sandbox: true, stderr: "capture", onWarning: () => {} });
// The first load on empty stores starts the bundle's build; the next one uses it.
await (await load()).dispose();
await npmBundlesBuilt();
const plugin = await load();
const run = async (name) => {
  const tool = plugin.tools.find((one) => one.name === name);
  try {
    const result = await tool.execute({}, { toolCallId: name, signal: new AbortController().signal });
    return { text: result.content[0].text, isError: false };
  } catch (error) {
    return { text: error.message, isError: true };
  }
};
const first = JSON.parse((await run("typebox_probe")).text);
const crashed = await run("typebox_crash");
// Another host's housekeeping, while this one still runs the plugin.
await Deno.remove(denoDir + "/tack_bundles", { recursive: true });
await Deno.remove(denoDir + "/tack_sandbox", { recursive: true });
const again = await run("typebox_probe");
if (again.isError) { console.log(JSON.stringify({ error: again.text })); Deno.exit(0); }
const after = JSON.parse(again.text);
console.log(JSON.stringify({
  first: first.resolved.slice(7 + denoDir.length),
  crashed: crashed.isError,
  again: after.resolved.slice(7 + denoDir.length),
  checks: after.checks,
  oneType: after.oneType,
  cache: Deno.statSync(denoDir + "/tack_sandbox").isDirectory,
}));
await plugin.dispose();
`;

/**
 * Runs {@linkcode hostSource} on the plugin `plugin(dir)` makes, in a real host process with its
 * own stores in `dir`, and checks the restart loaded TypeBox from npm.
 */
async function restartAfterHousekeeping(plugin: (dir: string) => Promise<string>): Promise<void> {
  await withFreshDenoDir(async (stores, dir) => {
    const seen = await runHost(hostSource(await plugin(dir)), stores) as
      & Record<string, unknown>
      & { first?: string };
    equal(seen.first?.startsWith("/tack_bundles/"), true, JSON.stringify(seen));
    deepEqual({ ...seen, first: "" }, {
      first: "",
      crashed: true,
      again: "/npm/registry.npmjs.org/typebox/1.4.3/build/index.mjs",
      checks: [true, false],
      oneType: true,
      cache: true,
    });
  });
}

/**
 * A copy of the TypeBox fixture in a project of its own (its own config, and its own lock
 * unless `lock` is false), importing Tack's plugin API by path.
 */
function ownProject(lock: boolean): (dir: string) => Promise<string> {
  return async (dir) => {
    await Deno.mkdir(`${dir}/project`);
    await Deno.writeTextFile(
      `${dir}/project/deno.json`,
      JSON.stringify({
        ...(lock ? {} : { lock: false }),
        imports: {
          "@tack/agent/plugin": `${ROOT}sdk/plugin_api.ts`,
          "typebox": "npm:typebox@1.4.3",
          "typebox/": "npm:/typebox@1.4.3/",
          "re2js": "npm:re2js@2.10.0",
        },
      }),
    );
    const plugin = `${dir}/project/plugin.ts`;
    await Deno.copyFile(`${ROOT}tests/fixtures/sandbox/typebox_plugin.ts`, plugin);
    // Files nobody is editing: a description of files changed just now is not kept.
    const past = new Date(Date.now() - 60_000);
    for (const file of [plugin, `${dir}/project/deno.json`]) await Deno.utime(file, past, past);
    return plugin;
  };
}

Deno.test({
  name:
    "restart: a child restarted after housekeeping removed its cache and its TypeBox bundle loads TypeBox from npm",
  ignore: skipWithoutBwrap("restart after housekeeping"),
  fn: () =>
    restartAfterHousekeeping(() =>
      Promise.resolve(`${ROOT}tests/fixtures/sandbox/typebox_plugin.ts`)
    ),
});

// The restart runs with the lock copy made for the bundled graph, frozen: it must name TypeBox.
Deno.test({
  name:
    "restart: a plugin in a project with its own lock loads TypeBox from npm, frozen to that lock",
  ignore: skipWithoutBwrap("restart after housekeeping"),
  fn: () => restartAfterHousekeeping(ownProject(true)),
});

Deno.test({
  name: "restart: a plugin in a project without a lock loads TypeBox from npm",
  ignore: skipWithoutBwrap("restart after housekeeping"),
  fn: () => restartAfterHousekeeping(ownProject(false)),
});

Deno.test("restart: keepChildCache marks an old child cache used now, and leaves a folder it cannot make to the spawn", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tack-keep-" });
  try {
    // A cache last used two hours ago: housekeeping removes those unused for an hour.
    const cache = `${dir}/cache`;
    await Deno.mkdir(cache);
    const past = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await Deno.utime(cache, past, past);
    const before = Date.now();
    keepChildCache(cache);
    equal(Deno.statSync(cache).mtime!.getTime() >= before - 1000, true, "marked used");
    // Under a file: no folder can be made there, and nothing is thrown.
    await Deno.writeTextFile(`${dir}/file`, "");
    keepChildCache(`${dir}/file/cache`);
    equal(Deno.statSync(`${dir}/file`).isFile, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
