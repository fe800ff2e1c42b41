/**
 * Resolves and loads the plugins named in `tack.jsonc` and by `--plugin`: built-in short
 * names (`fs`, `shell`, …), local paths, `jsr:`, `npm:` and URL specifiers. A plugin
 * module's default export is a `Plugin` or a factory `(options) => Plugin`.
 *
 * @module
 */

import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "../sdk/define_plugin.ts";
import { loadPlugin } from "../sdk/sandbox/load_plugin.ts";
import { trailingLoadHint } from "../sdk/sandbox/load_failure_hint.ts";
import { DEFAULT_START_TIMEOUT_MS } from "../sdk/sandbox/sandbox_connection.ts";
import { rejectAfter } from "../sdk/sleep.ts";
import type { PluginEntry } from "./config.ts";
import { thrownText } from "../core/thrown_text.ts";

type ModuleLoader = () => Promise<Record<string, unknown>>;

// Literal imports, so the built-ins are part of the CLI's module graph: a dynamic import
// of a computed URL outside the graph would need read access to Tack's own folder.
const BUILTIN_MODULES: Record<string, ModuleLoader> = {
  fs: () => import("../plugins/fs/mod.ts"),
  shell: () => import("../plugins/shell/mod.ts"),
  http: () => import("../plugins/http/mod.ts"),
  rules: () => import("../plugins/rules/mod.ts"),
  confirm: () => import("../plugins/confirm/mod.ts"),
  read_only: () => import("../plugins/read_only/mod.ts"),
  audit: () => import("../plugins/audit/mod.ts"),
  budget: () => import("../plugins/budget/mod.ts"),
  mcp: () => import("../plugins/mcp/mod.ts"),
};

/** The plugins that ship with Tack, by short name. */
const BUILTIN_PLUGINS: readonly string[] = Object.keys(BUILTIN_MODULES);

const BUILTIN_BY_URL = new Map<string, ModuleLoader>(
  Object.entries(BUILTIN_MODULES).map((
    [name, load],
  ) => [new URL(`../plugins/${name}/mod.ts`, import.meta.url).href, load]),
);

/** Loads one resolved entry; swap it out to load plugins another way (sandboxed). */
export type PluginLoader = (url: string, entry: PluginEntry) => Promise<Plugin>;

/** The outcome of {@linkcode loadPlugins}. */
export type LoadPluginsResult =
  | { kind: "ok"; plugins: Plugin[] }
  | { kind: "error"; message: string };

/** The outcome of {@linkcode resolvePluginSpecifier}. */
export type ResolvedSpecifier = { kind: "ok"; url: string } | { kind: "error"; message: string };

/**
 * The built-in plugin a specifier names (`read-only` is `read_only`), if it names one.
 *
 * @param specifier As written in `tack.jsonc` or `--plugin`.
 * @returns The plugin's folder name under `plugins/`, or `undefined`.
 *
 * @example
 * ```ts
 * import { builtinPluginName } from "./load_plugins.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(builtinPluginName("read-only"), "read_only");
 * equal(builtinPluginName("./fs.ts"), undefined);
 * ```
 */
export function builtinPluginName(specifier: string): string | undefined {
  const name = specifier === "read-only" ? "read_only" : specifier;
  return BUILTIN_PLUGINS.includes(name) ? name : undefined;
}

/**
 * Turns a plugin specifier into a module URL: a built-in name into its module in
 * `plugins/`, a path into a `file:` URL (relative to `baseDir`), a `jsr:`, `npm:`,
 * `http(s):` or `file:` specifier into itself.
 *
 * @param specifier As written in the config or on the command line.
 * @param baseDir Where relative paths start.
 * @returns The URL to import, or an error saying what forms are accepted.
 *
 * @example Built-in and local plugins
 * ```ts
 * import { resolvePluginSpecifier } from "./load_plugins.ts";
 * import { equal, match } from "node:assert/strict";
 *
 * const fs = resolvePluginSpecifier("fs", "/work");
 * match(fs.kind === "ok" ? fs.url : "", /\/plugins\/fs\/mod\.ts$/);
 * const local = resolvePluginSpecifier("./my_plugin.ts", "/work");
 * equal(local.kind === "ok" && local.url, "file:///work/my_plugin.ts");
 * equal(resolvePluginSpecifier("nope", "/work").kind, "error");
 * ```
 */
export function resolvePluginSpecifier(specifier: string, baseDir: string): ResolvedSpecifier {
  const name = builtinPluginName(specifier);
  if (name !== undefined) {
    return { kind: "ok", url: new URL(`../plugins/${name}/mod.ts`, import.meta.url).href };
  }
  if (/^(jsr|npm|https?|file):/.test(specifier)) return { kind: "ok", url: specifier };
  if (
    specifier.startsWith("./") || specifier.startsWith("../") || isAbsolute(specifier) ||
    /\.(ts|js|mts|mjs|tsx|jsx)$/.test(specifier)
  ) {
    return { kind: "ok", url: pathToFileURL(resolve(baseDir, specifier)).href };
  }
  return {
    kind: "error",
    message: `"${specifier}" is not a plugin specifier: use a built-in name (${
      BUILTIN_PLUGINS.join(", ")
    }), a path like ./my_plugin.ts, or a jsr:, npm: or https: specifier`,
  };
}

function isPlugin(value: unknown): value is Plugin {
  return typeof value === "object" && value !== null &&
    typeof (value as Plugin).name === "string" && (value as Plugin).name.trim() !== "";
}

function firstLine(error: unknown): string {
  const text = thrownText(error);
  const first = text.split("\n")[0];
  // A sandbox's load hint (what to run) comes after Deno's words, which may run to many lines.
  const hint = trailingLoadHint(text);
  return hint && !first.endsWith(hint) ? first + hint : first;
}

/** Where a `deno task agent` user gets more permissions than the task's set. */
const INSTALLED_HINT = "the installed `tack`, from `deno task install`, reads plugins anywhere: " +
  "see docs/cli.md";

/**
 * A load error that asks for more host flags, with where a `deno task agent` user gets
 * them (the task's permission set is fixed; the installed `tack` has its own).
 *
 * @param message The load error.
 * @returns It, with the hint when it names the host's flags.
 *
 * @example
 * ```ts
 * import { withHostFlagsHint } from "./load_plugins.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(withHostFlagsHint("it broke"), "it broke");
 * equal(withHostFlagsHint("add --allow-read=/x to the host's flags").endsWith("see docs/cli.md)"), true);
 * ```
 */
export function withHostFlagsHint(message: string): string {
  return /to the host's flags/.test(message)
    ? `${message} (with \`deno task agent\` the host's flags are its permission set in deno.json; ${INSTALLED_HINT})`
    : message;
}

/**
 * Imports a plugin module in this process and builds its plugin from the default export
 * (calling it with the entry's options if it is a factory).
 *
 * @param url The module URL.
 * @param entry The entry, for its options.
 * @returns The plugin.
 * @throws {Error} With a message saying what is wrong with the module (the caller adds
 * which plugin it was).
 *
 * @example A plugin from a data URL
 * ```ts
 * import { importPlugin } from "./load_plugins.ts";
 * import { equal } from "node:assert/strict";
 *
 * const url = "data:text/javascript,export default (o) => ({ name: 'hi-' + o.who })";
 * const plugin = await importPlugin(url, {
 *   specifier: url, options: { who: "there" }, baseDir: ".", source: "test",
 * });
 * equal(plugin.name, "hi-there");
 * ```
 */
export async function importPlugin(
  url: string,
  entry: PluginEntry,
  timeoutMs = DEFAULT_START_TIMEOUT_MS,
): Promise<Plugin> {
  // A top-level await or a factory that never settles would hold the CLI forever.
  let lateError: Error | undefined;
  const late = (what: string) => () =>
    lateError = new Error(
      `its ${what} did not finish within ${timeoutMs} ms (does it await something that never settles? if it is only slow, raise its "startTimeoutMs")`,
    );
  let module: Record<string, unknown>;
  try {
    module = await rejectAfter(
      (BUILTIN_BY_URL.get(url) ?? (() => import(url)))(),
      timeoutMs,
      late("module"),
    );
  } catch (error) {
    if (error === lateError) throw error;
    // Deno reports a dynamic import it may not read as a TypeError, not NotCapable.
    const hint = /read access/.test(String(error))
      ? ` (\`deno task agent\` may read only the Tack repository; ${INSTALLED_HINT})`
      : "";
    throw new Error(`its module failed to load: ${firstLine(error)}${hint}`);
  }
  const exported = module.default;
  if (exported === undefined) {
    throw new Error("its module has no default export (export a Plugin or a factory)");
  }
  if (typeof exported === "function") {
    let made: unknown;
    try {
      made = await rejectAfter(exported(entry.options ?? {}), timeoutMs, late("factory"));
    } catch (error) {
      if (error === lateError) throw error;
      throw new Error(`its factory threw: ${firstLine(error)}`);
    }
    if (!isPlugin(made)) {
      throw new Error("its factory did not return a plugin (an object with a non-empty name)");
    }
    return made;
  }
  if (!isPlugin(exported)) {
    throw new Error("its default export is neither a plugin nor a factory function");
  }
  if (entry.options !== undefined) {
    throw new Error("it takes no options (its default export is a plugin, not a factory)");
  }
  return exported;
}

/**
 * The CLI's loader: entries with `"sandbox": true` run in their own confined Deno process
 * (`loadPlugin` from `sdk/sandbox`) with their declared permissions, or the entry's;
 * the others are imported into this process with {@linkcode importPlugin}.
 *
 * @param onWarning Receives sandbox warnings (no OS confinement layer, escaping grants).
 * @returns The loader, for {@linkcode loadPlugins}.
 *
 * @example Permissions without a sandbox are refused
 * ```ts
 * import { createPluginLoader, loadPlugins } from "./load_plugins.ts";
 * import { equal } from "node:assert/strict";
 *
 * const result = await loadPlugins(
 *   [{ specifier: "fs", permissions: { read: true }, baseDir: ".", source: "tack.jsonc:3:5" }],
 *   createPluginLoader(() => {}),
 * );
 * equal(
 *   result.kind === "error" && result.message,
 *   'Cannot load plugin "fs" (tack.jsonc:3:5): "permissions" only apply with "sandbox": true ' +
 *     "(a plugin loaded into the CLI's process has the CLI's permissions)",
 * );
 * ```
 */
export function createPluginLoader(onWarning: (message: string) => void): PluginLoader {
  return async function loadCliPlugin(url, entry) {
    if (!entry.sandbox) {
      if (entry.permissions !== undefined) {
        throw new Error(
          `"permissions" only apply with "sandbox": true (a plugin loaded into the CLI's ` +
            `process has the CLI's permissions)`,
        );
      }
      const sandboxOnly = [
        "hooks",
        "manifestHash",
        "limits",
        "hookTimeoutMs",
        "maxToolTimeoutMs",
      ] as const;
      for (const key of sandboxOnly) {
        if (entry[key] !== undefined) {
          throw new Error(
            `"${key}" only applies with "sandbox": true (a plugin loaded into the CLI's ` +
              `process has the CLI's hooks, limits and timeouts, and is not inspected)`,
          );
        }
      }
      return await importPlugin(url, entry, entry.startTimeoutMs);
    }
    try {
      return await loadPlugin(url, {
        sandbox: true,
        permissions: entry.permissions,
        hooks: entry.hooks,
        manifestHash: entry.manifestHash,
        limits: entry.limits,
        hookTimeoutMs: entry.hookTimeoutMs,
        maxToolTimeoutMs: entry.maxToolTimeoutMs,
        startTimeoutMs: entry.startTimeoutMs,
        options: entry.options ?? {},
        root: entry.baseDir,
        onWarning,
        allowRunEscape: entry.allowRunEscape,
      });
    } catch (error) {
      throw new Error(
        withHostFlagsHint(
          firstLine(error).replace(/^Cannot load plugin "[^"]*": /, "")
            .replace(
              "pass allowRunEscape: true",
              'set "allowRunEscape": true on its tack.jsonc entry',
            ),
        ),
      );
    }
  };
}

/**
 * Loads plugins in order. On the first failure, disposes those already loaded and
 * returns an error naming the plugin and where it was listed.
 *
 * @param entries The plugins to load.
 * @param load How to load one (default: {@linkcode importPlugin}, in this process).
 * @returns The plugins, or an error to print.
 *
 * @example A bad specifier
 * ```ts
 * import { loadPlugins } from "./load_plugins.ts";
 * import { equal, match } from "node:assert/strict";
 *
 * const result = await loadPlugins([{ specifier: "nope", baseDir: ".", source: "--plugin" }]);
 * equal(result.kind, "error");
 * match(result.kind === "error" ? result.message : "", /^Cannot load plugin "nope" \(--plugin\)/);
 * ```
 */
export async function loadPlugins(
  entries: readonly PluginEntry[],
  load: PluginLoader = importPlugin,
): Promise<LoadPluginsResult> {
  const plugins: Plugin[] = [];
  for (const entry of entries) {
    const where = `Cannot load plugin "${entry.specifier}" (${entry.source})`;
    const resolved = resolvePluginSpecifier(entry.specifier, entry.baseDir);
    let failure: string | undefined;
    if (resolved.kind === "error") failure = resolved.message;
    else {
      try {
        plugins.push(await load(resolved.url, entry));
      } catch (error) {
        failure = firstLine(error);
      }
    }
    if (failure !== undefined) {
      for (const plugin of plugins) {
        try {
          await plugin.dispose?.();
        } catch { /* the load error is what the user needs to see */ }
      }
      return { kind: "error", message: `${where}: ${failure}` };
    }
  }
  return { kind: "ok", plugins };
}
