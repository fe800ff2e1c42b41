// Which schemas Tack will not check a model's arguments against when they come from code
// it does not trust (a sandboxed plugin, an MCP server): recursive ones, and ones whose
// references it does not follow.
import { equal } from "node:assert/strict";
import { schemaRecursion } from "@tack/agent";

Deno.test("schemaRecursion: cycles through $defs, the root, and a definition reused many times", () => {
  equal(
    schemaRecursion({
      $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } },
      $ref: "#/$defs/a",
    }),
    'its $ref "#/$defs/a" leads back to a schema it is part of',
  );
  equal(
    schemaRecursion({ type: "array", items: { $ref: "#" } }),
    'its $ref "#" leads back to a schema it is part of',
  );
  // A definition reused by a chain of 30 doubling references is walked once, not 2^30 times.
  const $defs: Record<string, unknown> = { d30: { type: "string" } };
  for (let i = 0; i < 30; i++) {
    $defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  }
  equal(schemaRecursion({ $defs, $ref: "#/$defs/d0" }), undefined);
  // Escaped pointer parts (~1 for "/", ~0 for "~", percent-encoding) resolve.
  equal(
    schemaRecursion({
      $defs: { "a/b": { type: "string" }, "c~d": { type: "number" }, "e f": { type: "null" } },
      anyOf: [{ $ref: "#/$defs/a~1b" }, { $ref: "#/$defs/c~0d" }, { $ref: "#/$defs/e%20f" }],
    }),
    undefined,
  );
});

Deno.test("schemaRecursion: references it does not follow are reported, not guessed", () => {
  equal(
    schemaRecursion({ $ref: "#/$defs/missing" }),
    'its $ref "#/$defs/missing" points nowhere',
  );
  equal(
    schemaRecursion({ $id: "node", properties: { next: { $ref: "node" } } }),
    'its $ref "node" is not a pointer into the schema (#/…), which is all Tack follows',
  );
  equal(
    schemaRecursion({ $dynamicRef: "#meta" }),
    'its $dynamicRef "#meta" is not a pointer into the schema (#/…), which is all Tack follows',
  );
  equal(
    schemaRecursion({ properties: { a: { $ref: 5 } } }),
    "its $ref 5 is not a pointer into the schema (#/…), which is all Tack follows",
  );
  // A property named "$ref" inside "properties" is a schema too, and is read as one.
  equal(schemaRecursion({ properties: { $ref: { type: "string" } } }), undefined);
});

Deno.test("schemaRecursion: an object cycle or nesting past the call stack is reported", () => {
  const cyclic: Record<string, unknown> = { type: "object" };
  cyclic.properties = { self: cyclic };
  equal(schemaRecursion(cyclic), "it refers back to itself");
  let deep: unknown = { type: "string" };
  for (let i = 0; i < 100_000; i++) deep = { items: deep };
  equal(schemaRecursion(deep), "it nests too deeply to be checked");
});

Deno.test('schemaRecursion: a "$ref" in data (const, enum, default, examples) is not a reference', () => {
  equal(
    schemaRecursion({
      type: "object",
      const: { $ref: "x" },
      enum: [{ $ref: "#" }],
      default: { $ref: "#" },
      examples: [{ $ref: "y" }],
    }),
    undefined,
  );
});
