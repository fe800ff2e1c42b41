/**
 * The `tack` CLI: `deno task agent "what files are here?"` answers once;
 * `deno task agent` opens an interactive session. See `tack --help`.
 *
 * @module
 */

import { permittedEnv } from "../sdk/permitted_env.ts";
import denoJson from "../deno.json" with { type: "json" };
import type { AgentEvent } from "../core/agent_event.ts";
import type { Message } from "../core/messages.ts";
import { openai } from "../sdk/providers/openai/mod.ts";
import { npmBundlesBuilt } from "../sdk/sandbox/mod.ts";
import { printable } from "../sdk/sandbox/strip_control_sequences.ts";
import { HELP_TEXT, parseCliArgs } from "./args.ts";
import { createTerminalAsk } from "./ask.ts";
import { buildAgent, fsRootOf, pluginEntries } from "./build_agent.ts";
import { loadConfig } from "./config.ts";
import { LineReader, runInteractive } from "./interactive.ts";
import { LineEditor } from "./line_editor.ts";
import { createInterruptHandler } from "./interrupt.ts";
import { jsonOutput } from "./json_output.ts";
import { createPluginLoader } from "./load_plugins.ts";
import { resolveModelSettings } from "./model_settings.ts";
import { inspectCommand } from "./plugins_command.ts";
import { daxSpinner, Renderer } from "./render.ts";
import { writeAllSync } from "../sdk/write_all_sync.ts";
import { DEFAULT_SESSION_DIR, latestSession, newSessionPath, openSession } from "./session.ts";
import { traceCommand } from "./trace_command.ts";
import { trustCommand } from "./trust_command.ts";
import { askTrust } from "./trust_question.ts";
import { checkWorkspaceTrust } from "./workspace_trust.ts";
import { sessionLinesOf } from "./trace_record.ts";
import { recordTimeline } from "./trace_recorder.ts";
import { relative, resolve } from "node:path";

/** The CLI's version (the package's). */
const VERSION: string = denoJson.version;

/** The exit code of a run that was aborted with Ctrl-C. */
const EXIT_ABORTED = 130;

/** The exit code when stdout was closed by its reader (as a shell's SIGPIPE). */
const EXIT_BROKEN_PIPE = 141;

/** Signals that end the CLI after its run is aborted; it exits with 128 + the number. */
const TERMINATING_SIGNALS = ["SIGTERM", "SIGHUP"] as const;
const SIGNAL_NUMBERS: Record<(typeof TERMINATING_SIGNALS)[number], number> = {
  SIGTERM: 15,
  SIGHUP: 1,
};

/** How long an aborted run may take to end before a terminating signal exits anyway. */
const TERMINATE_GRACE_MS = 3000;

/** A variable the CLI may not read (it would be prompted for) counts as unset. */
const env = permittedEnv;

/**
 * The exit code for what a run added: 0 for an answer, 1 when it ended with an error,
 * 130 when it was aborted.
 *
 * @param added The messages the run added.
 * @returns The exit code.
 *
 * @example A run that added nothing
 * ```ts
 * import { exitCodeOf } from "./main.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(exitCodeOf([]), 0);
 * ```
 */
export function exitCodeOf(added: readonly Message[]): number {
  for (let i = added.length - 1; i >= 0; i--) {
    const message = added[i];
    if (message.role !== "assistant") continue;
    if (message.stopReason === "error") return 1;
    if (message.stopReason === "aborted") return EXIT_ABORTED;
    return 0;
  }
  return 0;
}

/**
 * Runs the CLI to completion.
 *
 * @param argv The arguments (`Deno.args`).
 * @returns The exit code: 0 answered, 1 the run ended with an error, 2 usage or config
 * error, 130 aborted.
 *
 * @example Printing the version
 * ```ts
 * import { main } from "./main.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(await main(["--version"]), 0);
 * ```
 */
export async function main(argv: readonly string[]): Promise<number> {
  const out = (text: string) => {
    try {
      writeAllSync(Deno.stdout, text);
    } catch (error) {
      // The reader went away (`tack … | head -1`): stop like a shell tool does.
      if (error instanceof Deno.errors.BrokenPipe) Deno.exit(EXIT_BROKEN_PIPE);
      throw error;
    }
  };
  const err = (text: string) => writeAllSync(Deno.stderr, text);
  // An error may quote what the folder chose (a session file's name, a config value, a
  // plugin's message): none of its escapes reach the terminal.
  const fail = (message: string) => err(printable(message) + "\n");
  const parsed = parseCliArgs(argv);
  if (parsed.kind === "error") {
    fail(parsed.message);
    return 2;
  }
  const args = parsed.args;
  if (args.command === "help") {
    out(HELP_TEXT);
    return 0;
  }
  if (args.command === "version") {
    out(`tack ${VERSION}\n`);
    return 0;
  }
  const cwd = Deno.cwd();
  if (args.command === "inspect") {
    return await inspectCommand(args.inspect!, args.json, { out, err }, cwd);
  }
  if (args.command === "trace") {
    const target = args.trace ? resolve(cwd, args.trace) : undefined;
    return await traceCommand(resolve(cwd, args.traceSession!), target, { out, err });
  }

  if (args.command === "trust") return await trustCommand(cwd, { out, err }, env);

  const loaded = await loadConfig(args.config ?? "tack.jsonc", args.config !== undefined);
  if (loaded.kind === "error") {
    fail(loaded.message);
    return 2;
  }
  const config = loaded.config;
  const terminal = Deno.stdin.isTerminal() && Deno.stderr.isTerminal();
  // The folder's own tack.jsonc is code from whoever wrote the folder: obeyed once trusted.
  if (args.config === undefined && loaded.bytes) {
    const gate = await checkWorkspaceTrust({
      file: resolve(cwd, "tack.jsonc"),
      bytes: loaded.bytes,
      config,
      env,
      write: err,
      ask: terminal && !args.json ? () => askTrust(err) : undefined,
      screen: () => {
        try {
          return Deno.consoleSize();
        } catch {
          return undefined; // not a terminal
        }
      },
    });
    if (gate.kind === "refused") {
      fail(gate.message);
      return 2;
    }
  }
  const settings = resolveModelSettings({ flags: args, config, env });
  if (settings.kind === "error") {
    fail(settings.message);
    return 2;
  }

  const interactive = args.prompt === undefined;
  const color = Deno.stderr.isTerminal() && env("NO_COLOR") === undefined;
  const renderer = new Renderer({
    out,
    err,
    spinner: terminal && !args.json ? daxSpinner : undefined,
    color,
    status: terminal && !args.json, // for a person at the keyboard; pipes get the answer only
    price: config.price,
  });
  const promptText = color ? "\x1b[1m› \x1b[0m" : "› ";
  const show = (relativeTo: string) => relative(cwd, relativeTo) || relativeTo;

  const sessionDir = config.sessionDir ?? resolve(cwd, DEFAULT_SESSION_DIR);
  let sessionPath = args.session ? resolve(cwd, args.session) : undefined;
  if (args.resume && !sessionPath) {
    sessionPath = await latestSession(sessionDir);
    if (!sessionPath) {
      fail(`Cannot resume: there are no sessions in ${show(sessionDir)} yet (start one first)`);
      return 2;
    }
  }
  const session = await openSession(sessionPath ?? newSessionPath(sessionDir), cwd);
  if (session.kind === "error") {
    fail(session.message);
    return 2;
  }
  for (const warning of session.value.warnings) renderer.warn(warning);

  // Ctrl-C at a question (read as a key in raw mode, not as SIGINT) is a first press: it
  // aborts the run, and a second press within the window exits.
  let ctrlC: () => void = () => {};
  const effects = new Map<string, readonly string[]>();
  const ask = terminal
    ? createTerminalAsk({
      before: () => renderer.pause(),
      after: () => renderer.resume(),
      cancelled: () => ctrlC(),
      write: err,
      color,
      // The diff of a write reads the file where the fs plugin's root puts it.
      cwd: fsRootOf(pluginEntries(config, args.plugins, cwd)) ?? cwd,
      effectsOf: (toolName) => effects.get(toolName),
    })
    : undefined;
  const built = await buildAgent({
    model: openai({ ...settings.settings, ...(args.api ? { api: args.api } : {}) }),
    config,
    flagPlugins: args.plugins,
    yes: args.yes,
    ask,
    messages: session.value.messages,
    cwd,
    load: createPluginLoader((warning) => renderer.warn(warning)),
    // Deno's exporter is on: spans of each run (the module loads only then).
    trace: ["true", "1"].includes(env("OTEL_DENO") ?? "")
      ? (await import("../plugins/otel/mod.ts")).otelTracer()
      : undefined,
  });
  if (built.kind === "error") {
    fail(built.message);
    return 2;
  }
  const agent = built.agent;
  for (const plugin of built.plugins) {
    for (const tool of plugin.tools ?? []) effects.set(tool.name, tool.effects ?? []);
  }

  let appendFailed = false;
  agent.subscribe((event: AgentEvent) => {
    if (appendFailed) return;
    try {
      for (const line of sessionLinesOf(event)) session.value.append(line);
    } catch (error) {
      appendFailed = true;
      renderer.warn(
        `Cannot write to session ${show(session.value.path)}: ${(error as Error).message}; ` +
          "the rest of this session is not saved",
      );
    }
  });
  agent.subscribe(args.json ? jsonOutput(out) : renderer.listener);
  const timeline = args.trace ? recordTimeline(agent) : undefined;

  // Deno.exit runs `unload`, where what the tools left running is killed (spawnGroup).
  const exitNow = (code: number) => {
    try {
      if (Deno.stdin.isTerminal()) Deno.stdin.setRaw(false); // the line editor's raw mode
    } catch {
      // Not ours to restore.
    }
    // The cursor may be after the prompt: leave the line to the shell's next.
    if (interactive && Deno.stderr.isTerminal()) err("\n");
    Deno.exit(code);
  };
  const interrupt = createInterruptHandler({
    abort: () => {
      const running = agent.isRunning;
      agent.abort();
      return running;
    },
    exit: () => exitNow(EXIT_ABORTED),
    // At the prompt, the cursor is after "› ": put the notice on its own line.
    notice: (text) =>
      interactive && !agent.isRunning
        ? err(Deno.stdin.isTerminal() ? `\n${text}\n` : `\n${text}\n${promptText}`)
        : renderer.line(text),
  });
  Deno.addSignalListener("SIGINT", interrupt.handle);
  ctrlC = interrupt.handle;
  // SIGTERM (`timeout`, `docker stop`, a service manager) and SIGHUP (the terminal closed) end
  // the run as Ctrl-C does, so its tools are stopped and the session says so, then exit.
  const terminations = Deno.build.os === "windows" ? [] : TERMINATING_SIGNALS.map((signal) => ({
    signal,
    handle: () => {
      agent.abort();
      const ended = agent.waitForIdle();
      const late = new Promise((resolve) => setTimeout(resolve, TERMINATE_GRACE_MS));
      Promise.race([ended, late]).finally(() => exitNow(128 + SIGNAL_NUMBERS[signal]));
    },
  }));
  for (const { signal, handle } of terminations) Deno.addSignalListener(signal, handle);
  try {
    if (!interactive) return exitCodeOf(await agent.prompt(args.prompt!));
    if (session.value.messages.length > 0) {
      renderer.line(
        printable(
          `Resuming ${show(session.value.path)} (${session.value.messages.length} messages)`,
        ),
      );
    }
    renderer.line(
      // The model's name may come from the folder's tack.jsonc: no escapes reach the terminal.
      printable(
        `tack ${VERSION} · ${settings.settings.model} · session ${
          show(session.value.path)
        } · /help, /exit`,
      ),
    );
    // On a terminal: a line editor with history in .tack/history; else plain lines.
    const editor = Deno.stdin.isTerminal()
      ? new LineEditor({
        prompt: promptText,
        // Beside the sessions: .tack/history by default.
        historyFile: resolve(sessionDir, "..", "history"),
        historyRoot: cwd,
        onInterrupt: () => interrupt.handle(),
        warn: (text) => renderer.warn(text),
      })
      : undefined;
    const reader = new LineReader(Deno.stdin);
    await runInteractive({
      readLine: () => editor ? editor.readLine() : reader.readLine(),
      showPrompt: () => editor ? undefined : err(promptText),
      print: (text) => renderer.line(text),
      run: async (prompt) => {
        interrupt.reset();
        await agent.prompt(prompt);
      },
    });
    return 0;
  } finally {
    Deno.removeSignalListener("SIGINT", interrupt.handle);
    for (const { signal, handle } of terminations) Deno.removeSignalListener(signal, handle);
    if (timeline) {
      const path = resolve(cwd, args.trace!);
      await timeline.write(path, show(session.value.path)).then(
        () => renderer.line(`Timeline: ${show(path)}`),
        (error) => renderer.warn(`Cannot write ${show(path)}: ${(error as Error).message}`),
      );
    }
    try {
      await agent.dispose();
    } catch (error) {
      renderer.warn(`Cannot release every plugin cleanly: ${(error as Error).message}`);
    }
  }
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (error) {
    // A host bug or an environment problem (a folder we may not read): say so, briefly.
    // Its text may quote what a folder or a server chose: no escapes reach the terminal.
    writeAllSync(Deno.stderr, printable(`tack: ${(error as Error)?.stack ?? error}`) + "\n");
    code = 1;
  }
  // A sandboxed plugin's first start on this machine started its TypeBox bundle's build
  // (it does not wait for it): finish it, or the next run would start it again.
  await npmBundlesBuilt();
  Deno.exit(code);
}
