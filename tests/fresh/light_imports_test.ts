// Importing the plugin API loads only what it needs: the OpenAI client and the MCP SDK
// are loaded by the code that uses them (a dynamic import at the first turn), so a plugin
// or script that imports `@tack/agent` for `defineTool` never evaluates them.
import { deepEqual, equal } from "node:assert/strict";
import * as root from "@tack/agent";
import * as pluginApi from "@tack/agent/plugin";
import { Type as TackType } from "@tack/agent";
import { Type } from "typebox";

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier?: string }; isDynamic?: boolean }[];
}

/** Every module `module` evaluates: its static imports, transitively (type-only ones are not). */
async function staticModules(module: string): Promise<Set<string>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", module],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    roots: string[];
    modules: InfoModule[];
  };
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>(info.roots);
  const queue = [...info.roots];
  while (queue.length > 0) {
    for (const dependency of modules.get(queue.shift()!)?.dependencies ?? []) {
      const next = dependency.code?.specifier;
      if (dependency.isDynamic || next === undefined || seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return seen;
}

async function staticNpmPackages(module: string): Promise<string[]> {
  const seen = await staticModules(module);
  return [
    ...new Set(
      [...seen].filter((s) => s.startsWith("npm:")).map((s) =>
        s.replace(/^npm:\/?((@[^/]+\/)?[^@/]+).*$/, "npm:$1")
      ),
    ),
  ]
    .sort();
}

// typebox validates arguments, re2js runs schema patterns in linear time: nothing else is
// evaluated by `import "@tack/agent"` (a sandboxed plugin's child pays for every module;
// jsonc-parser loads only when a config is not plain JSON).
Deno.test("mod.ts statically imports no npm package but typebox and re2js", async () => {
  deepEqual(await staticNpmPackages(new URL("../../mod.ts", import.meta.url).href), [
    "npm:re2js",
    "npm:typebox",
  ]);
});

Deno.test("Type from @tack/agent is TypeBox's own (one copy)", () => {
  equal(TackType, Type);
  equal(TackType.String().type, "string");
});

Deno.test("@tack/agent/plugin loads no agent, loop, provider, sandbox loader, telemetry or validator module", async () => {
  const loaded = [...await staticModules(new URL("../../sdk/plugin_api.ts", import.meta.url).href)]
    .filter((url) => url.startsWith("file:"))
    .map((url) =>
      url.slice(url.indexOf("/sdk/") >= 0 ? url.indexOf("/sdk/") : url.indexOf("/core/"))
    );
  for (
    const heavy of [
      "/sdk/agent.ts",
      "/sdk/create_agent.ts",
      "/core/run_loop.ts",
      "/sdk/telemetry/mod.ts",
      "/sdk/sandbox/load_plugin.ts",
      "/sdk/providers/openai/lazy_openai.ts",
      // The argument validator (TypeBox's compiler, re2js): the host checks a sandboxed
      // plugin's schemas, so its child need not load it (~10 ms of every sandbox start).
      "/core/validate_tool_arguments.ts",
    ]
  ) {
    equal(loaded.includes(heavy), false, heavy);
  }
  deepEqual(await staticNpmPackages(new URL("../../sdk/plugin_api.ts", import.meta.url).href), [
    "npm:typebox",
  ]);
});

Deno.test("every value @tack/agent/plugin exports is the very one @tack/agent exports", () => {
  const values = Object.entries(pluginApi);
  equal(values.length >= 10, true);
  for (const [name, value] of values) {
    equal((root as Record<string, unknown>)[name], value, name);
  }
});
