/**
 * The child side of a process sandbox. The host writes a tiny entry module that imports
 * this runner first (so `console` is redirected before the plugin's top level runs),
 * then the plugin module, statically, and calls {@linkcode serveStdio}. Speaks JSON
 * lines, the host's on stdin, its own on stdout; everything the plugin prints through
 * `console` goes to stderr, so stdout stays the protocol's.
 *
 * @module
 */

import type { HostMessage } from "./protocol.ts";
import { readLines } from "./read_lines.ts";
import { type PluginModule, type RunnerConfig, servePlugin } from "./serve_plugin.ts";

for (const key of ["log", "info", "debug", "dir", "table"] as const) {
  // deno-lint-ignore no-explicit-any
  (console as any)[key] = console.error;
}

const encoder = new TextEncoder();

function send(message: unknown): void {
  const bytes = encoder.encode(JSON.stringify(message) + "\n");
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}

// Messages are handed over one line at a time, in order; the host is trusted, so its
// lines are not bounded, only read in linear time.
async function* lines(): AsyncIterable<HostMessage> {
  const decoder = new TextDecoder();
  let queue: HostMessage[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  readLines(Deno.stdin.readable, (bytes) => {
    if (bytes.length === 0) return;
    queue.push(JSON.parse(decoder.decode(bytes)) as HostMessage);
    wake?.();
  }, { maxLineBytes: Infinity, long: "cut" }).finally(() => {
    ended = true;
    wake?.();
  });
  while (true) {
    if (queue.length > 0) {
      const batch = queue;
      queue = [];
      yield* batch;
    } else if (ended) return;
    else await new Promise<void>((resolve) => (wake = resolve));
  }
}

/**
 * Serves the plugin over stdin/stdout until the host closes stdin, then exits.
 *
 * @param module The plugin module's namespace.
 * @returns Never: the process exits.
 *
 * @example The entry module the host writes
 * ```ts ignore
 * import { serveStdio } from "file:///…/sdk/sandbox/runner.ts";
 * import * as plugin from "file:///…/weather.ts";
 * await serveStdio(plugin);
 * ```
 */
export async function serveStdio(module: PluginModule): Promise<never> {
  const config = JSON.parse(Deno.args[0]) as RunnerConfig;
  await servePlugin(config, module, { send, messages: lines() });
  Deno.exit(0);
}
