/**
 * What Tack asks of tool schemas from code it does not trust (a sandboxed plugin, an MCP
 * server) before it compiles them in the host or checks a model's arguments against them:
 * each a JSON Schema object, all of them within `SCHEMA_LIMITS` (`schema_size.ts`), none recursive,
 * each compiling.
 *
 * @module
 */

import { invalidSchemaReason } from "../core/validate_tool_arguments.ts";
import { schemaRecursion } from "./schema_recursion.ts";
import { schemaSizeProblem, type SchemaTally } from "./schema_size.ts";

/** What a value is, in a few words (never the value: it may be huge). */
function kindOf(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/**
 * Why these tools' schemas are not used, if they are not, in the order they are checked:
 * parameters that are not an object, schemas past `SCHEMA_LIMITS` (`schema_size.ts`) (checked
 * before anything is compiled), a recursive schema ({@linkcode schemaRecursion}), a schema
 * that does not compile.
 *
 * @param tools Tools with a name and `parameters` (any value).
 * @param tally What schemas checked before used of `SCHEMA_LIMITS`' totals, to hold tools
 * checked one at a time to them together (see `schemaSizeProblem`); none when omitted.
 * @returns The problem, naming the tool (`its tool "find" has …`), or `undefined`.
 *
 * @example A tree, and a plain object
 * ```ts
 * import { untrustedSchemaProblem } from "@tack/agent";
 * import { equal, match } from "node:assert/strict";
 *
 * const tree = { type: "object", properties: { children: { type: "array", items: { $ref: "#" } } } };
 * match(untrustedSchemaProblem([{ name: "tree", parameters: tree }])!, /^its tool "tree" has a parameter schema the host does not check/);
 * equal(untrustedSchemaProblem([{ name: "find", parameters: { type: "object" } }]), undefined);
 * ```
 */
export function untrustedSchemaProblem(
  tools: readonly { name: string; parameters: unknown }[],
  tally?: SchemaTally,
): string | undefined {
  for (const { name, parameters } of tools) {
    if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) {
      return `its tool "${name}" has parameters that are not a JSON Schema object (got ${
        kindOf(parameters)
      })`;
    }
  }
  const tooBig = schemaSizeProblem(tools, tally);
  if (tooBig !== undefined) return tooBig;
  for (const { name, parameters } of tools) {
    const recursion = schemaRecursion(parameters);
    if (recursion !== undefined) {
      return `its tool "${name}" has a parameter schema the host does not check a model's arguments against: ${recursion} (a recursive schema can take exponential time in how deeply arguments nest)`;
    }
  }
  for (const { name, parameters } of tools) {
    const problem = invalidSchemaReason(parameters as Record<string, unknown>);
    if (problem !== undefined) {
      return `its tool "${name}" has an invalid parameter schema: ${problem}`;
    }
  }
  return undefined;
}
