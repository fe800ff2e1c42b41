// A sandbox child loads TypeBox from one prebuilt bundle (DENO_DIR/tack_bundles) when
// nothing else in its graph could hold a second copy: checked with real sandbox processes,
// from inside the plugin (where `typebox` resolves, whether Tack and the plugin share one
// `Type`, whether Compile works through its named and default exports).
import { deepEqual, equal } from "node:assert/strict";
import type { Plugin } from "@tack/agent";
import { denoCacheDir } from "../../sdk/sandbox/deno_dir.ts";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";

const fixture = (name: string) => new URL(`../fixtures/sandbox/${name}`, import.meta.url).pathname;

async function probe(plugin: Plugin, tool: string): Promise<Record<string, unknown>> {
  const found = plugin.tools!.find((one) => one.name === tool)!;
  const result = await found.execute({}, {
    toolCallId: "p",
    signal: new AbortController().signal,
  });
  const [block] = result.content;
  return JSON.parse(block.type === "text" ? block.text : "{}");
}

for (const confine of [true, false]) {
  Deno.test(`npm bundle: TypeBox loads from the bundle, one copy for Tack and the plugin (${confine ? "bubblewrap" : "no OS layer"})`, async () => {
    const plugin = await loadPlugin(fixture("typebox_plugin.ts"), {
      sandbox: true,
      confine,
      stderr: "capture",
      onWarning: () => {},
    });
    try {
      const seen = await probe(plugin, "typebox_probe");
      const resolved = String(seen.resolved);
      equal(resolved.startsWith(`file://${await denoCacheDir()}/tack_bundles/`), true, resolved);
      deepEqual({ ...seen, resolved: "" }, {
        resolved: "",
        oneType: true,
        oneCompile: true,
        checks: [true, false],
      });
    } finally {
      await plugin.dispose?.();
    }
  });
}

Deno.test("npm bundle: next to another npm package, TypeBox loads from npm as the host resolved it", async () => {
  const plugin = await loadPlugin(fixture("zod_typebox_plugin.ts"), {
    sandbox: true,
    stderr: "capture",
    onWarning: () => {},
  });
  try {
    const seen = await probe(plugin, "zod_typebox_probe");
    equal(
      seen.resolved,
      `file://${await denoCacheDir()}/npm/registry.npmjs.org/typebox/1.4.3/build/index.mjs`,
    );
    equal(seen.zod, true);
  } finally {
    await plugin.dispose?.();
  }
});
