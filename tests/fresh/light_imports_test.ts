// Importing the plugin API loads only what it needs: the OpenAI client and the MCP SDK
// are loaded by the code that uses them (a dynamic import at the first turn), so a plugin
// or script that imports `@tack/agent` for `defineTool` never evaluates them.
import { deepEqual, equal } from "node:assert/strict";
import { Type as TackType } from "@tack/agent";
import { Type } from "typebox";

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier?: string }; isDynamic?: boolean }[];
}

async function staticNpmPackages(module: string): Promise<string[]> {
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
