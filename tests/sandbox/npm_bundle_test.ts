// A sandbox child loads TypeBox from one prebuilt bundle (DENO_DIR/tack_bundles) when
// nothing else in its graph could hold a second copy: checked with real sandbox processes,
// from inside the plugin (where `typebox` resolves, whether Tack and the plugin share one
// `Type`, whether Compile works through its named and default exports).
import { deepEqual, equal } from "node:assert/strict";
import type { Plugin } from "@tack/agent";
import { denoCacheDir } from "../../sdk/sandbox/deno_dir.ts";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";
import { prepareModuleGraph } from "../../sdk/sandbox/module_graph.ts";
import { bundleableEntries, npmBundleFor, npmBundlesBuilt } from "../../sdk/sandbox/npm_bundle.ts";
import { runHost, withFreshDenoDir } from "../support/fresh_deno_dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const fixture = (name: string) => new URL(`../fixtures/sandbox/${name}`, import.meta.url).pathname;

async function probe(
  plugin: Plugin,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const found = plugin.tools!.find((one) => one.name === tool)!;
  const result = await found.execute(args, {
    toolCallId: "p",
    signal: new AbortController().signal,
  });
  const [block] = result.content;
  return JSON.parse(block.type === "text" ? block.text : "{}");
}

/**
 * The sandboxed fixture `name`, loaded after its bundle is built: a first load starts the
 * build when the bundle is missing (on an empty cache), and does not wait for it.
 */
async function loadBundled(name: string, confine?: boolean): Promise<Plugin> {
  const load = () =>
    loadPlugin(fixture(name), { sandbox: true, confine, stderr: "capture", onWarning: () => {} });
  await (await load()).dispose?.();
  await npmBundlesBuilt();
  return await load();
}

/** What `tool` of the sandboxed fixture `name` reports (the sandbox is disposed after). */
async function probeSandboxed(
  name: string,
  tool: string,
  options: { confine?: boolean; args?: Record<string, unknown> } = {},
): Promise<Record<string, unknown>> {
  const plugin = await loadBundled(name, options.confine);
  try {
    return await probe(plugin, tool, options.args);
  } finally {
    await plugin.dispose?.();
  }
}

for (const confine of [true, false]) {
  Deno.test(`npm bundle: TypeBox loads from the bundle, one copy for Tack and the plugin (${confine ? "bubblewrap" : "no OS layer"})`, async () => {
    const seen = await probeSandboxed("typebox_plugin.ts", "typebox_probe", { confine });
    const resolved = String(seen.resolved);
    equal(resolved.startsWith(`file://${await denoCacheDir()}/tack_bundles/`), true, resolved);
    deepEqual({ ...seen, resolved: "" }, {
      resolved: "",
      oneType: true,
      oneCompile: true,
      checks: [true, false],
      typeModule: [false, "function"],
      patterns: ["defined", "not RE2"],
    });
  });
}

Deno.test("npm bundle: another npm package that does not depend on TypeBox (zod) leaves it bundled", async () => {
  const seen = await probeSandboxed("zod_typebox_plugin.ts", "zod_typebox_probe");
  const resolved = String(seen.resolved);
  equal(resolved.startsWith(`file://${await denoCacheDir()}/tack_bundles/`), true, resolved);
  equal(seen.zod, true);
});

Deno.test("npm bundle: a plugin importing all of @tack/agent (whose graph names openai and the MCP SDK) gets the bundle", async () => {
  const graph = await prepareModuleGraph(`file://${fixture("root_import_plugin.ts")}`);
  equal(graph.npmPackages.some((id) => id.startsWith("openai@")), true);
  deepEqual(bundleableEntries(graph), ["npm:typebox@1.4.3", "npm:typebox@1.4.3/compile"]);
});

Deno.test("npm bundle: a module importing TypeBox by its npm: specifier keeps TypeBox on npm", async () => {
  deepEqual(await probeSandboxed("direct_npm_typebox_plugin.ts", "direct_npm_probe"), {
    resolved: `file://${await denoCacheDir()}/npm/registry.npmjs.org/typebox/1.4.3/build/index.mjs`,
    checks: true,
  });
});

Deno.test("npm bundle: a missing bundle is built in the background, a broken one built again; stale build folders go", async () => {
  // Its own store (a temp folder as DENO_DIR for the bundles; the npm cache stays the host's).
  const store = await Deno.makeTempDir({ prefix: "tack-bundle-store-" });
  try {
    const graph = await prepareModuleGraph(`file://${fixture("typebox_plugin.ts")}`);
    // Not built yet: this start goes without (TypeBox from npm), the build runs meanwhile.
    equal(await npmBundleFor(graph, store), undefined);
    await npmBundlesBuilt();
    const first = await npmBundleFor(graph, store);
    const chunk = first?.files.find((file) => /\/chunk-[^/]+\.js$/.test(file));
    equal(typeof chunk, "string", JSON.stringify(first?.files));
    await Deno.remove(chunk!);
    // A build folder an interrupted host left an hour ago goes; one being built now stays.
    const hourAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await Deno.mkdir(`${store}/tack_bundles/.build-interrupted`);
    await Deno.utime(`${store}/tack_bundles/.build-interrupted`, hourAgo, hourAgo);
    await Deno.mkdir(`${store}/tack_bundles/.build-live`);
    // Broken: not used, built again.
    equal(await npmBundleFor(graph, store), undefined);
    await npmBundlesBuilt();
    const again = await npmBundleFor(graph, store);
    equal(await Deno.stat(`${store}/tack_bundles/.build-interrupted`).then(() => 1, () => 0), 0);
    equal(await Deno.stat(`${store}/tack_bundles/.build-live`).then(() => 1, () => 0), 1);
    deepEqual(again?.files, first?.files);
    equal((await Deno.stat(chunk!)).isFile, true);
    // The rebuilt bundle loads and works.
    const compile = await import(again!.targets.get("npm:typebox@1.4.3/compile")!);
    const type = await import(again!.targets.get("npm:typebox@1.4.3")!);
    equal(compile.Compile(type.Type.String()).Check("x"), true);
  } finally {
    await Deno.remove(store, { recursive: true });
  }
});

Deno.test({
  name:
    "npm bundle: the first start on an empty cache does not wait for the bundle (TypeBox from npm); the next start loads it",
  ignore: Deno.build.os !== "linux",
  fn: () =>
    withFreshDenoDir(async (denoDir) => {
      const source = `import { loadPlugin } from ${JSON.stringify(`${ROOT}sdk/sandbox/mod.ts`)};
import { npmBundlesBuilt } from ${JSON.stringify(`${ROOT}sdk/sandbox/npm_bundle.ts`)};
const denoDir = Deno.env.get("DENO_DIR");
const resolved = async () => {
  const plugin = await loadPlugin(${
        JSON.stringify(fixture("typebox_plugin.ts"))
      }, { sandbox: true, stderr: "capture", onWarning: () => {} });
  const tool = plugin.tools.find((one) => one.name === "typebox_probe");
  const result = await tool.execute({}, { toolCallId: "p", signal: new AbortController().signal });
  await plugin.dispose();
  const seen = JSON.parse(result.content[0].text);
  return [seen.resolved.slice(7 + denoDir.length).replace(/[0-9a-f]{32}/, "<key>"), seen.checks];
};
const first = await resolved();
await npmBundlesBuilt();
console.log(JSON.stringify([first, await resolved()]));
`;
      deepEqual(await runHost(source, denoDir), [
        ["/npm/registry.npmjs.org/typebox/1.4.3/build/index.mjs", [true, false]],
        ["/tack_bundles/<key>/e1.js", [true, false]],
      ]);
    }),
});

Deno.test("npm bundle: the plugin cannot change the bundle it loads, nor the host's graph store", async () => {
  const plugin = await loadBundled("typebox_plugin.ts");
  try {
    const store = `${await denoCacheDir()}/tack_graphs`;
    const bundle = new URL(String((await probe(plugin, "typebox_probe")).resolved));
    equal(bundle.pathname.startsWith(`${await denoCacheDir()}/tack_bundles/`), true);
    const before = await Deno.readTextFile(bundle);
    deepEqual(await probe(plugin, "typebox_tamper", { store }), {
      writeBundle: "NotCapable",
      removeBundle: "NotCapable",
      writeStore: "NotCapable",
    });
    equal(await Deno.readTextFile(bundle), before);
    equal(await Deno.stat(`${store}/forged.json`).then(() => true, () => false), false);
  } finally {
    await plugin.dispose?.();
  }
});
