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

// A hostile plugin's manifest is compiled on the host, before anything of it is trusted:
// each of these loaded (or stalled the host) before the manifest's size was bounded. The
// schemas are built by the plugin's own code, so each file is small.
const ATTACKS: [string, string, string][] = [
  [
    "thousands of tools",
    `Array.from({ length: 5000 }, (_, i) => tool("t" + i, { type: "object" }))`,
    "it has 5000 tools, more than 1000",
  ],
  [
    "a schema nested 100 levels deep",
    `(() => { let s = { type: "string" };
      for (let i = 0; i < 50; i++) s = { type: "object", properties: { a: s } };
      return [tool("deep", s)]; })()`,
    'its tool "deep" has a parameter schema nested more than 64 levels deep',
  ],
  [
    "schemas of 30,000 JSON values",
    `Array.from({ length: 3 }, (_, i) => tool("big" + i, { type: "object",
      properties: { a: { const: Array.from({ length: 10000 }, (_, j) => j) } } }))`,
    "its tools' parameter schemas hold more than 20000 JSON values together",
  ],
  [
    "300 patterns near the size limit (~3 ms each to compile, with no bound on how many)",
    `Array.from({ length: 300 }, (_, i) => tool("p" + i, { type: "object",
      properties: { a: { type: "string", pattern: "a{1000}b{900}" } } }))`,
    "its tools' parameter schemas hold more than 256 patterns together",
  ],
  [
    "long word-list patterns that compile (~43 ms each: 256 of them, within the count, blocked the host 11 s)",
    `(() => { const words = Array.from({ length: 8000 }, (_, i) => "w" + i.toString(36))
        .join("|").slice(0, 29990);
      return Array.from({ length: 4 }, (_, i) => tool("w" + i, { type: "object",
        properties: { a: { type: "string", pattern: "^(" + words + ")$" } } })); })()`,
    "its tools' parameter schemas hold patterns of more than 100000 characters together",
  ],
  [
    "$refs doubling at each of 34 levels (seconds to reject the probe value, twice as long per level: 40 took 3 minutes)",
    `(() => { const $defs = { a34: { type: "string" } };
      for (let i = 0; i < 34; i++) {
        $defs["a" + i] = { anyOf: [{ $ref: "#/$defs/a" + (i + 1) }, { $ref: "#/$defs/a" + (i + 1) }] };
      }
      return [tool("laughs", { $defs, $ref: "#/$defs/a0" })]; })()`,
    'its tool "laughs" has a parameter schema with more than 32 $refs',
  ],
  [
    "a recursive schema whose branches all recurse (checking arguments 14 levels deep took 34 s)",
    `(() => { const branch = (key) =>
        ({ type: "object", properties: { a: { $ref: "#/$defs/n" } }, required: ["a", key] });
      return [tool("tree", { type: "object", $defs: { n: { anyOf: [branch("x"), branch("y")] } },
        properties: { a: { $ref: "#/$defs/n" } } })]; })()`,
    `its tool "tree" has a parameter schema the host does not check a model's arguments against: ` +
    'its $ref "#/$defs/n" leads back to a schema it is part of (a recursive schema can take ' +
    "exponential time in how deeply arguments nest)",
  ],
  [
    "a $ref to the whole schema",
    `[tool("again", { type: "object", properties: { a: { $ref: "#" } } })]`,
    `its tool "again" has a parameter schema the host does not check a model's arguments against: ` +
    'its $ref "#" leads back to a schema it is part of (a recursive schema can take ' +
    "exponential time in how deeply arguments nest)",
  ],
  [
    "a $ref by URL (which Tack does not follow, so cannot tell recursive)",
    `[tool("far", { type: "object", properties: { a: { $ref: "https://example.com/s.json" } } })]`,
    `its tool "far" has a parameter schema the host does not check a model's arguments against: ` +
    'its $ref "https://example.com/s.json" is not a pointer into the schema (#/…), which is all ' +
    "Tack follows (a recursive schema can take exponential time in how deeply arguments nest)",
  ],
];

Deno.test({
  name:
    "a manifest too big to check quickly (tools, depth, values, patterns, $refs) or recursive is refused by load and inspect before anything is compiled",
  ignore: !linux,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "tack-big-manifest-" });
    try {
      for (const [attack, tools, problem] of ATTACKS) {
        const file = `${dir}/big.js`;
        await Deno.writeTextFile(
          file,
          `const tool = (name, parameters) =>
            ({ name, description: "", parameters, execute: () => ({ content: [] }) });
          export default { name: "big", tools: ${tools} };`,
        );
        const message = `Cannot load plugin "${file}": plugin "big" is refused: ${problem}`;
        await rejects(
          loadPlugin(file, { sandbox: true, stderr: "capture", onWarning: () => {} }),
          { message },
          attack,
        );
        await rejects(inspectPlugin(file, { stderr: "capture" }), { message }, attack);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
