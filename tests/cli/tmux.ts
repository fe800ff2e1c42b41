/**
 * A real terminal for tests: a tmux session on its own server socket in a temporary folder
 * (never the user's server),
 * keys sent as a person types them, the screen read back.
 *
 * @module
 */

import { dirname, join } from "node:path";

/** Whether tmux is installed (`.ci/run` installs it). */
export const HAS_TMUX: boolean = (() => {
  try {
    return new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
})();

/** Whether a missing tmux must fail the terminal tests instead of skipping them (`.ci/run` sets it). */
const REQUIRE_TMUX: boolean = Deno.env.get("TACK_REQUIRE_TMUX") === "1";

const skipped: string[] = [];

/**
 * The `ignore` value of a test that needs tmux: skipped without it, with one loud line at
 * the end naming the tests and how to install it; run (and so failing) when
 * `TACK_REQUIRE_TMUX=1`, so CI never passes by skipping.
 *
 * @param name The test's name, for the skip line.
 * @returns `true` to skip.
 */
export function skipWithoutTmux(name: string): boolean {
  if (HAS_TMUX || REQUIRE_TMUX) return false;
  if (skipped.length === 0) {
    globalThis.addEventListener("unload", () => {
      console.error(
        `\n*** tmux is not installed: the CLI's terminal tests are SKIPPED (apt-get install tmux; ` +
          `TACK_REQUIRE_TMUX=1 makes this a failure): ${
            skipped.map((n) => JSON.stringify(n)).join(", ")
          }\n`,
      );
    });
  }
  skipped.push(name);
  return true;
}

function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A program running in a tmux pane. */
export class Terminal implements AsyncDisposable {
  #socket: string;

  private constructor(socket: string) {
    this.#socket = socket;
  }

  /**
   * Starts `argv` in a new pane of the given size; when it ends, the pane shows
   * `EXIT=<code>` and stays open.
   */
  static async start(
    argv: string[],
    options: { cwd: string; env: Record<string, string>; columns?: number; rows?: number },
  ): Promise<Terminal> {
    const terminal = new Terminal(join(await Deno.makeTempDir({ prefix: "tack_tmux_" }), "socket"));
    const env = Object.entries(options.env).map(([k, v]) => `${k}=${quote(v)}`).join(" ");
    const line = `env -i ${env} ${argv.map(quote).join(" ")}; echo EXIT=$?; sleep 600`;
    await terminal.#tmux(
      "new-session",
      "-d",
      "-x",
      String(options.columns ?? 120),
      "-y",
      String(options.rows ?? 50),
      "-c",
      options.cwd,
      line,
    );
    return terminal;
  }

  async #tmux(...args: string[]): Promise<string> {
    const output = await new Deno.Command("tmux", {
      args: ["-S", this.#socket, "-f", "/dev/null", ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      throw new Error(`Cannot run tmux ${args[0]}: ${new TextDecoder().decode(output.stderr)}`);
    }
    return new TextDecoder().decode(output.stdout);
  }

  /** Sends keys in one write (tmux key names: `Enter`, `Up`, `C-c`, or text with `-l`). */
  keys(...keys: string[]): Promise<string> {
    return this.#tmux("send-keys", "-t", "0", ...keys);
  }

  /** Types text literally. */
  type(text: string): Promise<string> {
    return this.#tmux("send-keys", "-t", "0", "-l", text);
  }

  /** Pastes text in one write, as a terminal does. */
  async paste(text: string): Promise<void> {
    const file = await Deno.makeTempFile();
    try {
      await Deno.writeTextFile(file, text);
      await this.#tmux("load-buffer", file);
      await this.#tmux("paste-buffer", "-d", "-t", "0");
    } finally {
      await Deno.remove(file);
    }
  }

  /** The screen and its scrollback, trailing blank lines dropped. */
  async screen(): Promise<string> {
    return (await this.#tmux("capture-pane", "-p", "-N", "-t", "0", "-S", "-500")).trimEnd();
  }

  /** What a person sees now: the pane's rows only, without the scrollback. */
  async visibleScreen(): Promise<string> {
    return (await this.#tmux("capture-pane", "-p", "-N", "-t", "0")).trimEnd();
  }

  /** Waits until the screen matches; throws with the screen after `ms`. */
  async waitFor(pattern: RegExp, ms = 30_000): Promise<string> {
    const end = Date.now() + ms;
    while (true) {
      const screen = await this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > end) throw new Error(`Timed out waiting for ${pattern}; screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Ends the tmux server (and the program). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#tmux("kill-server").catch(() => {});
    await Deno.remove(dirname(this.#socket), { recursive: true }).catch(() => {});
  }
}

const REPO_ROOT = new URL("../..", import.meta.url).pathname;

/**
 * The command line of `tack` as `deno task agent` runs it (the `cli` permission set, no
 * prompts), followed by `args`.
 *
 * @param args The CLI's own arguments.
 * @returns The whole command, Deno first.
 */
export function tackUnderCliSet(args: readonly string[] = []): string[] {
  return [
    Deno.execPath(),
    "run",
    "-P=cli",
    "--config",
    join(REPO_ROOT, "deno.json"),
    "--no-prompt",
    join(REPO_ROOT, "cli", "main.ts"),
    ...args,
  ];
}
