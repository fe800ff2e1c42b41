/**
 * The workspace-trust gate: the `tack.jsonc` a folder holds is code (it loads plugins, starts
 * MCP servers, chooses where the API key goes), so `tack` obeys it only once the user trusted
 * that file, as it is now, with `tack trust` or a `y` at the question. A file named with
 * `--config` is the user's choice and needs no trust; a folder without one needs nothing.
 *
 * @module
 */

import { dirname } from "node:path";
import { visibleLine } from "../plugins/confirm/visible_text.ts";
import type { TackConfig } from "./config.ts";
import { fingerprintChange, fingerprintConfig, localPluginFiles } from "./config_fingerprint.ts";
import { describePluginImports, importsChange, unstableTrust } from "./plugin_imports.ts";
import { readTrustStore, recordTrust, TrustStoreDenied, trustStorePath } from "./trust_store.ts";
import { trustSummary } from "./trust_summary.ts";
import { columnsOfText } from "./screen_columns.ts";

/** What {@linkcode checkWorkspaceTrust} checks, and how it talks to the user. */
export interface TrustGateOptions {
  /** The implicit config's path (`<cwd>/tack.jsonc`). */
  file: string;
  /** Its bytes, as read and parsed. */
  bytes: Uint8Array;
  /** What they parsed to. */
  config: TackConfig;
  /** Reads an environment variable (`XDG_STATE_HOME`, `HOME`). */
  env: (name: string) => string | undefined;
  /** Writes a line (with its newline) where the user sees it: stderr. */
  write: (text: string) => void;
  /** Asks the question after the summary; absent when there is no terminal to ask on. */
  ask?: () => Promise<boolean>;
  /** The terminal's size, when known: a summary taller than it says what scrolled off. */
  screen?: () => { columns: number; rows: number } | undefined;
}

/** The gate's verdict: go on, or stop with a message (exit 2). */
export type TrustGateResult = { kind: "trusted" } | { kind: "refused"; message: string };

/**
 * The most characters a line of the summary above the question shows (three rows of an
 * 80-column terminal); `tack trust` prints whole lines.
 */
const QUESTION_LINE_LENGTH = 240;

/**
 * How many rows of `text` a terminal of `screen`'s size no longer shows once the warning and
 * the question are drawn below it (a line wraps every `columns` columns; a wide character
 * takes two).
 */
function scrolledOff(text: string, screen: { columns: number; rows: number } | undefined): number {
  if (!screen || screen.columns <= 0 || screen.rows <= 0) return 0;
  let rows = 0;
  for (const line of text.replace(/\n$/, "").split("\n")) {
    rows += Math.max(1, Math.ceil(columnsOfText(line) / screen.columns));
  }
  return Math.max(0, rows - (screen.rows - 2));
}

/** How to trust a file without the question: said in every refusal. */
const HOW_TO_TRUST = 'read it, then run "tack trust" here to trust it, ' +
  "or pass --config ./tack.jsonc to use it this once";

/**
 * The lines `tack trust` and the question show: what the file is, why it is asked about, and
 * what it would do.
 *
 * @param path The file's path (its folder's real path).
 * @param config What it sets.
 * @param reason What is said of it (`"is not trusted yet"`).
 * @param maxLineLength The most characters a line of the summary shows (the question's:
 * what matters most comes last, and no harmless line is long enough to push it off).
 * @returns The text, ending with a newline.
 *
 * @example
 * ```ts
 * import { trustReport } from "./workspace_trust.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(trustReport("/p/tack.jsonc", { model: "m", plugins: [] }, "is not trusted yet"),
 *   '/p/tack.jsonc is not trusted yet. It runs with your permissions; with it, tack:\n' +
 *     '  - uses the model "m"\n');
 * ```
 */
export function trustReport(
  path: string,
  config: TackConfig,
  reason: string,
  maxLineLength?: number,
): string {
  const lines = trustSummary(config, { maxLineLength }).map((line) =>
    line.startsWith("  ") ? `    ${line.trimStart()}` : `  - ${line}`
  );
  // The folder's name, and a plugin file's, are the repository's: shown as text.
  return visibleLine(`${path} ${reason}. It runs with your permissions; with it, tack:`) + "\n" +
    lines.map((line) => `${line}\n`).join("");
}

/**
 * Decides whether the folder's `tack.jsonc` may be obeyed: trusted as it is now, it goes on;
 * else, on a terminal, the summary and the question; without one, a one-line refusal. Nothing
 * from the file is loaded here. When the store cannot be read (no home folder, Deno's
 * permissions), it is refused.
 *
 * @param options The file, its bytes and config, and how to reach the user.
 * @returns Trusted, or refused with the message to print.
 *
 * @example A file nobody trusted, with no terminal
 * ```ts
 * import { checkWorkspaceTrust } from "./workspace_trust.ts";
 * import { equal, match } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/tack.jsonc`, "{}");
 * const result = await checkWorkspaceTrust({
 *   file: `${dir}/tack.jsonc`, bytes: new TextEncoder().encode("{}"), config: {},
 *   env: (name) => name === "XDG_STATE_HOME" ? dir : undefined, write() {},
 * });
 * equal(result.kind, "refused");
 * match(result.kind === "refused" ? result.message : "", /is not trusted yet/);
 * ```
 */
export async function checkWorkspaceTrust(options: TrustGateOptions): Promise<TrustGateResult> {
  const store = trustStorePath(options.env);
  if (store === undefined) {
    return {
      kind: "refused",
      message: "Cannot check whether ./tack.jsonc is trusted: neither XDG_STATE_HOME nor HOME " +
        "is set (or readable) for the trust store; pass --config ./tack.jsonc to use it",
    };
  }
  // What the plugins import is listed (a subprocess) only to be asked about: a trusted start
  // hashes the files the trusted record lists.
  const now = await fingerprintConfig(options.file, options.bytes, options.config, false);
  const roots = localPluginFiles(options.config);
  const sandboxed = localPluginFiles(options.config, true);
  const workspace = dirname(now.path);
  let reason = "is not trusted yet";
  try {
    const { entries, warning } = await readTrustStore(store);
    if (warning) options.write(`${visibleLine(warning)}\n`);
    const trusted = entries.find((entry) => entry.path === now.path);
    const change = trusted &&
      (fingerprintChange(trusted, now) ??
        await importsChange(trusted.imports, roots.length > 0, undefined, {
          all: roots,
          sandboxed,
          workspace,
        }));
    if (trusted && !change) return { kind: "trusted" };
    if (change) reason = `changed since you trusted it (${change})`;
  } catch (error) {
    if (!(error instanceof TrustStoreDenied)) throw error;
    return {
      kind: "refused",
      message: `Cannot check whether ${now.path} is trusted: ${error.message}; ` +
        "or pass --config ./tack.jsonc to use it",
    };
  }
  if (!options.ask) {
    return {
      kind: "refused",
      message: `${now.path} ${reason}, and it can load plugins and run commands: ` +
        `nothing from it was loaded. To use it, ${HOW_TO_TRUST}`,
    };
  }
  if (roots.length > 0) {
    now.imports = await describePluginImports(roots, workspace, undefined, sandboxed);
  }
  const problem = now.imports?.problem;
  // Next to the question, a screen of the lines that matter most: a 20 000-character
  // system prompt pushed the plugins and the endpoint off an 80 × 24 screen.
  const report = trustReport(now.path, options.config, reason, QUESTION_LINE_LENGTH) +
    (problem === undefined ? "" : visibleLine(unstableTrust(problem)) + "\n");
  options.write(report);
  const hidden = scrolledOff(report, options.screen?.());
  if (hidden > 0) {
    options.write(
      `⚠ The first ${hidden} rows above are off the screen: scroll up, or read the file, ` +
        "before you answer.\n",
    );
  }
  if (!(await options.ask())) {
    return {
      kind: "refused",
      message: `Not trusted: nothing from ${now.path} was loaded. To use it, ${HOW_TO_TRUST}`,
    };
  }
  try {
    await recordTrust(store, now);
  } catch (error) {
    options.write(
      visibleLine(
        `Cannot record that you trust it (${(error as Error).message}): ` +
          "it is used this once, and you will be asked again",
      ) + "\n",
    );
  }
  return { kind: "trusted" };
}
