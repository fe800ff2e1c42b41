// What a listed plugin imports is found as Deno resolves it: through the import map of the
// config the CLI resolves with (passed here as the CLI would find it), statically only (a
// dynamic import is not followed), and the config's own edit is a change. Real `deno info`,
// temporary folders.
import { deepEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { describePluginImports, importsChange } from "../../cli/plugin_imports.ts";

Deno.test("plugin imports: a bare specifier resolves through the CLI's import map; dynamic imports are not followed; an edit to the map asks", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-plugin-imports-" }));
  try {
    const config = join(dir, "host", "deno.json");
    const map = join(dir, "host", "map.json");
    await Deno.mkdir(join(dir, "host"));
    await Deno.mkdir(join(dir, "repo"));
    await Deno.writeTextFile(config, JSON.stringify({ importMap: "./map.json" }));
    await Deno.writeTextFile(map, JSON.stringify({ imports: { lib: "../repo/mapped.ts" } }));
    await Deno.writeTextFile(join(dir, "repo", "mapped.ts"), "export const x = 1;\n");
    await Deno.writeTextFile(join(dir, "repo", "later.ts"), "export const y = 1;\n");
    const plugin = join(dir, "repo", "p.ts");
    await Deno.writeTextFile(
      plugin,
      'import { x } from "lib";\nexport default { x, later: () => import("./later.ts") };\n',
    );
    const configs = [config, map];
    const imports = await describePluginImports([plugin], join(dir, "repo"), configs);
    deepEqual(Object.keys(imports.modules), [join(dir, "repo", "mapped.ts")]);
    deepEqual(Object.keys(imports.configs), configs);
    equal(await importsChange(imports, true, configs), undefined);

    await Deno.writeTextFile(map, JSON.stringify({ imports: { lib: "../repo/later.ts" } }));
    equal(
      await importsChange(imports, true, configs),
      `the Deno config ${map}, which its plugins' imports resolve with, changed`,
    );
    equal(
      await importsChange(imports, true, [config]),
      `its plugins' imports now resolve with ${config}`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("plugin imports: a record made before imports were covered asks once there are local plugins", async () => {
  equal(
    await importsChange(undefined, true, []),
    "what its plugins import was not recorded when you trusted it",
  );
  equal(await importsChange(undefined, false, []), undefined);
});
