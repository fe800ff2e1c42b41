/**
 * Answers a server sent that the SDK refuses: a response whose error or result is not what
 * JSON-RPC and MCP say (`error.code` a string, `result: null`, a content block of no known
 * type). The SDK drops a message that is not valid JSON-RPC, leaving its request waiting until
 * its timeout, and fails a result that does not fit its schema with a many-line dump of the
 * schema's issues. Here the first fails its request at once, and both say why in one line.
 *
 * @module
 */

import {
  ErrorCode,
  JSONRPCErrorResponseSchema,
  type JSONRPCMessage,
  JSONRPCResultResponseSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { thrownText } from "../../core/thrown_text.ts";

/** The longest reason quoted. */
const MAX_REASON_CHARS = 300;
/** The most schema issues quoted. */
const MAX_ISSUES = 3;

/** Marks the error answers made here (the `data` of their error): no JSON can be this object. */
const MADE_HERE: Readonly<Record<string, never>> = Object.freeze({});

/**
 * A server's answer to a request, refused: it is not valid JSON-RPC, or its result does not
 * fit the request's schema.
 *
 * @example
 * ```ts
 * import { InvalidResponseError } from "./invalid_response.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(new InvalidResponseError("result: expected object").message, "result: expected object");
 * ```
 */
export class InvalidResponseError extends Error {
  /**
   * @param reason Why it was refused, in one line.
   */
  constructor(reason: string) {
    super(reason);
    this.name = "InvalidResponseError";
  }
}

/** One issue a schema found, as zod reports it (the fields read here). */
interface Issue {
  path?: unknown;
  message?: unknown;
  code?: unknown;
  values?: unknown;
  errors?: unknown;
}

/**
 * For a union none of whose branches matched because of its `type` (a content block of no
 * known type): the types it takes (`"text", "image", …`); else `undefined`.
 */
function unionTypes(issue: Issue): string | undefined {
  if (issue.code !== "invalid_union" || !Array.isArray(issue.errors)) return undefined;
  const types = issue.errors.map((branch: Issue[]) =>
    Array.isArray(branch)
      ? branch.find((inner) =>
        inner.code === "invalid_value" && Array.isArray(inner.path) &&
        inner.path.length === 1 && inner.path[0] === "type"
      )
      : undefined
  );
  if (types.length === 0 || types.some((found) => found === undefined)) return undefined;
  const values = types.flatMap((found) => found!.values as unknown[]);
  return values.map((value) => JSON.stringify(value)).join(", ");
}

/**
 * One line saying what is wrong, from a schema's issues (`error.code: Invalid input: expected
 * number, received string; error.message: …`), at most three of them and 300 characters.
 *
 * @param error What a schema's check threw (a `ZodError`), or anything else.
 * @returns The line.
 *
 * @example
 * ```ts
 * import { issuesText } from "./invalid_response.ts";
 * import { equal } from "node:assert/strict";
 *
 * const error = { issues: [{ path: ["content", 1, "type"], message: "Invalid input" }] };
 * equal(issuesText(error), "content.1.type: Invalid input");
 * ```
 */
export function issuesText(error: unknown): string {
  const issues = (error as { issues?: unknown } | undefined)?.issues;
  let text: string;
  if (Array.isArray(issues) && issues.length > 0) {
    const shown = issues.slice(0, MAX_ISSUES).map((issue: Issue) => {
      const types = unionTypes(issue);
      const path = [...(Array.isArray(issue.path) ? issue.path : []), ...(types ? ["type"] : [])];
      const where = path.length > 0 ? `${path.map(String).join(".")}: ` : "";
      return `${where}${types ? `expected one of ${types}` : String(issue.message)}`;
    });
    const more = issues.length - shown.length;
    text = shown.join("; ") + (more > 0 ? ` (and ${more} more)` : "");
  } else {
    text = thrownText(error);
  }
  text = text.replace(/\s+/g, " ").trim();
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS - 1)}…` : text;
}

/**
 * Why a response (a message with an id and no method) is not a valid JSON-RPC response, in one
 * line (see {@linkcode issuesText}); `undefined` when it is one.
 *
 * @param response The response, parsed.
 * @returns The reason, or `undefined`.
 *
 * @example `result: null`, and a valid error answer
 * ```ts
 * import { responseIssues } from "./invalid_response.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(responseIssues({ jsonrpc: "2.0", id: 3, result: null }), "result: Invalid input: expected object, received null");
 * equal(responseIssues({ jsonrpc: "2.0", id: 3, error: { code: -32601, message: "no" } }), undefined);
 * ```
 */
export function responseIssues(response: object): string | undefined {
  const schema = "error" in response ? JSONRPCErrorResponseSchema : JSONRPCResultResponseSchema;
  const checked = schema.safeParse(response);
  return checked.success ? undefined : issuesText(checked.error);
}

/**
 * For a line a server sent that is not a valid JSON-RPC message: when it has the id of a
 * response (and no method), an error answer with that id, saying why in one line, which fails
 * the request waiting for it at once (see {@linkcode invalidResponseOf}); else `undefined`.
 *
 * @param line The line as read.
 * @returns The error answer, or `undefined`.
 *
 * @example `result: null`
 * ```ts
 * import { invalidAnswer } from "./invalid_response.ts";
 * import { equal } from "node:assert/strict";
 *
 * const answer = invalidAnswer('{"jsonrpc":"2.0","id":3,"result":null}');
 * equal(answer && "error" in answer && answer.error.message, "result: Invalid input: expected object, received null");
 * ```
 */
export function invalidAnswer(line: string): JSONRPCMessage | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw) || "method" in raw) {
    return undefined;
  }
  const id = (raw as { id?: unknown }).id;
  if (typeof id !== "string" && typeof id !== "number") return undefined;
  const reason = responseIssues(raw) ?? "not a JSON-RPC response";
  return {
    jsonrpc: "2.0",
    id,
    error: { code: ErrorCode.InternalError, message: reason, data: MADE_HERE },
  };
}

/**
 * What a request failed with, as an {@linkcode InvalidResponseError} when the server's answer
 * was refused (an answer made by {@linkcode invalidAnswer}, a result that did not fit the
 * request's schema, or an `InvalidResponseError` already: an HTTP body refused before the SDK
 * read it); else `undefined`.
 *
 * @param error What the SDK threw.
 * @returns The error, or `undefined`.
 *
 * @example A result that did not fit its schema
 * ```ts
 * import { invalidResponseOf } from "./invalid_response.ts";
 * import { equal } from "node:assert/strict";
 *
 * const error = Object.assign(new Error("[…]"), {
 *   name: "ZodError",
 *   issues: [{ path: ["content", 0, "data"], message: "Invalid Base64 string" }],
 * });
 * equal(invalidResponseOf(error)?.message, "content.0.data: Invalid Base64 string");
 * ```
 */
export function invalidResponseOf(error: unknown): InvalidResponseError | undefined {
  if (error instanceof InvalidResponseError) return error;
  if (error instanceof McpError && (error as McpError).data === MADE_HERE) {
    return new InvalidResponseError((error as McpError).message.replace(/^MCP error -?\d+: /, ""));
  }
  if (
    // `$ZodError` from the SDK's checks (zod's core), `ZodError` from zod's own API.
    error instanceof Error && /^\$?ZodError$/.test(error.name) &&
    Array.isArray((error as { issues?: unknown }).issues)
  ) {
    return new InvalidResponseError(issuesText(error));
  }
  return undefined;
}
