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
import { lineSplitter } from "./read_lines.ts";
import { type PluginModule, type RunnerConfig, servePlugin } from "./serve_plugin.ts";
import { writeAllSync } from "../write_all_sync.ts";

for (const key of ["log", "info", "debug", "dir", "table"] as const) {
  // deno-lint-ignore no-explicit-any
  (console as any)[key] = console.error;
}

const encoder = new TextEncoder();

function send(message: unknown): void {
  writeAllSync(Deno.stdout, encoder.encode(JSON.stringify(message) + "\n"));
}

// The host's lines, read straight from stdin into one buffer and split in bytes (linear in
// what arrives). The host is trusted: its lines are not bounded.
async function listen(onMessage: (message: HostMessage) => void): Promise<void> {
  const decoder = new TextDecoder();
  const split = lineSplitter((bytes) => {
    if (bytes.length > 0) onMessage(JSON.parse(decoder.decode(bytes)) as HostMessage);
  }, { maxLineBytes: Infinity, long: "cut" });
  const buffer = new Uint8Array(64 * 1024);
  while (true) {
    const read = await Deno.stdin.read(buffer);
    if (read === null) break;
    split.push(buffer.subarray(0, read));
  }
  split.end();
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
  await servePlugin(config, module, { send, listen });
  // One turn of the event loop first: Deno writes V8's code cache for the modules it compiled
  // in a later turn, and a seed's filling run, whose stdin ends at once, exited before it
  // (found by CI: under load, half of such runs cached no code, and the plugin got no seed).
  await new Promise((resolve) => setTimeout(resolve, 0));
  Deno.exit(0);
}
