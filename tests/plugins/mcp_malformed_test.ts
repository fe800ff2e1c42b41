import { toolCall } from "@tack/agent";
import { mcp } from "@tack/agent/plugins/mcp";
import readOnly from "@tack/agent/plugins/read_only";
import { deepEqual } from "node:assert/strict";
import { firstText, fixtureServer, run } from "./mcp_fixture.ts";

const malformed = (mode: string) => ({ ...fixtureServer("malformed_server.ts", mode) });

Deno.test("mcp: tools named constructor and toString get their annotations' effects, not Object's functions", async () => {
  const plugin = await mcp({ name: "h", ...malformed("names"), effects: { echo: ["read"] } });
  try {
    deepEqual(plugin.tools.map((tool) => [tool.name, tool.effects]), [
      ["h_constructor", ["write", "net"]],
      ["h_toString", ["write", "net"]],
      ["h_echo", ["read"]],
    ]);
    const { results } = await run(plugin, [
      toolCall("h_constructor", { text: "a" }, "1"),
      toolCall("h_echo", { text: "b" }, "2"),
    ], { plugins: [readOnly()] });
    deepEqual(results.map(firstText), [
      'Blocked by plugin "read-only": h_constructor has effect write, and read-only mode blocks write and exec',
      'echo:{"text":"b"}',
    ]);
  } finally {
    await plugin.dispose();
  }
});
