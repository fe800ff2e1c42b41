// A sandboxed plugin's tool schemas are checked by its host (the child does not load the
// validator: tests/fresh/light_imports_test.ts), so a schema that does not compile is
// refused at load, as one a name cannot be.
import { rejects } from "node:assert/strict";
import { inspectPlugin, loadPlugin } from "../../sdk/sandbox/mod.ts";

const linux = Deno.build.os === "linux";
const TACK = new URL("../../", import.meta.url);

// A pattern RE2 cannot compile, in a tool made with defineTool and in a bare tool object.
const DEFINED = `import { defineTool, Type } from ${
  JSON.stringify(new URL("sdk/plugin_api.ts", TACK).href)
};
export default { name: "broken", tools: [defineTool({ name: "find", description: "Finds",
  parameters: Type.Object({ text: Type.String({ pattern: "(" }) }),
  execute: () => ({ content: [] }) })] };`;
const BARE = `export default { name: "broken", tools: [{ name: "find", description: "Finds",
  parameters: { type: "object", properties: { text: { type: "string", pattern: "(?<=a)b" } } },
  execute: () => ({ content: [] }) }] };`;

Deno.test({
  name: "a sandboxed tool whose schema does not compile is refused by load and inspect",
  ignore: !linux,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "tack-broken-schema-" });
    await Deno.writeTextFile(`${dir}/defined.js`, DEFINED);
    await Deno.writeTextFile(`${dir}/bare.js`, BARE);
    try {
      for (
        const [file, pattern, why] of [
          ["defined.js", "(", "missing closing ): `(`"],
          ["bare.js", "(?<=a)b", "invalid named capture: `(?<=a)b`"],
        ]
      ) {
        const message = `Cannot load plugin "${dir}/${file}": plugin "broken" is refused: ` +
          `its tool "find" has an invalid parameter schema: pattern ${
            JSON.stringify(pattern)
          } is not valid RE2 syntax, which schemas are checked with (no backreferences or lookaround): ${why}`;
        await rejects(
          loadPlugin(`${dir}/${file}`, { sandbox: true, stderr: "capture", onWarning: () => {} }),
          { message },
        );
        await rejects(inspectPlugin(`${dir}/${file}`, { stderr: "capture" }), { message });
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
