/**
 * Whether a JSON Schema refers back into itself. A recursive schema whose branches
 * (`anyOf`, `oneOf`) each recurse makes validation exponential in how deeply the arguments
 * nest (a three-branch one took 34 s on arguments 14 levels deep), and the arguments come
 * from a model. Schemas from code Tack does not trust (a sandboxed plugin, an MCP server)
 * must not recurse; a tool of your own may, at your risk.
 *
 * @module
 */

/** The keywords by which a JSON Schema refers to another schema. */
export const REF_KEYWORDS = ["$ref", "$dynamicRef", "$recursiveRef"] as const;
/** Keywords whose value maps names to schemas (the map itself is not a schema). */
const SCHEMA_MAPS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]);
/** Keywords whose value is data, never a schema. */
const DATA_KEYS = new Set(["const", "enum", "default", "examples"]);

/** The value at a JSON pointer fragment (`#/$defs/node`) of `root`, if there is one. */
function resolvePointer(root: unknown, ref: string): unknown {
  let node = root;
  const path = ref.slice(1);
  if (path === "") return root;
  if (!path.startsWith("/")) return undefined;
  for (const raw of path.slice(1).split("/")) {
    let part: string;
    try {
      part = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined;
    }
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/**
 * Why a schema is recursive or refers where Tack does not follow, or `undefined` when its
 * every `$ref` is a pointer into the schema itself (`#`, `#/…`) and none leads back to a
 * schema it is part of. `$dynamicRef`, `$recursiveRef` and references by `$id` or URL are
 * not followed, so they are reported too.
 *
 * @param schema A JSON Schema (walked without recursion limits: bound its size first).
 * @returns The reason, or `undefined`.
 *
 * @example A tree, and a plain reuse of a definition
 * ```ts
 * import { schemaRecursion } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const tree = {
 *   $defs: { node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
 *   $ref: "#/$defs/node",
 * };
 * equal(schemaRecursion(tree), 'its $ref "#/$defs/node" leads back to a schema it is part of');
 * const reuse = {
 *   $defs: { city: { type: "string" } },
 *   type: "object", properties: { from: { $ref: "#/$defs/city" }, to: { $ref: "#/$defs/city" } },
 * };
 * equal(schemaRecursion(reuse), undefined);
 * ```
 */
export function schemaRecursion(schema: unknown): string | undefined {
  const open = new Set<object>(); // schemas being walked: reaching one again is a cycle
  const done = new Set<object>(); // schemas walked whole: walked once, however often referred to
  const walk = (node: unknown): string | undefined => {
    if (typeof node !== "object" || node === null || done.has(node)) return undefined;
    if (open.has(node)) return "cycle";
    open.add(node);
    const found = Array.isArray(node) ? walkAll(node) : walkSchema(node as Record<string, unknown>);
    if (found !== undefined) return found;
    open.delete(node);
    done.add(node);
    return undefined;
  };
  const walkAll = (nodes: Iterable<unknown>): string | undefined => {
    for (const node of nodes) {
      const found = walk(node);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const walkSchema = (node: Record<string, unknown>): string | undefined => {
    for (const key of REF_KEYWORDS) {
      const ref = node[key];
      if (ref === undefined) continue;
      if (key !== "$ref" || typeof ref !== "string" || !ref.startsWith("#")) {
        return `its ${key} ${
          JSON.stringify(ref)
        } is not a pointer into the schema (#/…), which is all Tack follows`;
      }
      const target = resolvePointer(schema, ref);
      if (target === undefined) return `its $ref ${JSON.stringify(ref)} points nowhere`;
      const found = walk(target);
      if (found === "cycle") {
        return `its $ref ${JSON.stringify(ref)} leads back to a schema it is part of`;
      }
      if (found !== undefined) return found;
    }
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYS.has(key)) continue; // values, not schemas: a "$ref" there is data
      const isMap = SCHEMA_MAPS.has(key) && typeof value === "object" && value !== null &&
        !Array.isArray(value);
      const found = isMap ? walkAll(Object.values(value)) : walk(value);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  let found: string | undefined;
  try {
    found = walk(schema);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return "it nests too deeply to be checked"; // the call stack ran out
  }
  return found === "cycle" ? "it refers back to itself" : found;
}
