/**
 * A plugin loaded into this process (no sandbox), bounded in time.
 *
 * @module
 */

import type { Plugin } from "../define_plugin.ts";
import { rejectAfter } from "../sleep.ts";
import { DEFAULT_START_TIMEOUT_MS } from "./sandbox_connection.ts";

/**
 * Imports a plugin module into this process and returns its plugin (calling a default export
 * that is a factory with `options`). A top-level await or a factory that never settles fails
 * after `timeoutMs` instead of holding the host.
 *
 * @param url The module's URL.
 * @param options What a factory is called with.
 * @param timeoutMs How long the import and the factory may take together.
 * @returns The plugin.
 * @throws {Error} When it does not finish in time, or its default export is not a plugin nor a
 * factory of one.
 *
 * @example A factory in a data URL
 * ```ts
 * import { importInProcess } from "./import_in_process.ts";
 * import { equal } from "node:assert/strict";
 *
 * const url = "data:text/javascript,export default (o) => ({ name: 'hi-' + o.who })";
 * equal((await importInProcess(url, { who: "you" })).name, "hi-you");
 * ```
 */
export async function importInProcess(
  url: string,
  options: unknown,
  timeoutMs = DEFAULT_START_TIMEOUT_MS,
): Promise<Plugin> {
  // A top-level await or a factory that never settles would hold the host forever.
  const loading = (async () => {
    const module = await import(url);
    const exported = module.default;
    return typeof exported === "function" ? await exported(options) : exported;
  })();
  const exported = await rejectAfter(
    loading,
    timeoutMs,
    () =>
      new Error(
        `Cannot load plugin ${
          JSON.stringify(url)
        }: it did not finish loading within ${timeoutMs} ms ` +
          "(a top-level await or a factory that never settles? if it is only slow, raise startTimeoutMs)",
      ),
  );
  if (typeof exported?.name !== "string" || exported.name === "") {
    throw new TypeError(
      `Cannot load plugin ${
        JSON.stringify(url)
      }: its default export is not a plugin (an object with a name) nor a factory of one`,
    );
  }
  return exported as Plugin;
}
