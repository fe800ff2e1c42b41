/**
 * Schemas whose regular expressions (`pattern`, `patternProperties`) run on the
 * linear-time RE2 engine: a tool's schema, which a sandboxed plugin or an MCP server
 * supplies, must not make the host run a catastrophic regex on the model's arguments.
 *
 * @module
 */

import { compileRe2 } from "./linear_regexp.ts";

type Node = Record<string, unknown>;
type Refinement = { check(value: unknown): boolean; error(value: unknown): string };
type Validate = (schema: object) => { Check(value: unknown): boolean };

const SCHEMA_KEYS = [
  "additionalProperties",
  "items",
  "additionalItems",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
];
const SCHEMA_LIST_KEYS = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const SCHEMA_MAP_KEYS = ["properties", "$defs", "definitions", "dependentSchemas"];

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function compilePattern(source: string): { test(input: string): boolean } {
  try {
    return compileRe2(source, "u");
  } catch (error) {
    throw new SyntaxError(
      `pattern ${JSON.stringify(source)} is not valid RE2 syntax, which schemas are ` +
        `checked with (no backreferences or lookaround): ${(error as Error).message}`,
    );
  }
}

function patternRefinement(source: string): Refinement {
  const regex = compilePattern(source);
  return {
    check: (value) => typeof value !== "string" || regex.test(value),
    error: () => `must match pattern ${source}`,
  };
}

function patternPropertiesRefinement(node: Node, compile: Validate): Refinement {
  const entries = Object.entries(node.patternProperties as Node).map(([source, schema]) => ({
    source,
    regex: compilePattern(source),
    validator: compile(linearSchema(schema as object, compile)),
  }));
  const known = new Set(Object.keys(isNode(node.properties) ? node.properties : {}));
  const extra = node.additionalProperties;
  const extraValidator = isNode(extra) ? compile(linearSchema(extra, compile)) : undefined;
  const firstFailure = (value: unknown): string | undefined => {
    if (!isNode(value)) return undefined;
    for (const [key, item] of Object.entries(value)) {
      let matched = known.has(key);
      for (const entry of entries) {
        if (!entry.regex.test(key)) continue;
        matched = true;
        if (!entry.validator.Check(item)) return `property ${key} does not match its schema`;
      }
      if (matched) continue;
      if (extra === false) return `property ${key} is not allowed`;
      if (extraValidator && !extraValidator.Check(item)) {
        return `property ${key} does not match additionalProperties`;
      }
    }
    return undefined;
  };
  return {
    check: (value) => firstFailure(value) === undefined,
    error: (value) => firstFailure(value) ?? "does not match patternProperties",
  };
}

/**
 * A copy of `schema` in which every `pattern` and `patternProperties` (with the
 * `additionalProperties` beside it) is checked by a TypeBox refinement running the
 * linear-time engine, so the validator compiled from it never hands a schema's regex to
 * V8. Returns `schema` itself when it has neither.
 *
 * @param schema A JSON Schema or TypeBox schema.
 * @param compile Compiles a sub-schema (for `patternProperties` values).
 * @returns The schema to compile.
 * @throws {SyntaxError} When a pattern is not valid RE2 syntax (backreferences,
 * lookaround) or is too large.
 *
 * @example A pattern moves to the linear-time engine
 * ```ts
 * import { linearSchema } from "./linear_schema.ts";
 * import { Compile } from "typebox/compile";
 * import { equal } from "node:assert/strict";
 *
 * const schema = linearSchema({ type: "string", pattern: "^a+$" }, Compile);
 * equal("pattern" in schema, false);
 * equal(Compile(schema).Check("aaa"), true);
 * equal(Compile(schema).Check("b"), false);
 * ```
 */
export function linearSchema(schema: object, compile: Validate): object {
  if (!isNode(schema)) return schema;
  let out: Node | undefined;
  const set = (key: string, value: unknown) => {
    out ??= { ...schema };
    out[key] = value;
  };
  const refinements: Refinement[] = [];
  if (typeof schema.pattern === "string") {
    refinements.push(patternRefinement(schema.pattern));
    set("pattern", undefined);
  }
  if (isNode(schema.patternProperties)) {
    refinements.push(patternPropertiesRefinement(schema, compile));
    set("patternProperties", undefined);
    if ("additionalProperties" in schema) set("additionalProperties", undefined);
  }
  for (const key of SCHEMA_KEYS) {
    const value = schema[key];
    if (!isNode(value) || (out && key in out && out[key] === undefined)) continue;
    const next = linearSchema(value, compile);
    if (next !== value) set(key, next);
  }
  for (const key of SCHEMA_LIST_KEYS) {
    const value = schema[key];
    if (!Array.isArray(value)) continue;
    const next = value.map((item) => (isNode(item) ? linearSchema(item, compile) : item));
    if (next.some((item, i) => item !== value[i])) set(key, next);
  }
  for (const key of SCHEMA_MAP_KEYS) {
    const value = schema[key];
    if (!isNode(value)) continue;
    const next = Object.fromEntries(
      Object.entries(value).map(([name, item]) => [
        name,
        isNode(item) ? linearSchema(item, compile) : item,
      ]),
    );
    if (Object.keys(next).some((name) => next[name] !== value[name])) set(key, next);
  }
  if (refinements.length > 0) {
    const existing = Array.isArray(schema["~refine"]) ? schema["~refine"] : [];
    set("~refine", [...existing, ...refinements]);
  }
  if (!out) return schema;
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out;
}
