import { createAgent, definePlugin, defineTool, scriptedModel, text } from "@tack/agent";
import { Type } from "typebox";
import { deepEqual, equal, throws } from "node:assert/strict";

const tool = (name: string) =>
  defineTool({
    name,
    description: "",
    parameters: Type.Object({}),
    execute: () => ({ content: [] }),
  });

Deno.test("two plugins registering the same tool name is a load error naming both", () => {
  throws(
    () =>
      createAgent({
        model: scriptedModel([]),
        plugins: [
          definePlugin({ name: "fs", tools: [tool("read")] }),
          definePlugin({ name: "other", tools: [tool("read")] }),
        ],
      }),
    {
      message:
        'Cannot create agent: tool "read" is registered twice, by plugin "fs" and by plugin "other"',
    },
  );
});

Deno.test("a plugin tool clashing with an agent tool is a load error too", () => {
  throws(
    () =>
      createAgent({
        model: scriptedModel([]),
        plugins: [definePlugin({ name: "fs", tools: [tool("read")] })],
        tools: [tool("read")],
      }),
    {
      message:
        'Cannot create agent: tool "read" is registered twice, by plugin "fs" and by createAgent({ tools })',
    },
  );
});

Deno.test("two plugins with one name are refused", () => {
  throws(
    () =>
      createAgent({
        model: scriptedModel([]),
        plugins: [definePlugin({ name: "x" }), definePlugin({ name: "x" })],
      }),
    { message: 'Cannot create agent: two plugins are named "x"' },
  );
});

Deno.test("createAgent without a model is a TypeError", () => {
  // deno-lint-ignore no-explicit-any
  throws(() => createAgent({} as any), TypeError);
});

Deno.test("defineTool refuses names the APIs reject; a broken schema fails where it is registered", () => {
  throws(() => tool("get weather"), {
    name: "TypeError",
    message: 'Cannot define tool "get weather": a name must match ^[a-zA-Z0-9_-]{1,64}$',
  });
  throws(() => tool("x".repeat(65)), TypeError);
  // Its shape is checked (a JavaScript caller may leave parameters out), not compiled.
  for (const [parameters, kind] of [[undefined, "undefined"], [null, "null"], [[], "an array"]]) {
    throws(
      () =>
        defineTool({
          name: "shapeless",
          description: "",
          parameters: parameters as unknown as Record<string, never>,
          execute: () => ({ content: [] }),
        }),
      {
        name: "TypeError",
        message:
          'Cannot define tool "shapeless": parameters must be a schema (TypeBox, JSON Schema or a Standard Schema), not ' +
          kind,
      },
    );
  }
  // defineTool does not compile the schema (a sandbox child would load the validator for
  // nothing); registering the tool does, naming it and its plugin.
  const broken = defineTool({
    name: "bad_schema",
    description: "",
    parameters: Type.Object({ p: Type.String({ pattern: "(" }) }),
    execute: () => ({ content: [] }),
  });
  throws(
    () =>
      createAgent({
        model: scriptedModel([]),
        plugins: [definePlugin({ name: "p", tools: [broken] })],
      }),
    {
      message:
        'Cannot create agent: tool "bad_schema" (from plugin "p") has an invalid parameter schema: ' +
        'pattern "(" is not valid RE2 syntax, which schemas are checked with (no backreferences or lookaround): missing closing ): `(`',
    },
  );
  throws(() => definePlugin({ name: "" }), {
    message: "Cannot define plugin: it needs a non-empty name",
  });
});

Deno.test("plugin tools are tagged with their plugin, agent tools are not; plugin tools come first", () => {
  const agent = createAgent({
    model: scriptedModel([]),
    plugins: [definePlugin({ name: "p", tools: [tool("a")] })],
    tools: [tool("b")],
  });
  deepEqual(agent.tools.map((t) => [t.name, t.plugin]), [["a", "p"], ["b", undefined]]);
});

Deno.test("dispose releases plugins and the model, in order", async () => {
  const released: string[] = [];
  const model = { ...scriptedModel([[text("x")]]), dispose: () => void released.push("model") };
  const agent = createAgent({
    model,
    plugins: [
      definePlugin({ name: "a", dispose: () => void released.push("a") }),
      definePlugin({ name: "b", dispose: () => void released.push("b") }),
    ],
  });
  await agent.prompt("hi");
  await agent.dispose();
  deepEqual(released, ["a", "b", "model"]);
});

Deno.test("plugin onEvent sees every event of a run", async () => {
  const types: string[] = [];
  const agent = createAgent({
    model: scriptedModel([[text("x")]]),
    plugins: [definePlugin({ name: "watch", onEvent: (e) => void types.push(e.type) })],
  });
  await agent.prompt("hi");
  equal(types[0], "agent_start");
  equal(types.at(-1), "agent_end");
});

Deno.test("tool params are typed from the schema (TypeBox and as-const JSON Schema)", () => {
  defineTool({
    name: "typed",
    description: "",
    parameters: Type.Object({ city: Type.String(), days: Type.Optional(Type.Number()) }),
    execute: ({ city, days }) => {
      const c: string = city;
      const d: number | undefined = days;
      // @ts-expect-error city is a string, not a number
      const wrong: number = city;
      return { content: [{ type: "text", text: `${c}${d}${wrong}` }] };
    },
  });
  defineTool({
    name: "plain",
    description: "",
    parameters: {
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n"],
    } as const,
    execute: ({ n }) => {
      const value: number = n;
      // @ts-expect-error n is a number
      const wrong: string = n;
      return { content: [{ type: "text", text: `${value}${wrong}` }] };
    },
  });
});
