/**
 * Parameter schemas: TypeBox schemas or plain JSON Schema objects, typed alike.
 *
 * @module
 */

import type { Static } from "typebox";

export type { Static };

/** A tool's parameter schema: a TypeBox schema or a plain JSON Schema object. */
export type JsonSchema = object;

/**
 * The static type of the values a schema accepts (TypeBox `Static`). Works for TypeBox
 * schemas and for plain JSON Schema written `as const`.
 *
 * @example Typing parameters from a plain JSON Schema
 * ```ts
 * import type { SchemaType } from "@tack/agent";
 *
 * const schema = {
 *   type: "object", properties: { city: { type: "string" } }, required: ["city"],
 * } as const;
 * const params: SchemaType<typeof schema> = { city: "Paris" };
 * ```
 */
export type SchemaType<S extends JsonSchema> = Static<S>;
