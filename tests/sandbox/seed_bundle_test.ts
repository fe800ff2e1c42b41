// A plugin's seed was keyed by its code alone, not by whether TypeBox came from its prebuilt
// bundle: a seed filled while the bundle was missing (a new cache's second load, or after
// housekeeping removed the bundle) held TypeBox's npm modules, and was kept once the bundle
// was there, so every later start compiled the bundle (~370 modules' worth) and could not
// cache it. A real host process on a fresh DENO_DIR.
import { equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { runHost, withFreshDenoDir } from "../support/fresh_deno_dir.ts";
import { skipWithoutBwrap } from "../support/os_layer.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PLUGIN = `${ROOT}tests/fixtures/sandbox/typebox_plugin.ts`;

/** The filled seeds under `denoDir` (a plugin keeps one at a time). */
function seeds(denoDir: string): string[] {
  const found: string[] = [];
  for (const plugin of Deno.readDirSync(`${denoDir}/tack_sandbox`)) {
    for (const entry of Deno.readDirSync(`${denoDir}/tack_sandbox/${plugin.name}`)) {
      if (/^seed-[0-9a-f]+$/.test(entry.name)) {
        found.push(`${denoDir}/tack_sandbox/${plugin.name}/${entry.name}`);
      }
    }
  }
  return found;
}

/** How many modules of TypeBox's bundle a seed holds code for. */
function bundleModules(seed: string): number {
  const database = new DatabaseSync(`${seed}/v8_code_cache_v2`, { readOnly: true });
  try {
    const row = database.prepare(
      "SELECT count(*) AS n FROM codecache WHERE specifier LIKE '%/tack_bundles/%'",
    ).get();
    return Number(row?.n);
  } finally {
    database.close();
  }
}

Deno.test({
  name: "a seed filled while TypeBox's bundle was missing is filled again once the bundle is there",
  ignore: skipWithoutBwrap("the code cache seed"),
  fn: () =>
    withFreshDenoDir(async (denoDir) => {
      const source = `import { loadPlugin, npmBundlesBuilt } from ${
        JSON.stringify(`${ROOT}sdk/sandbox/mod.ts`)
      };
const load = async () => {
  const plugin = await loadPlugin(${
        JSON.stringify(PLUGIN)
      }, { sandbox: true, stderr: "capture", onWarning: () => {} });
  await plugin.dispose();
};
await load(); // the first start: no seed; the bundle is built meanwhile
await npmBundlesBuilt();
await Deno.remove(${JSON.stringify(`${denoDir}/tack_bundles`)}, { recursive: true });
await load(); // the bundle missing: a seed of TypeBox from npm (the bundle built again)
await npmBundlesBuilt();
await load(); // with the bundle
console.log(JSON.stringify({ done: true }));
`;
      equal(JSON.stringify(await runHost(source, denoDir)), '{"done":true}');
      const filled = seeds(denoDir);
      equal(filled.length, 1, filled.join());
      equal(bundleModules(filled[0]) > 0, true, "the seed holds no code of the bundle");
    }),
});
