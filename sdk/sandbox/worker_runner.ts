/**
 * The child side of a worker sandbox: the host's entry module imports this runner and
 * the plugin module, then calls {@linkcode serveWorker}. The first message is the
 * {@linkcode RunnerConfig}, then the same protocol as the process sandbox, over
 * `postMessage`.
 *
 * @module
 */

import type { HostMessage } from "./protocol.ts";
import { guardHostProcess } from "./worker_host_guards.ts";
import { type PluginModule, type RunnerConfig, servePlugin } from "./serve_plugin.ts";

// deno-lint-ignore no-explicit-any
const scope = globalThis as any;

const none = (): void => {};

// A plugin's `Deno.exit()` or `close()` ends the worker without a word to the host, whose
// calls would wait for their timeout: tell it first. Set before the plugin's module runs
// (the entry imports this runner first), with `postMessage` taken before it can replace it.
const post: (message: unknown) => void = scope.postMessage.bind(scope);
addEventListener("unload", () => post({ type: "exited", code: Deno.exitCode }));
const close: () => void = scope.close;
scope.close = () => {
  post({ type: "exited" });
  close.call(scope);
};

// What the plugin could change of the host's process (its signal listeners, its working
// directory, its life): guarded before the plugin's module runs.
guardHostProcess();

/**
 * Serves the plugin over `postMessage` for as long as the worker lives.
 *
 * @param module The plugin module's namespace.
 * @returns When serving ends (it does not while the worker lives).
 *
 * @example The entry module the host writes
 * ```ts ignore
 * import { serveWorker } from "file:///…/sdk/sandbox/worker_runner.ts";
 * import * as plugin from "file:///…/weather.ts";
 * await serveWorker(plugin);
 * ```
 */
export async function serveWorker(module: PluginModule): Promise<void> {
  let deliver: (message: HostMessage) => void = none;
  const early: HostMessage[] = [];
  let start: (config: RunnerConfig) => void = () => {};
  const configured = new Promise<RunnerConfig>((resolve) => (start = resolve));
  let config: RunnerConfig | undefined;
  scope.onmessage = (event: MessageEvent) => {
    if (config === undefined) {
      config = event.data as RunnerConfig;
      start(config);
    } else if (deliver === none) early.push(event.data as HostMessage);
    else deliver(event.data as HostMessage);
  };
  await servePlugin(await configured, module, {
    send: post,
    // Serving lasts as long as the worker: the host terminates it.
    listen(onMessage) {
      for (const message of early.splice(0)) onMessage(message);
      deliver = onMessage;
      return new Promise<void>(() => {});
    },
  });
}
