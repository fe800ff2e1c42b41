// A host that starts a TypeBox bundle's build (a sandboxed plugin's first start on a
// machine without the bundle) and just returns from its main module, never awaiting
// `npmBundlesBuilt()`, stays up until the build is done: the bundle is there after it
// exits (docs/sandbox.md says so). A real host process on a fresh DENO_DIR.
import { equal } from "node:assert/strict";
import { builtBundles, runHost, withFreshDenoDir } from "../support/fresh_deno_dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test({
  name: "npm bundle: a host that returns from main without awaiting the build leaves it built",
  ignore: Deno.build.os !== "linux",
  fn: () =>
    withFreshDenoDir(async (denoDir) => {
      const source = `import { loadPlugin } from ${JSON.stringify(`${ROOT}sdk/sandbox/mod.ts`)};
const plugin = await loadPlugin(${
        JSON.stringify(`${ROOT}tests/fixtures/sandbox/typebox_plugin.ts`)
      }, { sandbox: true, stderr: "capture", onWarning: () => {} });
await plugin.dispose();
console.log(JSON.stringify({ returned: true }));
`;
      // The first start does not wait for the build (tests/sandbox/npm_bundle_test.ts shows
      // it); the process does, after its main module returned.
      equal(JSON.stringify(await runHost(source, denoDir)), '{"returned":true}');
      equal(await builtBundles(denoDir), 1);
    }),
});
