// An MCP server's structuredContent is kept in the result's details, which events, `--json`
// and session files write whole: one nested 200,000 levels deep overflowed the stack of every
// JSON.stringify after it (the CLI lost events and stopped its session file). Past 128 levels
// it is left out with a note; `--json` writes a line for an event it cannot write whole.
import { deepEqual, equal } from "node:assert/strict";
import { mapResult } from "../../plugins/mcp/map_result.ts";
import { jsonLine } from "../../cli/json_output.ts";

const deep = (levels: number) => JSON.parse("[".repeat(levels) + "]".repeat(levels));

Deno.test("mcp: a structuredContent nested past 128 levels is left out with a note", () => {
  const mapped = mapResult({
    content: [{ type: "text", text: "ok" }],
    structuredContent: { rows: deep(200_000) },
  });
  deepEqual(mapped, {
    content: [
      { type: "text", text: "ok" },
      {
        type: "text",
        text: "(its structuredContent was left out: it nests more than 128 levels deep)",
      },
    ],
    isError: false,
  });
  // A shallow one stays.
  equal(
    mapResult({ content: [], structuredContent: { rows: deep(10) } }).structuredContent !==
      undefined,
    true,
  );
});

Deno.test("--json: an event that cannot be written whole still gets its line", () => {
  const line = jsonLine({
    type: "tool_execution_end",
    toolCallId: "c1",
    toolName: "t",
    // A BigInt, which JSON.stringify refuses as it refuses what overflows its stack.
    result: { content: [], details: { n: 1n } },
    isError: false,
  });
  deepEqual(JSON.parse(line), {
    type: "tool_execution_end",
    unwritable: "TypeError: Do not know how to serialize a BigInt",
  });
});
