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

/** One reason arguments failed a tool's own validator: where, and what was expected. */
export interface ArgumentIssue {
  /** The path to the failing value (empty for the arguments as a whole). */
  readonly path: readonly PropertyKey[];
  /** What was expected there, in the validator's words. */
  readonly message: string;
}

/** What a tool's own validator says: the (parsed) arguments, or why not. */
export type ArgumentCheck =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; issues: readonly ArgumentIssue[] };

/**
 * A tool's own argument validator (for schemas that are not JSON Schema, such as a
 * Standard Schema). It replaces the JSON Schema check; the tool's `parameters` still
 * describe the arguments to the model and drive coercion. Contract: synchronous, must not
 * throw (a throw is reported as invalid arguments).
 */
export type ArgumentValidator = (args: unknown) => ArgumentCheck;
