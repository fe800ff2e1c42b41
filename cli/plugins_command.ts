/**
 * `tack plugins inspect <specifier>`: what a plugin registers and asks for, read from a
 * sandbox with no permissions before it ever runs with any.
 *
 * @module
 */

import { describeHooks } from "../sdk/sandbox/hook_grant.ts";
import { inspectPlugin, type PluginInspection } from "../sdk/sandbox/inspect_plugin.ts";
import { stripControlSequences } from "../sdk/sandbox/strip_control_sequences.ts";
import { resolvePluginSpecifier, withHostFlagsHint } from "./load_plugins.ts";

/**
 * The report as text for a person.
 *
 * @param report What `inspectPlugin` found.
 * @returns Lines: name, tools with their effects, hooks with their scope, permissions,
 * confinement, manifest hash, warnings.
 *
 * @example A plugin with one tool
 * ```ts
 * import { formatInspection } from "./plugins_command.ts";
 * import { match } from "node:assert/strict";
 *
 * const text = formatInspection({
 *   name: "weather", tools: [{ name: "get_weather", description: "Weather", effects: ["net"] }],
 *   hooks: [{ stage: "afterToolCall", abilities: ["observe", "override results"], scope: "own" }],
 *   permissions: { net: ["api.example.com"] }, confined: true, warnings: [],
 *   manifestHash: "sha256-00",
 * });
 * match(text, /get_weather \[net\]/);
 * match(text, /afterToolCall: observe, override results \(its own tools only\)/);
 * match(text, /net: api\.example\.com/);
 * ```
 */
export function formatInspection(report: PluginInspection): string {
  const lines: string[] = [];
  const title = [report.name, report.version].filter(Boolean).join(" ");
  lines.push(`Plugin ${title}${report.description ? `: ${report.description}` : ""}`);
  lines.push("", `Tools (${report.tools.length}):`);
  if (report.tools.length === 0) lines.push("  (none: hooks only)");
  const width = Math.max(0, ...report.tools.map((tool) => tool.name.length));
  for (const tool of report.tools) {
    const effects = tool.effects?.length
      ? ` [${tool.effects.join(", ")}]`
      : " [no effects declared]";
    lines.push(`  ${tool.name.padEnd(width)}${effects}  ${tool.description.split("\n")[0]}`);
  }
  lines.push("", `Hooks (${report.hooks.length}):`);
  if (report.hooks.length === 0) lines.push("  none");
  for (const line of describeHooks(report.hooks)) lines.push(`  ${line}`);
  if (report.hooks.some((hook) => hook.scope === "own")) {
    lines.push(`  (grant "hooks": "all" to let them act on every tool's calls)`);
  }
  lines.push("", "Permissions it declares:");
  const grants = Object.entries(report.permissions);
  if (grants.length === 0) lines.push("  none");
  for (const [name, grant] of grants) {
    lines.push(`  ${name}: ${grant === true ? "all" : (grant as string[]).join(", ")}`);
  }
  if (report.limits) {
    lines.push(`Limits: memory ${report.limits.memoryMb} MB, messages ${report.limits.frameMb} MB`);
  }
  lines.push(
    "",
    `Module loading confined by an OS sandbox: ${report.confined ? "yes" : "no"}`,
    `Manifest: ${report.manifestHash} (pin it as "manifestHash" in tack.jsonc)`,
  );
  if (report.warnings.length > 0) {
    lines.push("", "Warnings:", ...report.warnings.map((warning) => `  ! ${warning}`));
  }
  // What the plugin says of itself (description, version, tools' descriptions) is plain
  // text on one line: no escape sequence or newline of its own reaches the terminal.
  return lines.map(stripControlSequences).join("\n");
}

/** Where the command writes. */
export interface InspectIO {
  /** The report (stdout). */
  out(text: string): void;
  /** Errors (stderr). */
  err(text: string): void;
}

/**
 * Runs `tack plugins inspect <specifier>`.
 *
 * @param specifier The plugin, as it would be written in `tack.jsonc` or `--plugin`.
 * @param json Print the report as one JSON object instead.
 * @param io Where to write.
 * @param cwd Where relative specifiers resolve from.
 * @returns The exit code: 0, or 2 when the plugin cannot be loaded.
 *
 * @example Not a specifier
 * ```ts
 * import { inspectCommand } from "./plugins_command.ts";
 * import { equal } from "node:assert/strict";
 *
 * let errors = "";
 * const code = await inspectCommand("nope", false, { out() {}, err: (t) => void (errors += t) });
 * equal(code, 2);
 * equal(errors.startsWith('Cannot inspect plugin: "nope" is not a plugin specifier'), true);
 * ```
 */
export async function inspectCommand(
  specifier: string,
  json: boolean,
  io: InspectIO,
  cwd: string = Deno.cwd(),
): Promise<number> {
  const resolved = resolvePluginSpecifier(specifier, cwd);
  if (resolved.kind === "error") {
    io.err(`Cannot inspect plugin: ${resolved.message}\n`);
    return 2;
  }
  let report: PluginInspection;
  try {
    report = await inspectPlugin(resolved.url, { root: cwd, stderr: "capture" });
  } catch (error) {
    const message = withHostFlagsHint(
      (error as Error).message.replace(/^Cannot load plugin "[^"]*": /, ""),
    );
    io.err(`Cannot inspect plugin "${specifier}": ${message}\n`);
    return 2;
  }
  io.out((json ? JSON.stringify(report) : formatInspection(report)) + "\n");
  return 0;
}
