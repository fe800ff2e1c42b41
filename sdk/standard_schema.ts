/**
 * Standard Schema (https://standardschema.dev) parameters for tools: Zod 4, Valibot,
 * ArkType and any other library implementing `~standard`. The schema validates; its JSON
 * Schema conversion (Standard JSON Schema, or an ArkType-style `toJsonSchema()`) is what
 * the model is sent and what coercion follows. The core sees only an argument validator.
 *
 * @module
 */

import type { ArgumentIssue, ArgumentValidator } from "../core/schema.ts";
import { thrownText } from "../core/thrown_text.ts";

/** A path segment of a Standard Schema issue. */
export interface StandardPathSegment {
  /** The key at this step. */
  readonly key: PropertyKey;
}

/** One issue a Standard Schema reports. */
export interface StandardIssue {
  /** What went wrong, in the library's words. */
  readonly message: string;
  /** Where, if anywhere in particular. */
  readonly path?: ReadonlyArray<PropertyKey | StandardPathSegment> | undefined;
}

/** What a Standard Schema's `validate` returns. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

/** The `~standard` property of a Standard Schema (v1), with the optional JSON Schema converter. */
export interface StandardProps<Input = unknown, Output = Input> {
  /** Always 1. */
  readonly version: 1;
  /** The library's name (`zod`, `valibot`, `arktype`, …). */
  readonly vendor: string;
  /** Validates a value. */
  readonly validate: (
    value: unknown,
    options?: { readonly libraryOptions?: Record<string, unknown> },
  ) => StandardResult<Output> | Promise<StandardResult<Output>>;
  /** The static types (for inference only). */
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  /** Standard JSON Schema: converts the input type to JSON Schema. */
  readonly jsonSchema?: {
    readonly input: (options: { readonly target: string }) => Record<string, unknown>;
  };
}

/** A Standard Schema v1 (the interface Zod 4, Valibot and ArkType implement). */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The standard properties. */
  readonly "~standard": StandardProps<Input, Output>;
}

/** The type a Standard Schema's `validate` produces (what `execute` receives). */
export type StandardOutput<S extends StandardSchemaV1> = NonNullable<
  S["~standard"]["types"]
>["output"];

/**
 * Whether a value is a Standard Schema (v1).
 *
 * @param value A tool's `parameters`.
 * @returns `true` when it has a `~standard` property with version 1 and a `validate` function.
 *
 * @example
 * ```ts
 * import { isStandardSchema } from "@tack/agent";
 * import { z } from "zod";
 * import { Type } from "typebox";
 * import { equal } from "node:assert/strict";
 *
 * equal(isStandardSchema(z.object({ city: z.string() })), true);
 * equal(isStandardSchema(Type.Object({ city: Type.String() })), false);
 * ```
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { "~standard"?: Partial<StandardProps> } | null)?.["~standard"];
  return typeof props === "object" && props !== null && props.version === 1 &&
    typeof props.validate === "function";
}

/**
 * The JSON Schema of a Standard Schema's input: Standard JSON Schema (`~standard.jsonSchema`,
 * built into Zod 4; Valibot's `toStandardJsonSchema`), else a `toJsonSchema()` method
 * (ArkType). `$schema` is left out (the model needs the shape, not the dialect).
 *
 * @param schema The Standard Schema.
 * @param toolName The tool, for the error text.
 * @returns A plain JSON Schema object.
 * @throws {TypeError} When the schema has no JSON Schema conversion, or it fails.
 *
 * @example A Zod schema
 * ```ts
 * import { standardJsonSchema } from "@tack/agent";
 * import { z } from "zod";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(standardJsonSchema(z.object({ city: z.string() }), "weather"), {
 *   type: "object", properties: { city: { type: "string" } }, required: ["city"],
 * });
 * ```
 */
export function standardJsonSchema(
  schema: StandardSchemaV1,
  toolName: string,
): Record<string, unknown> {
  const props = schema["~standard"];
  const method = (schema as { toJsonSchema?: () => unknown }).toJsonSchema;
  let converted: unknown;
  try {
    if (props.jsonSchema) converted = props.jsonSchema.input({ target: "draft-2020-12" });
    else if (typeof method === "function") converted = method.call(schema);
  } catch (error) {
    const reason = thrownText(error);
    throw new TypeError(
      `Cannot define tool "${toolName}": its ${props.vendor} schema cannot be converted to JSON Schema: ${reason}`,
    );
  }
  if (typeof converted !== "object" || converted === null) {
    throw new TypeError(
      `Cannot define tool "${toolName}": its ${props.vendor} schema has no JSON Schema ` +
        `conversion (the model needs one). Use a schema implementing Standard JSON Schema ` +
        `(Zod 4 and ArkType do; for Valibot wrap it with toStandardJsonSchema from ` +
        `@valibot/to-json-schema)`,
    );
  }
  const { $schema: _dialect, ...shape } = converted as Record<string, unknown>;
  return shape;
}

function pathOf(issue: StandardIssue): PropertyKey[] {
  return (issue.path ?? []).map((segment) =>
    typeof segment === "object" && segment !== null ? segment.key : segment
  );
}

/**
 * The argument validator of a Standard Schema, for `AgentTool.validateArguments`: its
 * issues become paths and messages Tack formats like any other invalid arguments.
 * Synchronous validation only: a schema that validates asynchronously (an async refinement)
 * reports that as the issue.
 *
 * @param schema The Standard Schema.
 * @returns The validator.
 *
 * @example
 * ```ts
 * import { standardValidator } from "@tack/agent";
 * import { z } from "zod";
 * import { deepEqual } from "node:assert/strict";
 *
 * const check = standardValidator(z.object({ days: z.number() }));
 * deepEqual(check({ days: 2 }), { ok: true, value: { days: 2 } });
 * deepEqual(check({}), {
 *   ok: false,
 *   issues: [{ path: ["days"], message: "Invalid input: expected number, received undefined" }],
 * });
 * ```
 */
export function standardValidator(schema: StandardSchemaV1): ArgumentValidator {
  const validate = schema["~standard"].validate;
  return function validateArguments(args) {
    const result = validate(args);
    if (result instanceof Promise) {
      result.then(undefined, () => {});
      return {
        ok: false,
        issues: [{
          path: [],
          message: "the tool's schema validates asynchronously, which Tack does not support",
        }],
      };
    }
    if (result.issues === undefined) {
      return { ok: true, value: result.value as Record<string, unknown> };
    }
    const issues: ArgumentIssue[] = result.issues.map((issue) => ({
      path: pathOf(issue),
      message: issue.message,
    }));
    return { ok: false, issues };
  };
}
