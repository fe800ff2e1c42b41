import { defineTool } from "@tack/agent";
import { deepEqual, equal } from "node:assert/strict";

Deno.test("defineTool keeps a definition's own fields beyond AgentTool's, also ones named like Object.prototype's", () => {
  const definition = {
    name: "t",
    description: "",
    parameters: { type: "object" },
    execute: () => ({ content: [] }),
    toString: () => "custom",
    docsUrl: "https://example.test/t",
    [Symbol.for("mark")]: 1,
  };
  const tool = defineTool(definition as Parameters<typeof defineTool>[0]) as unknown as Record<
    PropertyKey,
    unknown
  >;
  equal(Object.hasOwn(tool, "toString"), true);
  equal(String(tool), "custom");
  equal(tool.docsUrl, "https://example.test/t");
  equal(tool[Symbol.for("mark")], 1);
  // Every tool has AgentTool's fields in one order (one object layout), absent ones undefined.
  deepEqual(Object.keys(tool).slice(0, 12), [
    "name",
    "description",
    "parameters",
    "label",
    "executionMode",
    "timeoutMs",
    "maxResultChars",
    "effects",
    "plugin",
    "prepareArguments",
    "validateArguments",
    "execute",
  ]);
  equal(tool.timeoutMs, undefined);
});
