/**
 * A tool schema's regexes (`pattern`, `patternProperties`) are run by the host when it
 * validates the model's arguments. A sandboxed plugin or MCP server supplies that schema,
 * so a catastrophic one must not stall the host: the host checks them in linear time.
 */

import { createAgent, scriptedModel, text, toolCall, validateToolArguments } from "@tack/agent";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";
import { resultsOf, textOf } from "../support/agent_harness.ts";
import { Type } from "typebox";
import { deepEqual, equal } from "node:assert/strict";

const attack = "a".repeat(5000) + "b";

Deno.test("schema pattern: a catastrophic pattern fails fast with the pattern named", () => {
  const schema = {
    type: "object",
    properties: { s: { type: "string", pattern: "^(a+)+$" } },
    required: ["s"],
  };
  const outcome = validateToolArguments("t", schema, { s: attack });
  equal(outcome.ok, false);
  equal(
    !outcome.ok && outcome.message.split("\n")[1],
    `  - s: must match pattern ^(a+)+$ (received "${attack}")`,
  );
  deepEqual(validateToolArguments("t", schema, { s: "aaa" }), { ok: true, value: { s: "aaa" } });
});

Deno.test("schema patternProperties: keys are matched in linear time, additionalProperties kept", () => {
  const schema = {
    type: "object",
    patternProperties: { "^(a+)+$": { type: "number" } },
    additionalProperties: false,
  };
  const refused = validateToolArguments("t", schema, { [attack]: 1 });
  equal(refused.ok, false);
  equal(
    !refused.ok && refused.message.split("\n")[1].startsWith(
      `  - (root): property ${attack} is not allowed`,
    ),
    true,
  );
  deepEqual(validateToolArguments("t", schema, { aaa: 1 }), { ok: true, value: { aaa: 1 } });
  equal(validateToolArguments("t", schema, { aaa: "x" }).ok, false);
  // TypeBox's Record is patternProperties underneath.
  const record = Type.Object({ h: Type.Record(Type.String(), Type.String()) });
  deepEqual(validateToolArguments("t", record, { h: { a: "1" } }), {
    ok: true,
    value: { h: { a: "1" } },
  });
  equal(validateToolArguments("t", record, { h: { a: 1 } }).ok, false);
});

Deno.test("a sandboxed plugin's catastrophic schema pattern is checked by the host in linear time", async () => {
  const plugin = await loadPlugin(
    new URL("../fixtures/sandbox/catastrophic_schema_plugin.ts", import.meta.url).href,
    { sandbox: true, stderr: "capture" },
  );
  try {
    const long = "a".repeat(40) + "b";
    const agent = createAgent({
      model: scriptedModel([
        [toolCall("echo", { s: long }, "c1"), toolCall("echo", { s: "aaa" }, "c2")],
        [text("done")],
      ]),
      plugins: [plugin],
    });
    const results = resultsOf(await agent.prompt("go")).map((r) => [textOf(r), r.isError]);
    deepEqual(results, [
      [
        `Invalid arguments for tool "echo":\n  - s: must match pattern ^(a+)+$ (received "${long}")` +
        `\nReceived arguments: {"s":"${long}"}`,
        true,
      ],
      ["aaa", false],
    ]);
  } finally {
    await plugin.dispose?.();
  }
});
