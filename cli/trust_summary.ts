/**
 * What a `tack.jsonc` would do, in lines a person reads before trusting it: the plugins it
 * loads (and where from, and with what), the MCP servers it starts or reaches, where the
 * API key goes, the rules that allow calls without asking, where sessions are written. Every
 * string from the file is shown as text: no escape in it reaches the terminal, and no newline
 * in it starts a line of its own.
 *
 * @module
 */

import { visibleLine } from "../plugins/confirm/visible_text.ts";
import { compileRules, quoteShellWord } from "../plugins/rules/mod.ts";
import type { PluginEntry, TackConfig } from "./config.ts";
import { builtinPluginName, resolvePluginSpecifier } from "./load_plugins.ts";
import { fileURLToPath } from "node:url";

function json(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function where(entry: PluginEntry): string {
  if (builtinPluginName(entry.specifier) !== undefined) return "built in";
  const resolved = resolvePluginSpecifier(entry.specifier, entry.baseDir);
  if (resolved.kind === "error") return "not a plugin specifier: it will not load";
  return resolved.url.startsWith("file:") ? fileURLToPath(resolved.url) : resolved.url;
}

function how(entry: PluginEntry): string {
  if (!entry.sandbox) return "in tack's own process, with all of tack's permissions";
  const parts = [
    entry.permissions === undefined
      ? "sandboxed, with the permissions it declares"
      : `sandboxed, permissions ${json(entry.permissions)}`,
  ];
  if (entry.allowRunEscape) parts.push("its run grant accepted (that escapes every sandbox)");
  if (entry.hooks === "all") parts.push("its hooks act on every tool");
  return parts.join("; ");
}

function mcpServers(options: Record<string, unknown> | undefined): string[] {
  if (!options) return [];
  const servers = "servers" in options && typeof options.servers === "object" && options.servers
    ? Object.entries(options.servers as Record<string, Record<string, unknown>>)
    : [[String(options.name ?? "mcp"), options] as const];
  return servers.map(([name, server]) => {
    if (typeof server !== "object" || server === null) {
      return `MCP server ${json(name)}: ${json(server)}`;
    }
    if (typeof server.url === "string") {
      const headers = server.headers ? `, headers ${json(server.headers)}` : "";
      return `connects to the MCP server ${json(name)} at ${server.url}${headers}`;
    }
    const args = Array.isArray(server.args)
      ? server.args.map((a) => quoteShellWord(String(a)))
      : [];
    const env = server.env ? `, env ${json(server.env)}` : "";
    const cwd = typeof server.cwd === "string" ? `, in ${server.cwd}` : "";
    return `starts the MCP server ${json(name)}: ${
      [quoteShellWord(String(server.command)), ...args].join(" ")
    }${env}${cwd}`;
  });
}

function pluginLines(entry: PluginEntry): string[] {
  const lines = [`loads the plugin ${entry.specifier} (${where(entry)}), ${how(entry)}`];
  if (entry.options !== undefined) lines.push(`  with options ${json(entry.options)}`);
  if (entry.specifier === "mcp") lines.push(...mcpServers(entry.options).map((l) => `  ${l}`));
  return lines;
}

function allowRules(config: TackConfig): string[] {
  if (!config.rules?.length) return [];
  return compileRules(config.rules, "config")
    .filter((compiled) => compiled.rule.action === "allow")
    .map((compiled) =>
      `allows without asking (rule ${json(compiled.rule.name)}): ${compiled.description}`
    );
}

/** How {@linkcode trustSummary} lays its lines out. */
export interface TrustSummaryOptions {
  /**
   * The most characters a line shows; the rest is counted (`… (N more characters: read the
   * file)`). Absent: whole lines.
   */
  maxLineLength?: number;
}

/** One item of the summary: its lines, and how much it matters (higher: shown later). */
interface Item {
  rank: number;
  lines: string[];
}

function capped(line: string, max: number | undefined): string {
  const chars = [...line];
  if (max === undefined || chars.length <= max) return line;
  return `${chars.slice(0, max).join("")}… (${chars.length - max} more characters: read the file)`;
}

/**
 * The summary of what a config would do, one item a line, each safe to print. The items
 * that matter most come last, next to the question: the model and the system prompt, where
 * sessions go, the allow rules, the built-in plugins, then the plugins from elsewhere and
 * the MCP servers (code run with your permissions), and where the API key goes. A long
 * harmless line (a system prompt of 20 000 characters) cannot push those off the screen
 * above the question.
 *
 * @param config The parsed config.
 * @param options How long a line may be.
 * @returns The lines (without a trailing newline each).
 *
 * @example A plugin, an endpoint and an MCP server
 * ```ts
 * import { trustSummary } from "./trust_summary.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const lines = trustSummary({
 *   baseURL: "https://example.com/v1\x1b[2J",
 *   plugins: [
 *     { specifier: "./evil.ts", baseDir: "/p", source: "tack.jsonc" },
 *     { specifier: "mcp", options: { command: "npx", args: ["-y", "a b"] }, baseDir: "/p", source: "tack.jsonc" },
 *   ],
 *   systemPrompt: "x".repeat(200),
 * }, { maxLineLength: 100 });
 * deepEqual(lines, [
 *   `replaces the system prompt with "${"x".repeat(67)}… (134 more characters: read the file)`,
 *   "loads the plugin ./evil.ts (/p/evil.ts), in tack's own process, with all of tack's permissions",
 *   "loads the plugin mcp (built in), in tack's own process, with all of tack's permissions",
 *   '  with options {"command":"npx","args":["-y","a b"]}',
 *   "  starts the MCP server \"mcp\": npx -y 'a b'",
 *   "sends your OPENAI_API_KEY and the conversation to https://example.com/v1␛[2J",
 * ]);
 * ```
 */
export function trustSummary(config: TackConfig, options: TrustSummaryOptions = {}): string[] {
  const items: Item[] = [];
  if (config.model !== undefined) {
    items.push({ rank: 0, lines: [`uses the model ${json(config.model)}`] });
  }
  if (config.systemPrompt !== undefined) {
    items.push({
      rank: 0,
      lines: [`replaces the system prompt with ${json(config.systemPrompt)}`],
    });
  }
  if (config.sessionDir !== undefined) {
    items.push({ rank: 1, lines: [`writes sessions to ${config.sessionDir}`] });
  }
  for (const line of allowRules(config)) items.push({ rank: 2, lines: [line] });
  if (config.plugins === undefined) {
    items.push({ rank: 3, lines: ["loads the default plugins (fs, shell)"] });
  }
  for (const entry of config.plugins ?? []) {
    const builtin = builtinPluginName(entry.specifier) !== undefined && entry.specifier !== "mcp";
    items.push({ rank: builtin ? 3 : 4, lines: pluginLines(entry) });
  }
  if (config.baseURL !== undefined) {
    items.push({
      rank: 5,
      lines: [`sends your OPENAI_API_KEY and the conversation to ${config.baseURL}`],
    });
  }
  return items
    .map((item, index) => ({ ...item, index }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .flatMap((item) => item.lines)
    .map((line) => capped(visibleLine(line), options.maxLineLength));
}
