/**
 * The reader behind `parseConfig`: walks a JSONC tree, checking each key and turning
 * every shape error into a message with the file, line, column and key.
 *
 * @module
 */

import type { Node } from "@std/jsonc";
import { resolve } from "node:path";
import { compileRules, type Rule } from "../plugins/rules/mod.ts";
import { PERMISSION_NAMES, type PluginPermissions } from "../sdk/permissions.ts";
import type { PluginEntry, TackConfig } from "./config.ts";

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
  "price",
];

const PLUGIN_KEYS = [
  "specifier",
  "options",
  "sandbox",
  "permissions",
  "hooks",
  "manifestHash",
  "allowRunEscape",
  "limits",
  "hookTimeoutMs",
  "maxToolTimeoutMs",
  "startTimeoutMs",
];

/** A shape error, already phrased as `<file>:<line>:<col>: "<key>" <problem>`. */
export class ConfigError extends Error {}

/**
 * Where an offset is in a text, as `line:column` (both from 1).
 *
 * @param text The text.
 * @param offset A character offset into it.
 * @returns `line:column`.
 *
 * @example The start of the second line
 * ```ts
 * import { position } from "./config_reader.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(position("{\n  \"a\": 1\n}", 4), "2:3");
 * ```
 */
export function position(text: string, offset: number): string {
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

/**
 * Reads one file's tree, turning shape errors into messages with file, line and key.
 *
 * @example Reading a config tree
 * ```ts
 * import { Reader } from "./config_reader.ts";
 * import { parseTree } from "@std/jsonc";
 * import { equal } from "node:assert/strict";
 *
 * const text = '{ "model": "gpt-4.1" }';
 * equal(new Reader("tack.jsonc", text).config(parseTree(text)!, "/work").model, "gpt-4.1");
 * ```
 */
export class Reader {
  /**
   * Creates a reader for one file.
   *
   * @param file The path shown in errors.
   * @param text The file's text (for line and column numbers).
   */
  constructor(readonly file: string, readonly text: string) {}

  /** Throws a {@linkcode ConfigError} at a node. @throws {ConfigError} Always. */
  fail(node: Node, key: string, problem: string): never {
    throw new ConfigError(`${this.file}:${position(this.text, node.offset)}: "${key}" ${problem}`);
  }

  /** A non-empty string, or an error naming the key. */
  string(node: Node, key: string): string {
    if (node.type !== "string" || node.value.trim() === "") {
      this.fail(node, key, `must be a non-empty string, got ${describe(node)}`);
    }
    return node.value;
  }

  /** A positive integer, or an error naming the key. */
  positiveInteger(node: Node, key: string): number {
    if (node.type !== "number" || !Number.isInteger(node.value) || node.value < 1) {
      this.fail(node, key, `must be a positive integer, got ${describe(node)}`);
    }
    return node.value;
  }

  /** A boolean, or an error naming the key. */
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

  /** A node's plain JSON value (for plugin options). */
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

  /** A plugin's permission grants, each `true`, `false` or a list of strings. */
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

  /** One plugin entry: a specifier string or `{ specifier, options?, sandbox?, permissions?, hooks?, manifestHash?, allowRunEscape?, limits?, hookTimeoutMs?, maxToolTimeoutMs?, startTimeoutMs? }`. */
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
      else if (name === "manifestHash") entry.manifestHash = this.string(value, path);
      else if (name === "allowRunEscape") entry.allowRunEscape = this.boolean(value, path);
      else if (
        name === "hookTimeoutMs" || name === "maxToolTimeoutMs" || name === "startTimeoutMs"
      ) {
        entry[name] = this.positiveInteger(value, path);
      } else if (name === "limits") {
        const limits: { memoryMb?: number; frameMb?: number } = {};
        for (const [part, , amount] of this.entries(value, path, ["memoryMb", "frameMb"])) {
          limits[part as "memoryMb" | "frameMb"] = this.positiveInteger(amount, `${path}.${part}`);
        }
        entry.limits = limits;
      } else if (name === "hooks") {
        if (value.type !== "string" || (value.value !== "own" && value.value !== "all")) {
          this.fail(value, path, `must be "own" or "all", got ${describe(value)}`);
        }
        entry.hooks = value.value;
      } else {
        if (value.type !== "object") {
          this.fail(value, path, `must be an object, got ${describe(value)}`);
        }
        entry.options = this.value(value) as Record<string, unknown>;
      }
    }
    if (entry.specifier === undefined) this.fail(node, `${key}.specifier`, "is missing");
    return entry as PluginEntry;
  }

  /** The confirm rules, each checked by the rules plugin's compiler, errors at the rule's line. */
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

  /** The whole config, relative paths resolved against `baseDir`. */
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
      } else if (name === "price") {
        const price: { input?: number; output?: number } = {};
        for (const [part, , amount] of this.entries(value, name, ["input", "output"])) {
          if (amount.type !== "number" || amount.value < 0) {
            this.fail(
              amount,
              `${name}.${part}`,
              `must be a number of dollars ≥ 0, got ${describe(amount)}`,
            );
          }
          price[part as "input" | "output"] = amount.value;
        }
        if (price.input === undefined || price.output === undefined) {
          this.fail(value, name, 'needs "input" and "output" (dollars per million tokens)');
        }
        config.price = price as { input: number; output: number };
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
