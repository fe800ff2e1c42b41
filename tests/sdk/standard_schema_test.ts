import {
  type AgentTool,
  createAgent,
  definePlugin,
  defineTool,
  scriptedModel,
  text,
  toolCall,
  validateToolArguments,
} from "@tack/agent";
import { z } from "zod";
import { Type } from "typebox";
import { toStandardJsonSchema, v } from "../support/test_packages.ts";
import { deepEqual, equal, throws } from "node:assert/strict";
import { resultsOf, textOf } from "../support/agent_harness.ts";

/** Runs one batch of calls through an agent with `tool` and a rewriting plugin. */
async function runGates(tool: AgentTool, received: unknown[]) {
  const rewriter = definePlugin({
    name: "rewriter",
    beforeToolCall: ({ args }) => (args.city === "rewrite me" ? { args: { days: 0 } } : undefined),
  });
  const model = scriptedModel([
    [
      toolCall("banana", {}, "1"), // gate 1: the tool exists
      toolCall("forecast", { town: "Oslo" }, "2"), // gate 2: prepareArguments renames `town`
      toolCall("forecast", { city: "Paris", days: "3" }, "3"), // coerced, then valid
      toolCall("forecast", { days: "soon" }, "4"), // gate 3: invalid
      toolCall("forecast", { city: "Rome", days: 0 }, "5"), // invalid: below the minimum
      toolCall("forecast", { city: "rewrite me" }, "6"), // gate 4: rewritten arguments invalid
    ],
    [text("done")],
  ]);
  const agent = createAgent({ model, tools: [tool], plugins: [rewriter] });
  const results = resultsOf(await agent.prompt("go"));
  return { results, request: model.requests[0], received };
}

Deno.test("a Zod tool through the four gates: Tack's texts, coercion, output types", async () => {
  const received: unknown[] = [];
  const forecast = defineTool({
    name: "forecast",
    description: "Forecast for a city",
    parameters: z.object({ city: z.string(), days: z.number().int().min(1).default(1) }),
    prepareArguments: (raw) => ("town" in raw ? { city: raw.town } : raw),
    execute: ({ city, days }) => {
      // Static types from the schema's output: `days` is a number (its default applied).
      const total: number = days * 1;
      received.push({ city, days: total });
      return { content: [{ type: "text", text: `${city}: ${days} days` }] };
    },
  });
  const { results, request } = await runGates(forecast, received);
  deepEqual(request.tools[0].parameters, {
    type: "object",
    properties: {
      city: { type: "string" },
      days: { type: "integer", minimum: 1, maximum: 9007199254740991, default: 1 },
    },
    required: ["city"],
  });
  deepEqual(received, [{ city: "Oslo", days: 1 }, { city: "Paris", days: 3 }]);
  deepEqual(results.map(textOf), [
    "Tool banana not found. Available tools: forecast",
    "Oslo: 1 days",
    "Paris: 3 days",
    'Invalid arguments for tool "forecast":\n' +
    "  - city: is required\n" +
    '  - days: Invalid input: expected number, received string\nReceived arguments: {"days":"soon"}',
    'Invalid arguments for tool "forecast":\n' +
    '  - days: Too small: expected number to be >=1 (received 0)\nReceived arguments: {"city":"Rome","days":0}',
    'Invalid arguments for tool "forecast" (arguments rewritten by plugin "rewriter"):\n' +
    "  - city: is required\n" +
    '  - days: Too small: expected number to be >=1 (received 0)\nReceived arguments: {"days":0}',
  ]);
  deepEqual(results.map((r) => r.isError), [true, false, false, true, true, true]);
});

Deno.test("a Valibot tool (toStandardJsonSchema) through the four gates: Tack's texts, coercion", async () => {
  const received: unknown[] = [];
  const schema = toStandardJsonSchema(
    v.object({ city: v.string(), days: v.optional(v.pipe(v.number(), v.minValue(1)), 1) }),
  );
  const forecast = defineTool({
    name: "forecast",
    description: "Forecast for a city",
    parameters: schema,
    prepareArguments: (raw) => ("town" in raw ? { city: raw.town } : raw),
    execute: ({ city, days }) => {
      const total: number = days * 1;
      received.push({ city, days: total });
      return { content: [{ type: "text", text: `${city}: ${days} days` }] };
    },
  });
  const { results, request } = await runGates(forecast, received);
  deepEqual(request.tools[0].parameters, {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "number", minimum: 1, default: 1 } },
    required: ["city"],
  });
  deepEqual(received, [{ city: "Oslo", days: 1 }, { city: "Paris", days: 3 }]);
  deepEqual(results.map(textOf), [
    "Tool banana not found. Available tools: forecast",
    "Oslo: 1 days",
    "Paris: 3 days",
    'Invalid arguments for tool "forecast":\n' +
    "  - city: is required\n" +
    '  - days: Invalid type: Expected number but received "soon"\nReceived arguments: {"days":"soon"}',
    'Invalid arguments for tool "forecast":\n' +
    '  - days: Invalid value: Expected >=1 but received 0\nReceived arguments: {"city":"Rome","days":0}',
    'Invalid arguments for tool "forecast" (arguments rewritten by plugin "rewriter"):\n' +
    "  - city: is required\n" +
    '  - days: Invalid value: Expected >=1 but received 0\nReceived arguments: {"days":0}',
  ]);
});

Deno.test("a Standard Schema without a JSON Schema conversion is refused at definition", () => {
  throws(
    () =>
      defineTool({
        name: "raw_valibot",
        description: "",
        parameters: v.object({ city: v.string() }),
        execute: () => ({ content: [] }),
      }),
    new TypeError(
      'Cannot define tool "raw_valibot": its valibot schema has no JSON Schema conversion ' +
        "(the model needs one). Use a schema implementing Standard JSON Schema (Zod 4 and " +
        "ArkType do; for Valibot wrap it with toStandardJsonSchema from @valibot/to-json-schema)",
    ),
  );
});

Deno.test("a schema that validates asynchronously, or whose validator throws, gives an error result", async () => {
  const slow = defineTool({
    name: "slow_check",
    description: "",
    parameters: z.object({ id: z.string().refine((id) => Promise.resolve(id.length > 0)) }),
    execute: () => ({ content: [{ type: "text", text: "ran" }] }),
  });
  const model = scriptedModel([[toolCall("slow_check", { id: "x" })], [text("done")]]);
  const results = resultsOf(await createAgent({ model, tools: [slow] }).prompt("go"));
  equal(
    textOf(results[0]),
    'Invalid arguments for tool "slow_check":\n' +
      "  - (root): the tool's schema validates asynchronously, which Tack does not support\n" +
      'Received arguments: {"id":"x"}',
  );

  // A hand-written Standard Schema whose validate throws (a library bug) is contained too.
  const throwing = {
    "~standard": {
      version: 1 as const,
      vendor: "handmade",
      validate: (): never => {
        throw new Error("validator bug");
      },
      jsonSchema: { input: () => ({ type: "object" }) },
    },
  };
  const broken = defineTool({
    name: "broken_check",
    description: "",
    parameters: throwing,
    execute: () => ({ content: [{ type: "text", text: "ran" }] }),
  });
  const model2 = scriptedModel([[toolCall("broken_check", {})], [text("done")]]);
  const results2 = resultsOf(await createAgent({ model: model2, tools: [broken] }).prompt("go"));
  equal(
    textOf(results2[0]),
    'Invalid arguments for tool "broken_check":\n' +
      "  - (root): its validator threw: validator bug\nReceived arguments: {}",
  );
});

Deno.test("an ArkType-style schema converts through its toJsonSchema() method; a conversion that throws is a definition error", async () => {
  // ArkType's shape without the package: `~standard` with no `jsonSchema`, and a
  // `toJsonSchema()` method on the type itself.
  const arkLike = (toJsonSchema: () => unknown) => ({
    "~standard": {
      version: 1 as const,
      vendor: "arktype",
      validate: (value: unknown) =>
        typeof (value as { city?: unknown }).city === "string"
          ? { value: value as { city: string } }
          : { issues: [{ message: "must be a string", path: ["city"] }] },
    },
    toJsonSchema,
  });
  const seen: string[] = [];
  const tool = defineTool({
    name: "ark_weather",
    description: "",
    parameters: arkLike(() => ({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    })),
    execute: ({ city }) => {
      seen.push(city);
      return { content: [{ type: "text", text: `Sunny in ${city}` }] };
    },
  });
  const model = scriptedModel([
    [toolCall("ark_weather", { city: "Oslo" }, "1"), toolCall("ark_weather", {}, "2")],
    [text("done")],
  ]);
  const results = resultsOf(await createAgent({ model, tools: [tool] }).prompt("go"));
  // The model is offered the converted schema, its dialect left out.
  deepEqual(model.requests[0].tools[0].parameters, {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
  });
  deepEqual(seen, ["Oslo"]);
  deepEqual(results.map(textOf), [
    "Sunny in Oslo",
    'Invalid arguments for tool "ark_weather":\n  - city: is required\nReceived arguments: {}',
  ]);

  throws(
    () =>
      defineTool({
        name: "ark_broken",
        description: "",
        parameters: arkLike(() => {
          throw new Error("morph has no JSON Schema");
        }),
        execute: () => ({ content: [] }),
      }),
    new TypeError(
      'Cannot define tool "ark_broken": its arktype schema cannot be converted to JSON Schema: ' +
        "morph has no JSON Schema",
    ),
  );
});

Deno.test("invalid arguments list only what coercion cannot fix, for TypeBox and zod alike; the model's own arguments are shown", () => {
  const typebox = Type.Object({ days: Type.Number(), city: Type.String() });
  const zod = defineTool({
    name: "forecast",
    description: "",
    parameters: z.object({ days: z.number(), city: z.string() }),
    execute: () => ({ content: [] }),
  });
  // Before: "days" was listed too, telling the model to fix what Tack fixes itself.
  deepEqual(validateToolArguments("forecast", typebox, { days: "3", city: {} }), {
    ok: false,
    message: 'Invalid arguments for tool "forecast":\n  - city: must be string (received {})\n' +
      'Received arguments: {"days":"3","city":{}}',
  });
  deepEqual(
    validateToolArguments(
      "forecast",
      zod.parameters,
      { days: "3", city: {} },
      zod.validateArguments,
    ),
    {
      ok: false,
      message:
        'Invalid arguments for tool "forecast":\n  - city: Invalid input: expected string, received object\n' +
        'Received arguments: {"days":"3","city":{}}',
    },
  );
});
