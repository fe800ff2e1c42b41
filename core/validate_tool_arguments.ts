/**
 * Argument validation: one compiled validator per schema, coercion only when the
 * arguments do not already fit, and errors a model can act on.
 *
 * @module
 */

import { Compile } from "typebox/compile";
import { argumentDepthProblem } from "./argument_depth.ts";
import { coerceValue } from "./coerce_arguments.ts";
import { linearSchema } from "./linear_schema.ts";
import type { ArgumentCheck, ArgumentIssue, ArgumentValidator, JsonSchema } from "./schema.ts";
import { thrownText } from "./thrown_text.ts";

type CompiledValidator = ReturnType<typeof Compile>;

interface ValidationIssue {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

const validators = new WeakMap<object, CompiledValidator>();

function validatorFor(schema: JsonSchema): CompiledValidator {
  let validator = validators.get(schema);
  if (!validator) {
    // Patterns run on the linear-time engine, never on V8's backtracking one.
    validator = Compile(linearSchema(schema, Compile));
    validators.set(schema, validator);
  }
  return validator;
}

/** The outcome of {@linkcode validateToolArguments}: the (coerced) value, or why not. */
export type ValidationOutcome =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; message: string };

function valueAt(root: unknown, pointer: string): unknown {
  let current = root;
  for (const part of pointer.split("/").slice(1)) {
    if (typeof current !== "object" || current === null) return undefined;
    current =
      (current as Record<string, unknown>)[part.replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  return current;
}

function describeIssue(issue: ValidationIssue, args: unknown): string | undefined {
  const base = issue.instancePath.slice(1).replaceAll("/", ".");
  const at = (name: string) => (base ? `${base}.${name}` : name);
  switch (issue.keyword) {
    case "required": {
      const missing = (issue.params.requiredProperties as string[] | undefined) ?? [];
      return missing.map((name) => `${at(name)}: is required`).join("\n  - ") || undefined;
    }
    case "additionalProperties": {
      const extra = (issue.params.additionalProperties as string[] | undefined) ?? [];
      return extra.map((name) => `${at(name)}: is not an allowed property`).join("\n  - ");
    }
    case "boolean":
      if (issue.schemaPath.endsWith("/additionalProperties")) return undefined;
  }
  const received = valueAt(args, issue.instancePath);
  const shown = received === undefined ? "nothing" : JSON.stringify(received);
  return `${base || "(root)"}: ${issue.message} (received ${shown})`;
}

/**
 * Formats why `args` do not fit `schema`, naming the tool, every failing path with its
 * expectation, and the arguments received.
 *
 * @param toolName The tool the arguments were for.
 * @param schema Its parameter schema.
 * @param args The arguments the model sent (shown, and each problem's value taken from them).
 * @param note Optional words after the tool name (e.g. who rewrote the arguments).
 * @param checked The arguments whose problems are listed (default `args`): after coercion,
 * when it was tried, so a value it fixed is not reported.
 * @returns A multi-line message for an error result.
 */
export function describeInvalidArguments(
  toolName: string,
  schema: JsonSchema,
  args: unknown,
  note = "",
  checked: unknown = args,
): string {
  const issues = [...validatorFor(schema).Errors(checked)] as ValidationIssue[];
  const lines = issues.map((i) => describeIssue(i, args)).filter((line): line is string =>
    Boolean(line)
  );
  return invalidArgumentsMessage(toolName, note, lines, args);
}

/** The text every validation failure shares: the tool, each problem once, what was received. */
function invalidArgumentsMessage(
  toolName: string,
  note: string,
  lines: readonly string[],
  args: unknown,
): string {
  return `Invalid arguments for tool "${toolName}"${note}:\n  - ${
    [...new Set(lines)].join("\n  - ") || "do not match the schema"
  }\nReceived arguments: ${JSON.stringify(args)}`;
}

function describeOwnIssue(issue: ArgumentIssue, args: unknown): string {
  const path = issue.path.map(String).join(".");
  const received = valueAt(args, issue.path.map((p) => `/${String(p)}`).join(""));
  if (path === "") return `(root): ${issue.message}`; // the arguments are shown below
  if (received === undefined) return `${path}: is required`;
  // Most libraries already say what they received; others get it added, as for JSON Schema.
  if (/\breceived\b/i.test(issue.message)) return `${path}: ${issue.message}`;
  return `${path}: ${issue.message} (received ${JSON.stringify(received)})`;
}

/**
 * Arguments that failed their check and nest past `MAX_ARGUMENT_DEPTH` are refused as such,
 * before they are coerced and quoted: for 2,000,000 levels that took ~9 s, blocking
 * the host. Only on this path, so valid arguments pay nothing (the walk costs as much as the
 * check of a small object).
 */
function tooDeepToDescribe(toolName: string, note: string, args: unknown) {
  const tooDeep = argumentDepthProblem(args);
  if (tooDeep === undefined) return undefined;
  return {
    ok: false as const,
    message: `Invalid arguments for tool "${toolName}"${note}: ${tooDeep}`,
  };
}

function checkOwn(validator: ArgumentValidator, args: unknown): ArgumentCheck {
  try {
    return validator(args);
  } catch (error) {
    const reason = thrownText(error);
    return { ok: false, issues: [{ path: [], message: `its validator threw: ${reason}` }] };
  }
}

/** Validation with the tool's own validator: the same coercion rules, Tack's error format. */
function validateOwn(
  toolName: string,
  schema: JsonSchema,
  validator: ArgumentValidator,
  args: unknown,
  note: string,
): ValidationOutcome {
  const first = checkOwn(validator, args);
  if (first.ok) return first;
  const tooDeep = tooDeepToDescribe(toolName, note, args);
  if (tooDeep) return tooDeep;
  let coerced: unknown = args;
  try {
    coerced = coerceValue(args, schema as Record<string, unknown>);
  } catch { /* arguments that throw when read: report the first check */ }
  const second = coerced === args ? first : checkOwn(validator, coerced);
  if (second.ok) return second;
  // What is still wrong once coerced: a value coercion fixed ("3" for a number) is not listed.
  const lines = second.issues.map((issue) => describeOwnIssue(issue, args));
  return { ok: false, message: invalidArgumentsMessage(toolName, note, lines, args) };
}

/**
 * Validates tool-call arguments against a schema (TypeBox or plain JSON Schema), or with
 * the tool's own validator when it has one (a Standard Schema's, set by `defineTool`).
 * Arguments that fit are returned as they are (or as the validator parsed them); others
 * are coerced (`"5"` → 5, `"true"` → true, `null` for an optional property → left out)
 * following `schema`, never in place (what changes is copied, the rest shared), and checked
 * again; unless they nest deeper than `MAX_ARGUMENT_DEPTH` (128), refused as such before they
 * are coerced or quoted. The JSON Schema
 * validator is compiled once per schema object.
 *
 * @param toolName The tool's name, for the error text.
 * @param schema The tool's parameter schema.
 * @param args The arguments the model sent.
 * @param validator The tool's own validator, if any (`AgentTool.validateArguments`).
 * @param note Words after the tool name in the error text (e.g. who rewrote the arguments).
 * @returns `{ ok: true, value }` or `{ ok: false, message }`; it never throws for bad input.
 *
 * @example Coercing and rejecting
 * ```ts
 * import { validateToolArguments } from "@tack/agent";
 * import { Type } from "typebox";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const schema = Type.Object({ days: Type.Number() });
 * deepEqual(validateToolArguments("forecast", schema, { days: "5" }), { ok: true, value: { days: 5 } });
 * const bad = validateToolArguments("forecast", schema, { days: "soon" });
 * equal(bad.ok, false);
 * ```
 */
export function validateToolArguments(
  toolName: string,
  schema: JsonSchema,
  args: unknown,
  validator?: ArgumentValidator,
  note = "",
): ValidationOutcome {
  if (validator) return validateOwn(toolName, schema, validator, args, note);
  try {
    return validate(toolName, schema, args, note);
  } catch (error) {
    const reason = thrownText(error);
    return {
      ok: false,
      message:
        `Cannot validate arguments for tool "${toolName}": its parameter schema is invalid (${reason})`,
    };
  }
}

/**
 * Why a schema cannot be used to validate arguments, or `undefined` when it can. Compiles
 * (and caches) its validator and checks a probe value, as validation will.
 *
 * @param schema A parameter schema.
 * @returns The compiler's complaint, or `undefined`.
 *
 * @example
 * ```ts
 * import { invalidSchemaReason } from "@tack/agent";
 * import { equal, ok } from "node:assert/strict";
 *
 * equal(invalidSchemaReason({ type: "object" }), undefined);
 * ok(invalidSchemaReason({ type: "string", pattern: "(" }));
 * ```
 */
export function invalidSchemaReason(schema: JsonSchema): string | undefined {
  try {
    const validator = validatorFor(schema);
    validator.Check({});
    validator.Check("");
    return undefined;
  } catch (error) {
    return thrownText(error);
  }
}

function validate(
  toolName: string,
  schema: JsonSchema,
  args: unknown,
  note: string,
): ValidationOutcome {
  const validator = validatorFor(schema);
  if (validator.Check(args)) return { ok: true, value: args as Record<string, unknown> };
  const tooDeep = tooDeepToDescribe(toolName, note, args);
  if (tooDeep) return tooDeep;
  let coerced: unknown;
  try {
    coerced = coerceValue(args, schema as Record<string, unknown>);
  } catch {
    coerced = args; // arguments that throw when read
  }
  if (validator.Check(coerced)) return { ok: true, value: coerced as Record<string, unknown> };
  return { ok: false, message: describeInvalidArguments(toolName, schema, args, note, coerced) };
}
