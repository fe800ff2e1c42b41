/**
 * Tool specs to OpenAI function tools, with the parameter schema normalized for strict
 * mode (structured outputs) when it can be expressed there.
 *
 * @module
 */

import type { ToolSpec } from "../../../core/model.ts";

/** A function tool in the shape both OpenAI APIs share. */
export interface FunctionTool {
  /** The tool's name. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** The JSON Schema of its arguments (normalized when `strict`). */
  parameters: Record<string, unknown>;
  /** Whether the provider is asked to hold the model to the schema exactly. */
  strict: boolean;
}

type Schema = Record<string, unknown>;

/** Keywords strict mode accepts and that we pass on as they are. */
const KEPT = new Set([
  "type",
  "description",
  "title",
  "enum",
  "const",
  "pattern",
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
]);

/**
 * Keywords strict mode rejects that only narrow or annotate: left out of what the provider
 * sees. The tool's own validation still enforces them, so a value that breaks one comes
 * back to the model as an error result it can fix.
 */
const DROPPED = new Set([
  "minLength",
  "maxLength",
  "default",
  "examples",
  "uniqueItems",
  "$schema",
  "$id",
  "$comment",
  "readOnly",
  "writeOnly",
  "deprecated",
  "contentEncoding",
  "contentMediaType",
]);

const FORMATS = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
]);

/** OpenAI's documented limits for strict schemas. */
const MAX_DEPTH = 10;
const MAX_PROPERTIES = 5000;
const MAX_ENUM_VALUES = 1000;

/** Thrown inside {@linkcode toStrictSchema} when a schema cannot be made strict. */
class NotStrict extends Error {}

function isRecord(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeOfValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** The `type` an `enum` or `const` implies, for schemas that leave it out. */
function impliedType(values: unknown[]): string | string[] {
  const types = [...new Set(values.map(typeOfValue))];
  if (types.includes("number") && types.includes("integer")) {
    types.splice(types.indexOf("integer"), 1);
  }
  return types.length === 1 ? types[0] : types;
}

function nullable(schema: Schema): Schema {
  if (Array.isArray(schema.anyOf)) {
    const hasNull = schema.anyOf.some((member) => isRecord(member) && member.type === "null");
    return hasNull ? schema : { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  }
  const type = schema.type;
  const plain = type !== undefined && !("const" in schema) && !("$ref" in schema);
  if (plain && !Array.isArray(schema.enum)) {
    const types = Array.isArray(type) ? type : [type];
    return types.includes("null") ? schema : { ...schema, type: [...types, "null"] };
  }
  if (plain && Array.isArray(schema.enum)) {
    const types = Array.isArray(type) ? type : [type];
    return {
      ...schema,
      type: types.includes("null") ? types : [...types, "null"],
      enum: schema.enum.includes(null) ? schema.enum : [...schema.enum, null],
    };
  }
  const { description, ...rest } = schema;
  const wrapped: Schema = { anyOf: [rest, { type: "null" }] };
  if (description !== undefined) wrapped.description = description;
  return wrapped;
}

class Normalizer {
  properties = 0;

  schema(input: unknown, depth: number): Schema {
    if (!isRecord(input)) throw new NotStrict();
    if (depth > MAX_DEPTH) throw new NotStrict();
    const out: Schema = {};
    for (const [key, value] of Object.entries(input)) {
      if (KEPT.has(key)) out[key] = value;
      else if (key === "format") {
        if (typeof value === "string" && FORMATS.has(value)) out.format = value;
      } else if (key === "anyOf" || key === "oneOf") {
        if (!Array.isArray(value) || value.length === 0) throw new NotStrict();
        // oneOf is not accepted; anyOf admits everything oneOf does, and the tool's own
        // validation still checks that exactly one member matches.
        out.anyOf = value.map((member) => this.schema(member, depth + 1));
      } else if (key === "$ref") {
        if (typeof value !== "string") throw new NotStrict();
        out.$ref = value;
      } else if (key === "$defs" || key === "definitions") {
        if (!isRecord(value)) throw new NotStrict();
        const defs: Schema = {};
        for (const [name, def] of Object.entries(value)) defs[name] = this.schema(def, depth + 1);
        out[key] = defs;
      } else if (key === "items") {
        out.items = this.schema(value, depth + 1);
      } else if (
        key === "properties" || key === "required" || key === "additionalProperties" ||
        DROPPED.has(key)
      ) {
        continue;
      } else {
        throw new NotStrict();
      }
    }
    if (Array.isArray(out.enum) && out.enum.length > MAX_ENUM_VALUES) throw new NotStrict();
    if (out.type === undefined && Array.isArray(out.enum)) out.type = impliedType(out.enum);
    if (out.type === undefined && "const" in out) out.type = impliedType([out.const]);
    if (out.type === undefined && out.anyOf === undefined && out.$ref === undefined) {
      throw new NotStrict(); // an unconstrained value ("any") has no strict form
    }
    const types = Array.isArray(out.type) ? out.type : [out.type];
    if (types.includes("object") || isRecord(input.properties)) this.object(input, out, depth);
    if (types.includes("array") && out.items === undefined) throw new NotStrict();
    return out;
  }

  object(input: Schema, out: Schema, depth: number): void {
    const extra = input.additionalProperties;
    // A map with free-form keys cannot be written as a closed object.
    if (isRecord(extra) || !isRecord(input.properties)) throw new NotStrict();
    const required = new Set(Array.isArray(input.required) ? input.required : []);
    const properties: Schema = {};
    for (const [name, property] of Object.entries(input.properties)) {
      if (++this.properties > MAX_PROPERTIES) throw new NotStrict();
      const normalized = this.schema(property, depth + 1);
      properties[name] = required.has(name) ? normalized : nullable(normalized);
    }
    out.type = out.type ?? "object";
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
}

/**
 * Rewrites a parameter schema the way OpenAI's strict mode demands: every object closed
 * (`additionalProperties: false`) with every property required, optional ones made
 * nullable (the tool's validation drops the `null` the model then sends for them), and
 * keywords strict mode rejects but that only narrow (`minLength`, `default`, …) left
 * out. A schema with no strict form (free-form maps, `allOf`, `not`, unconstrained
 * values, too deep) gives `undefined`: send it as it is, with `strict: false`.
 *
 * @param schema The tool's JSON Schema (TypeBox schemas are JSON Schema).
 * @returns The strict schema, or `undefined` when there is none.
 *
 * @example An optional property becomes a required, nullable one
 * ```ts
 * import { toStrictSchema } from "@tack/agent/sdk/providers/openai";
 * import { Type } from "typebox";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const strict = toStrictSchema(
 *   Type.Object({ city: Type.String(), days: Type.Optional(Type.Integer()) }),
 * );
 * deepEqual(strict, {
 *   type: "object",
 *   properties: { city: { type: "string" }, days: { type: ["integer", "null"] } },
 *   required: ["city", "days"],
 *   additionalProperties: false,
 * });
 * equal(toStrictSchema(Type.Record(Type.String(), Type.Number())), undefined);
 * ```
 */
export function toStrictSchema(schema: unknown): Record<string, unknown> | undefined {
  if (!isRecord(schema) || (schema.type !== "object" && !isRecord(schema.properties))) {
    return undefined; // strict mode wants an object at the root
  }
  try {
    return new Normalizer().schema(schema, 0);
  } catch (error) {
    if (error instanceof NotStrict) return undefined;
    throw error;
  }
}

/**
 * Converts a tool spec to a function tool: strict with a normalized schema when the
 * schema has a strict form (and `strict` is not turned off), else the schema as it is.
 *
 * @param tool The tool as the model sees it.
 * @param strict Ask for strict mode where possible (default `true`).
 * @returns The function tool.
 *
 * @example
 * ```ts
 * import { toFunctionTool } from "@tack/agent/sdk/providers/openai";
 * import { Type } from "typebox";
 * import { equal } from "node:assert/strict";
 *
 * const tool = toFunctionTool({
 *   name: "get_weather", description: "Weather", parameters: Type.Object({ city: Type.String() }),
 * });
 * equal(tool.strict, true);
 * ```
 */
export function toFunctionTool(tool: ToolSpec, strict = true): FunctionTool {
  const normalized = strict ? toStrictSchema(tool.parameters) : undefined;
  return {
    name: tool.name,
    description: tool.description,
    parameters: normalized ?? plainSchema(tool.parameters),
    strict: normalized !== undefined,
  };
}

/** The schema as plain JSON (drops TypeBox's non-enumerable markers). */
function plainSchema(schema: unknown): Record<string, unknown> {
  const plain: unknown = JSON.parse(JSON.stringify(schema ?? {}));
  return isRecord(plain) ? plain : { type: "object", properties: {} };
}
