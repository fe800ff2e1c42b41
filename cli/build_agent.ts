/**
 * Assembles the CLI's agent: the model, the plugins from the config and flags (or the
 * defaults, `fs` and `shell` on the current directory), and the confirm policy for
 * write and exec effects unless `--yes` (with `--yes`, the config's deny rules still hold).
 *
 * @module
 */

import type { Message } from "../core/messages.ts";
import type { Model } from "../core/model.ts";
import type { Agent } from "../sdk/agent.ts";
import { createAgent } from "../sdk/create_agent.ts";
import type { AgentTracer } from "../sdk/telemetry/agent_tracer.ts";
import type { Plugin } from "../sdk/define_plugin.ts";
import type { AuditPlugin } from "../plugins/audit/mod.ts";
import { confirm, type ConfirmPlugin } from "../plugins/confirm/mod.ts";
import type { ConfirmAnswer, ConfirmRequest } from "./ask.ts";
import type { PluginEntry, TackConfig } from "./config.ts";
import { loadPlugins, type PluginLoader } from "./load_plugins.ts";
import { resolve } from "node:path";

/** The plugins the CLI loads when the config lists none. */
const DEFAULT_PLUGINS: readonly string[] = ["fs", "shell"];

/**
 * The system prompt when the config sets none.
 *
 * @param cwd The folder the agent works in.
 * @returns The prompt.
 *
 * @example The prompt names the folder
 * ```ts
 * import { defaultSystemPrompt } from "./build_agent.ts";
 * import { match } from "node:assert/strict";
 *
 * match(defaultSystemPrompt("/work"), /\/work/);
 * ```
 */
export function defaultSystemPrompt(cwd: string): string {
  return `You are Tack, an agent working in the folder ${cwd} on the user's machine. ` +
    `Use your tools to look at files and run commands instead of guessing, keep changes ` +
    `small, and answer concisely. When a tool call is blocked, do not retry it unchanged: ` +
    `explain what you wanted to do and why.`;
}

/** What {@linkcode buildAgent} is built from. */
export interface BuildAgentOptions {
  /** The model to talk to. */
  model: Model;
  /** The parsed `tack.jsonc` (plugins, rules, system prompt, limits). */
  config: TackConfig;
  /** `--plugin` specifiers, added after the config's (or the default) plugins. */
  flagPlugins: readonly string[];
  /** `--yes`: add no confirm policy. */
  yes: boolean;
  /** Asks the user on a terminal; absent when there is none (calls needing a yes are blocked). */
  ask?: (request: ConfirmRequest) => Promise<ConfirmAnswer>;
  /** The transcript to continue. */
  messages: readonly Message[];
  /** The folder the agent works in (the default plugins' root). */
  cwd: string;
  /** How to load one plugin (default: in this process). */
  load?: PluginLoader;
  /** Times the run's hooks and tools (OpenTelemetry when `OTEL_DENO=true`). */
  trace?: AgentTracer;
}

/** The outcome of {@linkcode buildAgent}. */
export type BuildAgentResult =
  | { kind: "ok"; agent: Agent; plugins: readonly Plugin[] }
  | { kind: "error"; message: string };

/**
 * The plugin entries to load: the config's list (or the defaults), then `--plugin`s.
 *
 * @param config The config.
 * @param flagPlugins `--plugin` specifiers.
 * @param cwd Where flag and default specifiers resolve from.
 * @returns The entries, in hook order.
 *
 * @example The defaults plus a flag
 * ```ts
 * import { pluginEntries } from "./build_agent.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(pluginEntries({}, ["./x.ts"], "/w").map((e) => e.specifier), ["fs", "shell", "./x.ts"]);
 * ```
 */
export function pluginEntries(
  config: TackConfig,
  flagPlugins: readonly string[],
  cwd: string,
): PluginEntry[] {
  const listed = config.plugins ??
    DEFAULT_PLUGINS.map((specifier) => ({
      specifier,
      options: { root: cwd },
      baseDir: cwd,
      source: "default",
    }));
  return [
    ...listed,
    ...flagPlugins.map((specifier) => ({ specifier, baseDir: cwd, source: "--plugin" })),
  ];
}

/**
 * Where the `fs` plugin's paths start, when it is loaded: its `root` option, from the folder
 * its entry was listed in. The approval screen reads a write's current file there (it diffed
 * `./config.md` while `app/config.md` was replaced).
 *
 * @param entries The plugins to load.
 * @returns The fs root, or `undefined` without the fs plugin.
 *
 * @example
 * ```ts
 * import { fsRootOf } from "./build_agent.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(fsRootOf([{ specifier: "fs", options: { root: "app" }, baseDir: "/w", source: "config" }]), "/w/app");
 * equal(fsRootOf([{ specifier: "shell", baseDir: "/w", source: "config" }]), undefined);
 * ```
 */
export function fsRootOf(entries: readonly PluginEntry[]): string | undefined {
  const entry = entries.find((candidate) => candidate.specifier === "fs");
  if (entry === undefined) return undefined;
  const root = (entry.options as { root?: unknown } | undefined)?.root;
  return resolve(entry.baseDir, typeof root === "string" ? root : ".");
}

function isAudit(plugin: Plugin): plugin is AuditPlugin {
  return plugin.name === "audit" && "approvedBy" in plugin;
}

/**
 * Loads the plugins and creates the agent. The confirm policy goes last, so a call other
 * policies block is never asked about.
 *
 * @param options The model, config, flags, transcript and how to ask.
 * @returns The agent, or an error naming the plugin that failed (exit code 2).
 *
 * @example An agent with no plugins, on the scripted model
 * ```ts
 * import { buildAgent } from "./build_agent.ts";
 * import { scriptedModel, text } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const built = await buildAgent({
 *   model: scriptedModel([[text("hi")]]), config: { plugins: [] }, flagPlugins: [],
 *   yes: true, messages: [], cwd: Deno.cwd(),
 * });
 * if (built.kind !== "ok") throw new Error(built.message);
 * await built.agent.prompt("hello");
 * equal(built.agent.messages.length, 2);
 * ```
 */
export async function buildAgent(options: BuildAgentOptions): Promise<BuildAgentResult> {
  const entries = pluginEntries(options.config, options.flagPlugins, options.cwd);
  const own = entries.find((entry) => entry.specifier === "confirm");
  if (own) {
    return {
      kind: "error",
      message: `Cannot load plugin "confirm" (${own.source}): the CLI adds confirm itself, ` +
        `last (it asks before writes and commands; --yes leaves it out). Put its rules in ` +
        `tack.jsonc "rules" instead.`,
    };
  }
  const loaded = await loadPlugins(entries, options.load);
  if (loaded.kind === "error") return loaded;
  const plugins = [...loaded.plugins];
  const rules = options.config.rules;
  let policy: ConfirmPlugin | undefined;
  if (!options.yes) {
    policy = confirm({ rules, ask: options.ask, whenNonInteractive: "deny" });
  } else if (rules !== undefined && rules.length > 0) {
    // --yes answers every question, but deny rules still hold.
    policy = confirm({ rules, whenNonInteractive: "allow" });
  }
  if (policy) {
    plugins.push(policy);
    // An audit log from tack.jsonc says who approved each call: confirm knows.
    for (const plugin of plugins) {
      if (isAudit(plugin) && plugin.approvedBy === undefined) {
        plugin.approvedBy = policy.approvalOf;
      }
    }
  }
  try {
    const agent = createAgent({
      model: options.model,
      systemPrompt: options.config.systemPrompt ?? defaultSystemPrompt(options.cwd),
      plugins,
      messages: options.messages,
      maxTurns: options.config.maxTurns,
      // No hookTimeoutMs here: a person answering a confirmation may take longer than a
      // tool call, so the confirm plugin sets its own to Infinity (Ctrl-C, the run's abort,
      // still ends the wait); every other plugin's hooks stay bounded by the call's timeout.
      trace: options.trace,
    });
    return { kind: "ok", agent, plugins };
  } catch (error) {
    for (const plugin of plugins) await Promise.resolve(plugin.dispose?.()).catch(() => {});
    return { kind: "error", message: (error as Error).message };
  }
}
