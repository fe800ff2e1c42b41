/**
 * `replayTools`: tools that answer from a cassette instead of running.
 *
 * @module
 */

import type { AgentTool } from "../../core/tool.ts";
import { type CassetteLine, parseCassette } from "./cassette.ts";

/**
 * The same tools (names, schemas, descriptions), answering each call with the result the
 * cassette recorded for that call id; nothing runs. A recorded error is thrown again with
 * its text, so the model reads the same error. A call the cassette does not have fails
 * with `Cannot replay tool <name>: call <id> is not in the cassette`.
 *
 * @param cassette JSONL text or parsed lines.
 * @param tools The run's tools.
 * @returns The replaying tools.
 *
 * @example
 * ```ts
 * import { defineTool, replayTools } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const rm = defineTool({
 *   name: "rm", description: "Deletes", parameters: { type: "object" } as const,
 *   execute: () => { throw new Error("must not run"); },
 * });
 * const line = { type: "tool_result", toolCallId: "c1", toolName: "rm", isError: false,
 *   result: { content: [{ type: "text", text: "deleted" }] } };
 * const [replayed] = replayTools(JSON.stringify(line), [rm]);
 * const result = await replayed.execute({}, { toolCallId: "c1", signal: new AbortController().signal });
 * equal(result.content[0].type === "text" && result.content[0].text, "deleted");
 * ```
 */
export function replayTools(
  cassette: string | readonly CassetteLine[],
  tools: readonly AgentTool[],
): AgentTool[] {
  const lines = typeof cassette === "string" ? parseCassette(cassette) : cassette;
  const results = new Map<string, Extract<CassetteLine, { type: "tool_result" }>>();
  for (const line of lines) if (line.type === "tool_result") results.set(line.toolCallId, line);
  return tools.map((tool): AgentTool => ({
    ...tool,
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    execute(_args, context) {
      const recorded = results.get(context.toolCallId);
      if (!recorded || recorded.toolName !== tool.name) {
        throw new Error(
          `Cannot replay tool ${tool.name}: call ${context.toolCallId} is not in the cassette`,
        );
      }
      if (recorded.isError) {
        throw new Error(
          recorded.result.content.map((c) => (c.type === "text" ? c.text : "")).join(""),
        );
      }
      return structuredClone(recorded.result);
    },
  }));
}
