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

Deno.test({
  name:
    "a sandboxed tool whose parameters are not a JSON Schema object is refused by load and inspect, saying what they are",
  ignore: !linux,
  async fn() {
    // A hostile plugin need not use defineTool: null, a string, a number or `true` made the
    // compiler's own error the reason ("Cannot use 'in' operator…", "Invalid value used as
    // weak map key"), and an array compiled, so the tool was offered to the model with it.
    const dir = await Deno.makeTempDir({ prefix: "tack-odd-schema-" });
    try {
      for (
        const [value, kind] of [
          ["null", "null"],
          ['"object"', "a string"],
          ["[]", "an array"],
          ['[{ "type": "object" }]', "an array"],
          ["true", "a boolean"],
          ["5", "a number"],
        ]
      ) {
        const file = `${dir}/odd.js`;
        await Deno.writeTextFile(
          file,
          `export default { name: "odd", tools: [{ name: "find", description: "Finds",
            parameters: ${value}, execute: () => ({ content: [] }) }] };`,
        );
        const message = `Cannot load plugin "${file}": plugin "odd" is refused: its tool "find" ` +
          `has parameters that are not a JSON Schema object (got ${kind})`;
        await rejects(
          loadPlugin(file, { sandbox: true, stderr: "capture", onWarning: () => {} }),
          { message },
          value,
        );
        await rejects(inspectPlugin(file, { stderr: "capture" }), { message }, value);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
