/**
 * The obvious fixes for what models send: `"5"` for 5, `"true"` for true, `null` for
 * an optional property left out (as strict function calling forces), a JSON string
 * where an object or array belongs.
 *
 * @module
 */

type Schema = Record<string, unknown>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function schemaTypes(schema: Schema): string[] {
  const type = schema.type;
  if (typeof type === "string") return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : [];
}

function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case "number":
      return typeof value === "number";
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "string":
      return typeof value === "string";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isRecord(value);
    default:
      return false;
  }
}

function coercePrimitive(value: unknown, type: string): unknown {
  if (type === "number" || type === "integer") {
    if (typeof value === "string" && value.trim() !== "") {
      const parsed = Number(value);
      if (type === "number" ? Number.isFinite(parsed) : Number.isInteger(parsed)) return parsed;
    }
    return value;
  }
  if (type === "boolean") return value === "true" ? true : value === "false" ? false : value;
  if (type === "string") {
    return typeof value === "number" || typeof value === "boolean" ? String(value) : value;
  }
  if ((type === "object" || type === "array") && typeof value === "string") {
    const trimmed = value.trim();
    if (trimmed.startsWith(type === "object" ? "{" : "[")) {
      try {
        const parsed: unknown = JSON.parse(trimmed);
        if (matchesType(parsed, type)) return parsed;
      } catch { /* not JSON: leave it for the validator to report */ }
    }
  }
  return value;
}

function allowsNull(schema: Schema): boolean {
  if (schemaTypes(schema).includes("null")) return true;
  const union = (schema.anyOf ?? schema.oneOf) as unknown;
  return Array.isArray(union) && union.some((s) => isRecord(s) && allowsNull(s));
}

function coerceObject(value: Record<string, unknown>, schema: Schema): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : undefined;
  if (!properties) return value;
  const required = Array.isArray(schema.required) ? schema.required : [];
  let out = value;
  for (const key of Object.keys(value)) {
    const propertySchema = properties[key];
    if (!isRecord(propertySchema)) continue;
    const drop = value[key] === null && !required.includes(key) && !allowsNull(propertySchema);
    const item = drop ? undefined : coerceValue(value[key], propertySchema);
    if (!drop && item === value[key]) continue;
    if (out === value) out = { ...value }; // the first change copies: `value` stays as it was
    if (drop) delete out[key];
    else out[key] = item;
  }
  return out;
}

function coerceItems(value: unknown[], schema: Schema): unknown[] {
  let out = value;
  for (let i = 0; i < value.length; i++) {
    const item = coerceValue(value[i], schema);
    if (item === value[i]) continue;
    if (out === value) out = value.slice(); // the first change copies, as for objects
    out[i] = item;
  }
  return out;
}

/**
 * Returns `value` with obvious type slips fixed for `schema`. It never changes `value`:
 * what needs no fixing is returned as it is, and an object or array with something fixed
 * inside is copied (only along the way to what changed), so no deep copy is needed first.
 *
 * @param value The arguments as the model sent them.
 * @param schema The JSON Schema they should match.
 * @returns The coerced value (`value` itself when nothing changed).
 *
 * @example
 * ```ts
 * import { coerceValue } from "./coerce_arguments.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const schema = { type: "object", properties: { days: { type: "number" } } };
 * const sent = { days: "5", city: "Oslo" };
 * deepEqual(coerceValue(sent, schema), { days: 5, city: "Oslo" });
 * equal(sent.days, "5"); // not changed
 * const fine = { days: 5 };
 * equal(coerceValue(fine, schema), fine); // nothing to fix: the same object
 * ```
 */
export function coerceValue(value: unknown, schema: Schema): unknown {
  let next = value;
  for (const key of ["anyOf", "oneOf"] as const) {
    const members = schema[key];
    if (Array.isArray(members) && !members.some((m) => isRecord(m) && fitsShallow(next, m))) {
      for (const member of members) {
        if (!isRecord(member)) continue;
        const candidate = coerceValue(next, member);
        if (fitsShallow(candidate, member)) {
          next = candidate;
          break;
        }
      }
    }
  }
  if (Array.isArray(schema.allOf)) {
    for (const member of schema.allOf) if (isRecord(member)) next = coerceValue(next, member);
  }
  const types = schemaTypes(schema);
  if (types.length > 0 && !types.some((t) => matchesType(next, t))) {
    for (const type of types) {
      const candidate = coercePrimitive(next, type);
      if (candidate !== next) {
        next = candidate;
        break;
      }
    }
  }
  if (isRecord(next) && (types.includes("object") || isRecord(schema.properties))) {
    return coerceObject(next, schema);
  }
  if (Array.isArray(next) && isRecord(schema.items)) return coerceItems(next, schema.items);
  return next;
}

function fitsShallow(value: unknown, schema: Schema): boolean {
  const types = schemaTypes(schema);
  if (types.length > 0) return types.some((t) => matchesType(value, t));
  if (Array.isArray(schema.enum)) return schema.enum.includes(value);
  if ("const" in schema) return schema.const === value;
  return false;
}
