/**
 * A tool schema's regexes (`pattern`, `patternProperties`) are run by the host when it
 * validates the model's arguments. A sandboxed plugin or MCP server supplies that schema,
 * so a catastrophic one must not stall the host: the host checks them in linear time.
 */

import { validateToolArguments } from "@tack/agent";
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
