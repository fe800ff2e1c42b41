/**
 * `tack.jsonc`: the CLI's config file, parsed as JSONC (comments and trailing commas
 * allowed). Every error names the file, the line and column, and the key.
 *
 * @module
 */

import { type ParseError, parseTree, printParseErrorCode } from "@std/jsonc";
import { dirname, resolve } from "node:path";
import type { Rule } from "../plugins/rules/mod.ts";
import type { PluginPermissions } from "../sdk/permissions.ts";
import type { PluginLimits } from "../sdk/plugin_limits.ts";
import type { HookScope } from "../sdk/sandbox/hook_grant.ts";
import { ConfigError, position, Reader } from "./config_reader.ts";

export { CONFIG_KEYS } from "./config_reader.ts";

/** One plugin to load, from the config file or a `--plugin` flag. */
export interface PluginEntry {
  /** `./file.ts`, `jsr:@scope/name`, `npm:name`, a URL, or a built-in name (`fs`). */
  specifier: string;
  /** Passed to the module's factory. */
  options?: Record<string, unknown>;
  /** Run the plugin's code in a separate, confined process. */
  sandbox?: boolean;
  /** The permissions to confine it to (when sandboxed). */
  permissions?: PluginPermissions;
  /** Over which tools a sandboxed plugin's hooks act: `"own"` (default) or `"all"`. */
  hooks?: HookScope;
  /** The manifest hash `tack plugins inspect` printed: anything else is refused. */
  manifestHash?: string;
  /** Accept a sandboxed plugin's `run` grant, which escapes every sandbox. */
  allowRunEscape?: boolean;
  /** With `sandbox`: memory and message size caps, replacing the plugin's declared ones. */
  limits?: PluginLimits;
  /** With `sandbox`: how long each of its hook calls may take. */
  hookTimeoutMs?: number;
  /** With `sandbox`: the most its tools' declared `timeoutMs` may be. */
  maxToolTimeoutMs?: number;
  /** How long its module (top-level await, factory; sandboxed: up to its manifest) may take to load (default 30000). */
  startTimeoutMs?: number;
  /** Where relative specifiers resolve from (the config file's folder, or the cwd). */
  baseDir: string;
  /** Where the entry came from, for error texts (`tack.jsonc:7:5`, `--plugin`). */
  source: string;
}

/** What a config file sets; every field is optional. */
export interface TackConfig {
  /** The file it was read from, if any. */
  path?: string;
  /** The model id (`gpt-4.1`, `llama3.2`). */
  model?: string;
  /** An OpenAI-compatible endpoint. */
  baseURL?: string;
  /** Replaces the default system prompt. */
  systemPrompt?: string;
  /** When present, replaces the default plugins (`fs`, `shell`). */
  plugins?: PluginEntry[];
  /** Where sessions are written (default `.tack/sessions`), relative to the config file. */
  sessionDir?: string;
  /** Model turns per prompt before the run stops (default 50). */
  maxTurns?: number;
  /** Confirm-policy rules: `ask` needs a yes, `allow` exempts, `deny` blocks (even with `--yes`). */
  rules?: Rule[];
  /** The model's price in dollars per million tokens, for the cost on the status line. */
  price?: { input: number; output: number };
}

/** The outcome of {@linkcode loadConfig}. */
export type ConfigResult = { kind: "ok"; config: TackConfig } | { kind: "error"; message: string };

const PARSE_ERRORS: Record<string, string> = {
  InvalidSymbol: "unexpected symbol",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name",
  ValueExpected: "expected a value",
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: "expected the end of the file",
  InvalidCommentToken: "invalid comment",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unterminated number",
  InvalidUnicode: "invalid unicode escape",
  InvalidEscapeCharacter: "invalid escape character",
  InvalidCharacter: "invalid character",
};

/**
 * Parses the text of a config file. Never throws for bad input: the error message names
 * the file, line, column and key (`tack.jsonc:3:12: "model" must be a non-empty string…`).
 *
 * @param text The file's contents.
 * @param file The path to show in errors and to resolve relative paths from.
 * @returns The config, or an error to print.
 *
 * @example A config with a plugin
 * ```ts
 * import { parseConfig } from "./config.ts";
 * import { equal } from "node:assert/strict";
 *
 * const ok = parseConfig(`{ "model": "gpt-4.1", "plugins": ["fs"] } // comment`, "tack.jsonc");
 * equal(ok.kind === "ok" && ok.config.plugins?.[0].specifier, "fs");
 * const bad = parseConfig(`{\n  "model": 4\n}`, "tack.jsonc");
 * equal(bad.kind === "error" && bad.message,
 *   'Cannot load config: tack.jsonc:2:12: "model" must be a non-empty string, got a number (4)');
 * ```
 */
export function parseConfig(text: string, file: string): ConfigResult {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, allowEmptyContent: true });
  if (errors.length > 0) {
    const first = errors[0];
    const code = printParseErrorCode(first.error);
    return {
      kind: "error",
      message: `Cannot load config: ${file}:${position(text, first.offset)}: invalid JSONC: ${
        PARSE_ERRORS[code] ?? code
      }`,
    };
  }
  if (!root) return { kind: "ok", config: { path: file } };
  try {
    const config = new Reader(file, text).config(root, dirname(resolve(file)));
    return { kind: "ok", config: { path: file, ...config } };
  } catch (error) {
    if (error instanceof ConfigError) {
      return { kind: "error", message: `Cannot load config: ${error.message}` };
    }
    throw error;
  }
}

/** The outcome of {@linkcode loadConfig}: with the bytes read, when a file was there. */
export type LoadedConfig =
  | { kind: "ok"; config: TackConfig; bytes?: Uint8Array }
  | { kind: "error"; message: string };

/** The most a config file may hold (1 MiB). */
export const MAX_CONFIG_BYTES = 1 << 20;

/** A file's bytes, or `undefined` once more than `max` of them came. */
async function readAtMost(file: string, max: number): Promise<Uint8Array | undefined> {
  using opened = await Deno.open(file);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const buffer = new Uint8Array(64 * 1024);
  for (let n = await opened.read(buffer); n !== null; n = await opened.read(buffer)) {
    size += n;
    if (size > max) return undefined;
    chunks.push(buffer.slice(0, n));
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

function refused(file: string, reason: string): LoadedConfig {
  return { kind: "error", message: `Cannot load config: ${file}: ${reason}` };
}

/**
 * Reads and parses a config file. With `required: false`, a missing file is an empty
 * config (that is how the default `./tack.jsonc` is read). The file is read once: its
 * bytes come back with the config, so what is checked (trusted) is what was parsed.
 *
 * @param file The path of the file.
 * @param required Whether a missing file is an error (`--config` says so).
 * @returns The config and the bytes it was parsed from, or an error that names the file.
 *
 * @example A missing optional config
 * ```ts
 * import { loadConfig } from "./config.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(await loadConfig("/nonexistent/tack.jsonc", false), { kind: "ok", config: {} });
 * ```
 */
export async function loadConfig(file: string, required: boolean): Promise<LoadedConfig> {
  let bytes: Uint8Array;
  try {
    // A folder's tack.jsonc may be a link to a device or a FIFO (git keeps links), which a
    // read would never finish: only a regular file of a config's size is read.
    const info = await Deno.stat(file);
    if (!info.isFile) return refused(file, "not a regular file");
    if (info.size > MAX_CONFIG_BYTES) {
      return refused(file, `${info.size} bytes, over the ${MAX_CONFIG_BYTES} a config may have`);
    }
    // A /proc file says it has 0 bytes and may never end: the read itself is bounded.
    const read = await readAtMost(file, MAX_CONFIG_BYTES);
    if (read === undefined) {
      return refused(file, `more than the ${MAX_CONFIG_BYTES} bytes a config may have`);
    }
    bytes = read;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound && !required) return { kind: "ok", config: {} };
    const reason = error instanceof Deno.errors.NotFound
      ? "no such file"
      : (error as Error).message;
    return refused(file, reason);
  }
  // An editor's byte order mark is not part of the JSONC.
  const text = new TextDecoder().decode(bytes).replace(/^\uFEFF/, "");
  const parsed = parseConfig(text, file);
  return parsed.kind === "ok" ? { ...parsed, bytes } : parsed;
}
