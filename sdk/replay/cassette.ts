/**
 * A cassette: a recorded run as JSON Lines (one object a line), secrets redacted.
 *
 * @module
 */

import type { AssistantMessageEvent } from "../../core/assistant_message_event.ts";
import type { AssistantMessage } from "../../core/messages.ts";
import type { ModelRequest } from "../../core/model.ts";
import type { ToolResult } from "../../core/tool.ts";

/** What a recorded model turn was asked. */
export interface RecordedModelRequest {
  /** The system prompt. */
  systemPrompt: string;
  /** The transcript as sent (timestamps included; replay ignores them). */
  messages: unknown[];
  /** The tools offered: name, description, parameters. */
  tools: { name: string; description: string; parameters: unknown }[];
}

/** A streamed event without its `partial` (replay rebuilds it). */
export type RecordedEvent = Record<string, unknown> & { type: AssistantMessageEvent["type"] };

/** One line of a cassette. */
export type CassetteLine =
  | { type: "meta"; version: 1; provider: string; model: string }
  | { type: "model_request"; turn: number; request: RecordedModelRequest }
  | { type: "model_response"; turn: number; events: RecordedEvent[]; message: AssistantMessage }
  | {
    type: "http_request";
    seq: number;
    method: string;
    url: string;
    headers: Record<string, string>;
    body: unknown;
  }
  | {
    type: "http_response";
    seq: number;
    status: number;
    headers: Record<string, string>;
    body: string;
  }
  | {
    type: "tool_result";
    toolCallId: string;
    toolName: string;
    args?: Record<string, unknown>;
    result: ToolResult;
    isError: boolean;
  };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The object a string holds as JSON (`'{"a":1}'`), if it is one. */
function jsonObjectIn(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) return undefined;
  try {
    const value = JSON.parse(trimmed);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** What a secret is replaced with. */
export const REDACTED = "[redacted]";

/**
 * A key that names a credential: `authorization`, `x-api-key`, `api_key`/`apiKey`, `cookie`,
 * `…secret…`, `…password…`/`…passwd…`, `…token`, `…auth`, `…credential(s)`, `private_key`,
 * `access_key`.
 */
const SECRET_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|openai-organization|openai-project)$|api[-_]?key|secret|passw(or)?d|token$|auth$|credentials?$|private[-_]?key|access[-_]?key/i;

/** A parameter (`name=value`: a query string, an environment line) that names one too. */
const SECRET_PARAM = /^(key|sig)$|signature$|credential/i;

/**
 * A key and its separator in JSON-like or `name=value` text: a quoted key (`"password"`,
 * `'password'`) or a bare one (`password`, `--password`, `X-Amz-Signature`), then `:` or `=`
 * (not `==` or `=>`); after `:` the value may start on a later line (YAML's `password:` then
 * an indented value). A match starts only where no quote, word or escape precedes it, so each
 * run of key characters is scanned once: linear in the text.
 */
const KEY =
  /(?:(?<![\\\w])"((?:[^"\\\n]|\\.)*)"|(?<![\\\w])'((?:[^'\\\n]|\\.)*)'|(?<![\w.-])([\w.-]+))[ \t]*(:|=(?![=>]))(?:(?<=:)\s*|[ \t]*)/g;

/** A value after `:`: a quoted string, or bare up to `,`, `}`, `]` or the line's end. */
const COLON_VALUE = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s,}\]][^\n,}\]]*/y;

/** A value after `=`: a quoted string, or bare up to a space, `&`, `#`, `;`, `,` or a bracket. */
const EQUALS_VALUE = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s&#;,}\])"'<>]+/y;

/**
 * Each credential-named key's value in `text` replaced: `"password": "x"` →
 * `"password": "[redacted]"`, `password: x y` → `password: "[redacted]"`, `?api_key=x&` →
 * `?api_key=[redacted]&`; a value already holding `[redacted` is left (`Bearer [redacted]`).
 */
function redactPairs(text: string): string {
  let out = "";
  let kept = 0;
  KEY.lastIndex = 0;
  for (let found; (found = KEY.exec(text));) {
    const name = found[1] ?? found[2] ?? found[3];
    const equals = found[4] === "=";
    if (!SECRET_KEY.test(name) && !(equals && SECRET_PARAM.test(name))) continue;
    const at = KEY.lastIndex;
    const pattern = equals ? EQUALS_VALUE : COLON_VALUE;
    pattern.lastIndex = at;
    const value = pattern.exec(text)?.[0];
    if (value === undefined || value.includes("[redacted")) continue;
    const quote = value[0];
    const quoted = (quote === '"' || quote === "'") && value.length > 1 && value.endsWith(quote);
    out += text.slice(kept, at) +
      (quoted ? `${quote}${REDACTED}${quote}` : equals ? REDACTED : `"${REDACTED}"`);
    kept = KEY.lastIndex = at + value.length;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/**
 * Tokens whose form gives them away: `sk-…` (OpenAI, Anthropic `sk-ant-…`), GitHub
 * (`ghp_…`, `gho_…`, `ghu_…`, `ghs_…`, `ghr_…`, `github_pat_…`), GitLab `glpat-…`, Slack
 * (`xoxb-…`, `xoxp-…`, …, `xapp-…`), AWS access key ids (`AKIA…`, `ASIA…`), Google API keys
 * (`AIza…`), Stripe (`sk_live_…`, `rk_test_…`), npm `npm_…`, Hugging Face `hf_…`, JSON Web
 * Tokens (`eyJ….….…`) and PEM private keys (`-----BEGIN … PRIVATE KEY-----` to its end).
 * Each starts where no word character precedes it (`task-…` is no key).
 */
const TOKEN = new RegExp(
  [
    /(?<!\w)sk-[A-Za-z0-9_-]{8,}/,
    /(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|glpat-[\w-]{20,})/,
    /(?<![\w-])(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}/,
    /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/,
    /(?<![\w-])AIza[\w-]{35}/,
    /(?<![\w-])[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/,
    /(?<![\w-])(?:npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,})/,
    /(?<![\w-])eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*/,
    /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:[A-Za-z0-9+\/=\s:,]|-(?!----))*(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)?/,
  ].map((pattern) => pattern.source).join("|"),
  "g",
);

/**
 * A URL's userinfo (`//user:password@`, `//token@`): up to the last `@` before the host's
 * end, as URL parsers read it.
 */
const USERINFO = /\/\/[^\s\/?#"'<>\\]+@/g;

/**
 * The JSON Schema keywords a credential-named property's schema may hold and still be kept:
 * none that holds a value (`default`, `const`, `enum`, `examples`) or is not a keyword
 * (`value`).
 */
const SCHEMA_KEYWORD =
  /^(\$ref|\$comment|type|title|description|format|pattern|(min|max)(Length|imum|Items|Properties)|exclusive(Min|Max)imum|multipleOf|items|properties|required|additionalProperties|patternProperties|(any|one|all)Of|not|nullable|deprecated|readOnly|writeOnly|uniqueItems|content(Encoding|MediaType))$/;

/**
 * A JSON schema's `properties`, redacted: a property named `password` whose value is a schema
 * (every key a {@linkcode SCHEMA_KEYWORD}) holds its schema (kept, redacted by its own keys),
 * not a secret; any other is redacted by name as anywhere (data that only looks like a schema,
 * `{"adminPassword": {"type": "securestring", "value": "…"}}`, keeps no password).
 */
function schemaProperties(properties: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    out[name] = isRecord(schema) && Object.keys(schema).every((key) => SCHEMA_KEYWORD.test(key))
      ? redactSecrets(schema)
      : redactSecrets({ [name]: schema })[name];
  }
  return out;
}

/**
 * A copy of a value with secrets replaced by `[redacted]`: the value of any object key that
 * names a credential (`authorization`, `api_key`, `apiKey`, `x-api-key`, `cookie`,
 * `…secret…`, `…password…`, `…token`, `…auth`, `credentials`, `private_key`, `access_key`);
 * inside strings, bearer tokens, tokens of a known form (`sk-…`, `ghp_…`, `github_pat_…`,
 * `xoxb-…`, `AKIA…`, `AIza…`, JWTs, PEM private keys, …), a URL's userinfo (`user:password@`,
 * `token@`), a credential-named `name=value` (`?api_key=…`, `&token=…`, `&key=…`,
 * `X-Amz-Signature=…`) and `"key": value` pair; a string that holds a JSON object (a tool
 * call's `arguments`) by key too. A JSON schema's property named like a credential keeps its
 * schema.
 *
 * @param value Headers, a request body, anything JSON.
 * @returns The redacted copy.
 *
 * @example
 * ```ts
 * import { redactSecrets } from "@tack/agent";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(redactSecrets({ authorization: "Bearer sk-abc", model: "m" }), {
 *   authorization: "[redacted]",
 *   model: "m",
 * });
 * ```
 */
export function redactSecrets<T>(value: T): T {
  if (typeof value === "string") {
    // JSON inside a string (a tool call's `arguments` in a request body): by key too.
    const inner = jsonObjectIn(value);
    const tokens = () =>
      value
        .replace(/Bearer\s+[A-Za-z0-9._~+/=-]+/gi, `Bearer ${REDACTED}`)
        .replace(TOKEN, REDACTED)
        .replace(USERINFO, `//${REDACTED}@`);
    if (inner !== undefined) {
      const redacted = redactSecrets(inner);
      if (JSON.stringify(redacted) !== JSON.stringify(inner)) return JSON.stringify(redacted) as T;
      // Judged key by key already: a property kept (a JSON schema's `password`) is no pair to
      // cut out of the text (that left `{"password":"[redacted]"}}`, no longer JSON). A token
      // in a key is still taken.
      return tokens() as T;
    }
    // A credential-named key's value in JSON-like text that does not parse (a model's
    // arguments with a trailing comma, an error quoting them) last, so `Authorization: Bearer
    // …` keeps its form.
    return redactPairs(tokens()) as T;
  }
  if (Array.isArray(value)) return value.map(redactSecrets) as T;
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = key === "properties" && isRecord(item)
        ? schemaProperties(item)
        : SECRET_KEY.test(key) && item !== undefined && item !== null
        ? REDACTED
        : redactSecrets(item);
    }
    return out as T;
  }
  return value;
}

/**
 * Parses a cassette's JSONL text.
 *
 * @param text The cassette.
 * @returns Its lines.
 * @throws {SyntaxError} Naming the line that is not JSON, or not a cassette line.
 *
 * @example
 * ```ts
 * import { parseCassette } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * equal(parseCassette('{"type":"meta","version":1,"provider":"p","model":"m"}\n')[0].type, "meta");
 * ```
 */
export function parseCassette(text: string): CassetteLine[] {
  const lines: CassetteLine[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new SyntaxError(
        `Cannot parse cassette: line ${i + 1} is not JSON (${(error as Error).message})`,
      );
    }
    if (
      typeof value !== "object" || value === null ||
      typeof (value as CassetteLine).type !== "string"
    ) {
      throw new SyntaxError(`Cannot parse cassette: line ${i + 1} has no "type"`);
    }
    lines.push(value as CassetteLine);
  });
  return lines;
}

/**
 * Where two JSON values first differ, ignoring `timestamp` fields and what the cassette holds
 * as `[redacted]` whole (a cassette recorded when the redaction took more, a JSON schema's
 * `password` property, say, still replays): a path such as `messages[0].content`, and both
 * values; `undefined` when they are equal.
 *
 * @param recorded The recorded value.
 * @param actual The value now.
 * @param path The path so far.
 * @returns The first difference, or `undefined`.
 *
 * @example
 * ```ts
 * import { firstDifference } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * equal(firstDifference({ a: [1, 2] }, { a: [1, 3] })?.path, "a[1]");
 * ```
 */
export function firstDifference(
  recorded: unknown,
  actual: unknown,
  path = "",
): { path: string; recorded: unknown; actual: unknown } | undefined {
  if (Object.is(recorded, actual) || recorded === REDACTED) return undefined;
  const bothObjects = typeof recorded === "object" && recorded !== null &&
    typeof actual === "object" && actual !== null;
  if (!bothObjects || Array.isArray(recorded) !== Array.isArray(actual)) {
    return { path, recorded, actual };
  }
  if (Array.isArray(recorded) && Array.isArray(actual)) {
    const length = Math.max(recorded.length, actual.length);
    for (let i = 0; i < length; i++) {
      const found = firstDifference(recorded[i], actual[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  const a = recorded as Record<string, unknown>;
  const b = actual as Record<string, unknown>;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of [...keys].sort()) {
    if (key === "timestamp" || (a[key] === undefined && b[key] === undefined)) continue;
    const found = firstDifference(a[key], b[key], path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return undefined;
}

/**
 * A model request as a cassette holds it: plain JSON, each tool reduced to what the model
 * sees (name, description, parameters).
 *
 * @param request The request the loop made.
 * @returns Its JSON copy.
 *
 * @example
 * ```ts
 * import { recordedRequest } from "./cassette.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const request = { systemPrompt: "", messages: [], tools: [] };
 * deepEqual(recordedRequest(request), { systemPrompt: "", messages: [], tools: [] });
 * ```
 */
export function recordedRequest(request: ModelRequest): RecordedModelRequest {
  const { systemPrompt, messages } = redactSecrets(JSON.parse(JSON.stringify({
    systemPrompt: request.systemPrompt,
    messages: request.messages,
  })));
  // The tools' schemas are kept as they are: a property named "password" is not a secret.
  const tools = JSON.parse(JSON.stringify(
    request.tools.map(({ name, description, parameters }) => ({ name, description, parameters })),
  ));
  return { systemPrompt, messages, tools };
}
