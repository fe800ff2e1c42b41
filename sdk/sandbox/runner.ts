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

async function* lines(): AsyncIterable<HostMessage> {
  let buffer = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line !== "") yield JSON.parse(line) as HostMessage;
      newline = buffer.indexOf("\n");
    }
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
