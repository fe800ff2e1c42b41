import { validateToolArguments } from "@tack/agent";
import { toFunctionTool, toStrictSchema } from "@tack/agent/sdk/providers/openai";
import { Type } from "typebox";
import { deepEqual, equal } from "node:assert/strict";

Deno.test("strict schemas close every object and make optional properties nullable", () => {
  const schema = Type.Object({
    path: Type.String({ minLength: 1, description: "Where" }),
    mode: Type.Optional(Type.Union([Type.Literal("a"), Type.Literal("b")])),
    tags: Type.Optional(Type.Array(Type.String(), { uniqueItems: true })),
    limits: Type.Optional(Type.Object({ max: Type.Optional(Type.Number({ default: 3 })) })),
    kind: Type.Optional(Type.Enum(["x", "y"])),
  });
  deepEqual(toStrictSchema(schema), {
    type: "object",
    properties: {
      path: { type: "string", description: "Where" },
      mode: {
        anyOf: [{ type: "string", const: "a" }, { type: "string", const: "b" }, { type: "null" }],
      },
      tags: { type: ["array", "null"], items: { type: "string" } },
      limits: {
        type: ["object", "null"],
        properties: { max: { type: ["number", "null"] } },
        required: ["max"],
        additionalProperties: false,
      },
      kind: { enum: ["x", "y", null], type: ["string", "null"] },
    },
    required: ["path", "mode", "tags", "limits", "kind"],
    additionalProperties: false,
  });
});

Deno.test("what the model sends under a strict schema validates against the original", () => {
  const schema = Type.Object({
    city: Type.String(),
    days: Type.Optional(Type.Integer()),
    unit: Type.Optional(Type.Union([Type.Literal("C"), Type.Literal("F")])),
    nested: Type.Optional(Type.Object({ deep: Type.Optional(Type.Boolean()) })),
  });
  equal(toFunctionTool({ name: "w", description: "", parameters: schema }).strict, true);
  // Strict mode forces every property to be present: null stands for "left out".
  const outcome = validateToolArguments("w", schema, {
    city: "Paris",
    days: null,
    unit: null,
    nested: { deep: null },
  });
  deepEqual(outcome, { ok: true, value: { city: "Paris", nested: {} } });
});

Deno.test("schemas with no strict form go as they are, with strict: false", () => {
  const cases = [
    Type.Object({ env: Type.Record(Type.String(), Type.String()) }),
    Type.Object({ anything: Type.Any() }),
    Type.Object({ both: Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({})]) }),
    { type: "object", properties: { x: { not: { type: "string" } } } },
    { type: "object" },
    Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]),
  ];
  for (const parameters of cases) {
    const tool = toFunctionTool({ name: "t", description: "d", parameters: parameters as never });
    equal(tool.strict, false, JSON.stringify(parameters));
    deepEqual(tool.parameters, JSON.parse(JSON.stringify(parameters)));
  }
});

Deno.test("oneOf becomes anyOf; unsupported formats and annotations are left out", () => {
  const schema = {
    type: "object",
    $schema: "https://json-schema.org/draft/2020-12/schema",
    properties: {
      id: { oneOf: [{ type: "string", format: "uuid" }, { type: "integer", minimum: 0 }] },
      site: { type: "string", format: "uri", maxLength: 200, examples: ["https://x"] },
    },
    required: ["id", "site"],
  };
  deepEqual(toStrictSchema(schema), {
    type: "object",
    properties: {
      id: { anyOf: [{ type: "string", format: "uuid" }, { type: "integer", minimum: 0 }] },
      site: { type: "string" },
    },
    required: ["id", "site"],
    additionalProperties: false,
  });
});

Deno.test("refs and defs are normalized; too deep a schema is not strict", () => {
  const withRef = {
    type: "object",
    $defs: { point: { type: "object", properties: { x: { type: "number" } } } },
    properties: { at: { $ref: "#/$defs/point" } },
  };
  deepEqual(toStrictSchema(withRef), {
    type: "object",
    $defs: {
      point: {
        type: "object",
        properties: { x: { type: ["number", "null"] } },
        required: ["x"],
        additionalProperties: false,
      },
    },
    properties: { at: { anyOf: [{ $ref: "#/$defs/point" }, { type: "null" }] } },
    required: ["at"],
    additionalProperties: false,
  });
  let deep: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < 12; i++) {
    deep = { type: "object", properties: { a: deep }, required: ["a"] };
  }
  equal(toStrictSchema(deep), undefined);
});

Deno.test("strictTools off sends the schema as it is", () => {
  const parameters = Type.Object({ a: Type.Optional(Type.String()) });
  const tool = toFunctionTool({ name: "t", description: "d", parameters }, false);
  deepEqual(tool, {
    name: "t",
    description: "d",
    parameters: { type: "object", properties: { a: { type: "string" } } },
    strict: false,
  });
});
