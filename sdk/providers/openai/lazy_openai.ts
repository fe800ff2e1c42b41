/**
 * The OpenAI provider as `@tack/agent` exports it: the same {@linkcode openai} model,
 * whose `openai` client (and the rest of the provider) is imported at the first turn, so
 * a plugin or script that imports `@tack/agent` for `defineTool` never loads it.
 *
 * @module
 */

import type { Model, StreamFn } from "../../../core/model.ts";
import { checkOpenAIOptions } from "./check_options.ts";
import type { OpenAIOptions } from "./openai.ts";

/**
 * A model on an OpenAI-compatible API (see {@linkcode openai} for the options and what it
 * does), whose client is loaded on the first turn. A client that cannot be loaded ends
 * that turn with `stopReason: "error"` and the reason.
 *
 * @param options The model, endpoint, key and knobs.
 * @returns The model, for `createAgent`.
 * @throws {TypeError} When `model` is empty or `baseURL` is not an http(s) URL.
 *
 * @example Nothing is loaded until the first turn
 * ```ts
 * import { lazyOpenai } from "./lazy_openai.ts";
 * import { equal } from "node:assert/strict";
 *
 * const model = lazyOpenai({ model: "llama3.2", baseURL: "http://127.0.0.1:11434/v1" });
 * equal(model.id, "llama3.2");
 * ```
 */
export function lazyOpenai(options: OpenAIOptions): Model {
  checkOpenAIOptions(options);
  let loaded: Promise<Model> | undefined;
  const stream: StreamFn = async (request, streamOptions) => {
    loaded ??= import("./openai.ts").then((provider) => provider.openai(options));
    return (await loaded).stream(request, streamOptions);
  };
  return { provider: "openai", id: options.model, stream };
}
