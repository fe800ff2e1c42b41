/**
 * `tack.jsonc`: the CLI's config file, parsed as JSONC (comments and trailing commas
 * allowed). Every error names the file, the line and column, and the key.
 *
 * @module
 */

import { type Node, type ParseError, parseTree, printParseErrorCode } from "@std/jsonc";
import { dirname, resolve } from "node:path";
import { compileRules } from "../plugins/rules/mod.ts";
import type { Rule } from "../plugins/rules/rule.ts";
import { PERMISSION_NAMES, type PluginPermissions } from "../sdk/permissions.ts";

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
}

/** The outcome of {@linkcode loadConfig}. */
export type ConfigResult = { kind: "ok"; config: TackConfig } | { kind: "error"; message: string };

/** The keys a config file may set. */
export const CONFIG_KEYS: readonly string[] = [
  "$schema",
  "model",
  "baseURL",
  "systemPrompt",
  "plugins",
  "sessionDir",
  "maxTurns",
  "rules",
];

const PLUGIN_KEYS = ["specifier", "options", "sandbox", "permissions"];

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

class ConfigError extends Error {}

function position(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return `${line}:${offset - lineStart + 1}`;
}

function describe(node: Node): string {
  if (node.type === "array") return "an array";
  if (node.type === "object") return "an object";
  if (node.type === "null") return "null";
  return `a ${node.type} (${JSON.stringify(node.value)})`;
}

/** Reads one file's tree, turning shape errors into messages with file, line and key. */
class Reader {
  constructor(readonly file: string, readonly text: string) {}

  fail(node: Node, key: string, problem: string): never {
    throw new ConfigError(`${this.file}:${position(this.text, node.offset)}: "${key}" ${problem}`);
  }

  string(node: Node, key: string): string {
    if (node.type !== "string" || node.value.trim() === "") {
      this.fail(node, key, `must be a non-empty string, got ${describe(node)}`);
    }
    return node.value;
  }

  boolean(node: Node, key: string): boolean {
    if (node.type !== "boolean") {
      this.fail(node, key, `must be true or false, got ${describe(node)}`);
    }
    return node.value;
  }

  /** The properties of an object node, checking that every key is known. */
  entries(node: Node, key: string, known: readonly string[]): [string, Node, Node][] {
    if (node.type !== "object") this.fail(node, key, `must be an object, got ${describe(node)}`);
    const out: [string, Node, Node][] = [];
    for (const property of node.children ?? []) {
      const [keyNode, valueNode] = property.children ?? [];
      if (!keyNode || !valueNode) continue;
      const name = String(keyNode.value);
      const path = key === "" ? name : `${key}.${name}`;
      if (!known.includes(name)) {
        this.fail(keyNode, path, `is not a known key (expected one of: ${known.join(", ")})`);
      }
      out.push([name, keyNode, valueNode]);
    }
    return out;
  }

  value(node: Node): unknown {
    if (node.type === "object") {
      const object: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [k, v] = property.children ?? [];
        if (k && v) object[String(k.value)] = this.value(v);
      }
      return object;
    }
    if (node.type === "array") return (node.children ?? []).map((child) => this.value(child));
    return node.value;
  }

  permissions(node: Node, key: string): PluginPermissions {
    const permissions: Record<string, boolean | string[]> = {};
    for (const [name, , value] of this.entries(node, key, PERMISSION_NAMES)) {
      const path = `${key}.${name}`;
      if (value.type === "boolean") permissions[name] = value.value;
      else if (value.type === "array") {
        permissions[name] = (value.children ?? []).map((item, i) =>
          this.string(item, `${path}[${i}]`)
        );
      } else {this.fail(
          value,
          path,
          `must be true, false or a list of strings, got ${describe(value)}`,
        );}
    }
    return permissions as PluginPermissions;
  }

  plugin(node: Node, key: string, baseDir: string): PluginEntry {
    const source = `${this.file}:${position(this.text, node.offset)}`;
    if (node.type === "string") return { specifier: this.string(node, key), baseDir, source };
    if (node.type !== "object") {
      this.fail(
        node,
        key,
        `must be a specifier string or { "specifier": … }, got ${describe(node)}`,
      );
    }
    const entry: Partial<PluginEntry> = { baseDir, source };
    for (const [name, , value] of this.entries(node, key, PLUGIN_KEYS)) {
      const path = `${key}.${name}`;
      if (name === "specifier") entry.specifier = this.string(value, path);
      else if (name === "sandbox") entry.sandbox = this.boolean(value, path);
      else if (name === "permissions") entry.permissions = this.permissions(value, path);
      else {
        if (value.type !== "object") {
          this.fail(value, path, `must be an object, got ${describe(value)}`);
        }
        entry.options = this.value(value) as Record<string, unknown>;
      }
    }
    if (entry.specifier === undefined) this.fail(node, `${key}.specifier`, "is missing");
    return entry as PluginEntry;
  }

  rules(node: Node): Rule[] {
    if (node.type !== "array") this.fail(node, "rules", `must be an array, got ${describe(node)}`);
    const items = node.children ?? [];
    const rules = items.map((item) => this.value(item) as Rule);
    const check = (list: Rule[], offset: number) => {
      try {
        compileRules(list, "config");
      } catch (error) {
        const message = (error as Error).message.replace(/^Cannot create config: /, "");
        const found = /^rules\[(\d+)\](?: \("[^"]*"\))?: (.*)$/s.exec(message);
        if (!found) this.fail(node, "rules", message);
        const index = Number(found[1]) + offset;
        this.fail(items[index] ?? node, `rules[${index}]`, found[2]);
      }
    };
    items.forEach((_, i) => check([rules[i]], i));
    check(rules, 0);
    return rules;
  }

  config(root: Node, baseDir: string): TackConfig {
    const config: TackConfig = {};
    for (const [name, , value] of this.entries(root, "", CONFIG_KEYS)) {
      if (name === "model" || name === "baseURL" || name === "systemPrompt") {
        config[name] = this.string(value, name);
      } else if (name === "sessionDir") {
        config.sessionDir = resolve(baseDir, this.string(value, name));
      } else if (name === "maxTurns") {
        if (value.type !== "number" || !Number.isInteger(value.value) || value.value < 1) {
          this.fail(value, name, `must be a positive integer, got ${describe(value)}`);
        }
        config.maxTurns = value.value;
      } else if (name === "rules") config.rules = this.rules(value);
      else if (name === "plugins") {
        if (value.type !== "array") {
          this.fail(value, name, `must be an array, got ${describe(value)}`);
        }
        config.plugins = (value.children ?? []).map((item, i) =>
          this.plugin(item, `plugins[${i}]`, baseDir)
        );
      }
    }
    return config;
  }
}

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

/**
 * Reads and parses a config file. With `required: false`, a missing file is an empty
 * config (that is how the default `./tack.jsonc` is read).
 *
 * @param file The path of the file.
 * @param required Whether a missing file is an error (`--config` says so).
 * @returns The config, or an error that names the file.
 *
 * @example A missing optional config
 * ```ts
 * import { loadConfig } from "./config.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(await loadConfig("/nonexistent/tack.jsonc", false), { kind: "ok", config: {} });
 * ```
 */
export async function loadConfig(file: string, required: boolean): Promise<ConfigResult> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound && !required) return { kind: "ok", config: {} };
    const reason = error instanceof Deno.errors.NotFound
      ? "no such file"
      : (error as Error).message;
    return { kind: "error", message: `Cannot load config: ${file}: ${reason}` };
  }
  return parseConfig(text, file);
}
