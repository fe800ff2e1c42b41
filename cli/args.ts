/**
 * Command-line arguments of the `tack` CLI, parsed with `node:util` `parseArgs`.
 *
 * @module
 */

import { parseArgs } from "node:util";

/** What the command line asked for. */
export interface CliArgs {
  /** `"run"` (one-shot or interactive), `"help"`, `"version"`, `"inspect"`, `"trace"` or `"trust"`. */
  command: "run" | "help" | "version" | "inspect" | "trace" | "trust";
  /** The prompt (positional words joined by spaces); absent for an interactive session. */
  prompt?: string;
  /** `--model`. */
  model?: string;
  /** `--base-url`. */
  baseURL?: string;
  /** `--api`: `"chat"` (Chat Completions, the default) or `"responses"`. */
  api?: "chat" | "responses";
  /** `--config`: a config file that must exist. */
  config?: string;
  /** `--plugin`, repeatable, in order. */
  plugins: string[];
  /** `--yes`: allow every tool call without asking. */
  yes: boolean;
  /** `--json`: one JSON event a line on stdout. */
  json: boolean;
  /** `--session`: the session file to write (and continue, if it exists). */
  session?: string;
  /** `--resume`: continue the most recent session (or the `--session` file). */
  resume: boolean;
  /** For `plugins inspect <specifier>`: the specifier. */
  inspect?: string;
  /** `--trace <file.html>`: write the run's timeline page there. */
  trace?: string;
  /** For `trace <session.jsonl>`: the session file. */
  traceSession?: string;
}

/** The outcome of {@linkcode parseCliArgs}: the arguments, or a usage error to print. */
export type ParsedCliArgs =
  | { kind: "ok"; args: CliArgs }
  | { kind: "error"; message: string };

/** The text `--help` prints. */
export const HELP_TEXT: string = `tack: a Deno-native agent in your terminal

Usage:
  tack [options] "<prompt>"          answer once, then exit
  tack [options]                     open an interactive session (/exit to leave)
  tack plugins inspect <specifier>   show a plugin's tools, effects and permissions
  tack trace <session.jsonl>         write the session's timeline page (an HTML file)
  tack trust                         show what ./tack.jsonc does, and trust it as it is now

Options:
  --model <name>        model id (default: config "model", then $TACK_MODEL, then gpt-4o-mini)
  --base-url <url>      OpenAI-compatible endpoint (default: config "baseURL", then $OPENAI_BASE_URL)
  --api <chat|responses>  the endpoint's API: Chat Completions (default) or Responses
  --config <file>       config file (default: ./tack.jsonc when it exists, once trusted:
                        tack asks on a terminal, and refuses without one until "tack trust")
  --plugin <specifier>  load a plugin: ./file.ts, jsr:@scope/name, npm:name, or a built-in
                        name (fs, shell, http, mcp, rules, read_only, audit, budget);
                        repeatable (confirm is always added, unless --yes)
  --yes                 allow every tool call without asking (for CI)
  --json                print one JSON event a line on stdout, nothing else
  --session <file>      write the session to this JSONL file (continued if it exists)
  --resume              continue the most recent session in .tack/sessions/
  --trace <file.html>   write the run's timeline page there (with trace: where to write)
  -h, --help            show this help
  -V, --version         show the version

Environment:
  OPENAI_API_KEY        key for api.openai.com (or your provider)
  OPENAI_BASE_URL       OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 for Ollama
  OTEL_DENO=true        send OpenTelemetry spans of each run to $OTEL_EXPORTER_OTLP_ENDPOINT

Examples:
  tack "what files are here?"
  tack --model gpt-4.1 "summarise README.md"
  tack --base-url http://127.0.0.1:11434/v1 --model llama3.2 "hello"
  tack --api responses "what changed since yesterday?"
  tack --json --yes "run the tests" > events.jsonl
  tack --resume "and now fix the failing one"
  tack --plugin ./my_plugin.ts
  tack plugins inspect ./my_plugin.ts
(In the Tack repository, "deno task install" installs tack, and "deno task agent" runs it
on the repository itself.)

Exit codes: 0 answered, 1 the run ended with an error, 2 usage or config error (or
./tack.jsonc not trusted), 130 aborted with Ctrl-C, 141 stdout closed by its reader.
`;

const OPTIONS = {
  model: { type: "string" },
  "base-url": { type: "string" },
  api: { type: "string" },
  config: { type: "string" },
  plugin: { type: "string", multiple: true },
  yes: { type: "boolean", short: "y" },
  json: { type: "boolean" },
  session: { type: "string" },
  resume: { type: "boolean" },
  trace: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

function usageError(message: string): ParsedCliArgs {
  return { kind: "error", message: `${message}\nRun "tack --help" for usage.` };
}

function nonEmpty(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === "") throw new Error(`--${name} needs a value`);
  return value;
}

/**
 * Parses the CLI's arguments. Never throws for bad input: a usage error comes back as
 * `{ kind: "error", message }`, ready to print.
 *
 * @param argv The arguments after the program name (`Deno.args`).
 * @returns The parsed arguments, or a usage error.
 *
 * @example Parsing a one-shot prompt
 * ```ts
 * import { parseCliArgs } from "./args.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const parsed = parseCliArgs(["--json", "--plugin", "./a.ts", "what", "is", "here?"]);
 * equal(parsed.kind, "ok");
 * if (parsed.kind === "ok") {
 *   equal(parsed.args.prompt, "what is here?");
 *   deepEqual(parsed.args.plugins, ["./a.ts"]);
 * }
 * equal(parseCliArgs(["--nope"]).kind, "error");
 * // After `--`, a word that names a subcommand is the prompt.
 * const word = parseCliArgs(["--", "trust"]);
 * equal(word.kind === "ok" && word.args.command, "run");
 * equal(word.kind === "ok" && word.args.prompt, "trust");
 * ```
 */
export function parseCliArgs(argv: readonly string[]): ParsedCliArgs {
  let values;
  let positionals: string[];
  let terminated: boolean;
  try {
    let tokens;
    ({ values, positionals, tokens } = parseArgs({
      args: [...argv],
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
      tokens: true,
    }));
    // After `--`, every word is the prompt: a script's `tack -- "$PROMPT"` never runs a
    // subcommand (a prompt of "trust" would trust the folder's tack.jsonc).
    terminated = tokens.some((token) => token.kind === "option-terminator");
  } catch (error) {
    return usageError((error as Error).message.replace(/\. To specify a positional.*$/s, ""));
  }
  let args: CliArgs;
  try {
    args = {
      command: values.help ? "help" : values.version ? "version" : "run",
      model: nonEmpty("model", values.model),
      baseURL: nonEmpty("base-url", values["base-url"]),
      config: nonEmpty("config", values.config),
      plugins: (values.plugin ?? []).map((p) => nonEmpty("plugin", p) as string),
      yes: values.yes ?? false,
      json: values.json ?? false,
      session: nonEmpty("session", values.session),
      resume: values.resume ?? false,
      trace: nonEmpty("trace", values.trace),
    };
  } catch (error) {
    return usageError((error as Error).message);
  }
  if (values.api !== undefined) {
    if (values.api !== "chat" && values.api !== "responses") {
      return usageError(`--api must be "chat" or "responses", got ${JSON.stringify(values.api)}`);
    }
    args.api = values.api;
  }
  if (args.command !== "run") return { kind: "ok", args };
  if (terminated) return withPrompt(args, positionals);
  if (positionals[0] === "plugins" && positionals[1] === "inspect") {
    if (positionals.length !== 3) {
      return usageError("Usage: tack plugins inspect <specifier>");
    }
    return { kind: "ok", args: { ...args, command: "inspect", inspect: positionals[2] } };
  }
  if (positionals[0] === "trust" && positionals.length === 1) {
    if (args.config !== undefined) {
      return usageError("A --config file needs no trust: tack trust is for ./tack.jsonc");
    }
    return { kind: "ok", args: { ...args, command: "trust" } };
  }
  // `trace <file>.jsonl` only: a prompt that starts with the word "trace" stays a prompt.
  if (positionals[0] === "trace" && positionals.length === 2 && positionals[1].endsWith(".jsonl")) {
    return { kind: "ok", args: { ...args, command: "trace", traceSession: positionals[1] } };
  }
  return withPrompt(args, positionals);
}

/** The run, with the words as its prompt (none: an interactive session). */
function withPrompt(args: CliArgs, positionals: readonly string[]): ParsedCliArgs {
  const prompt = positionals.join(" ").trim();
  if (positionals.length > 0 && prompt === "") return usageError("The prompt is empty");
  if (prompt !== "") args.prompt = prompt;
  return { kind: "ok", args };
}
