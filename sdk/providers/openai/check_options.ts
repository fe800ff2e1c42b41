/**
 * What the OpenAI provider checks and defines without loading the `openai` client, so
 * {@linkcode lazyOpenai} can fail early and the plugin API stays light.
 *
 * @module
 */

/** The official endpoint, used when neither `baseURL` nor `OPENAI_BASE_URL` is set. */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/**
 * The key sent to a server given by base URL when no key is set: local servers (Ollama,
 * vLLM, LM Studio) ignore it, and the client needs one.
 */
export const PLACEHOLDER_API_KEY = "tack-no-key";

/**
 * Whether `value` is an absolute http: or https: URL (`localhost:11434` is not).
 *
 * @param value The URL text.
 * @returns Whether it is an http(s) URL.
 *
 * @example A host without a scheme is not a URL
 * ```ts
 * import { isHttpURL } from "./check_options.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(isHttpURL("http://127.0.0.1:11434/v1"), true);
 * equal(isHttpURL("localhost:11434"), false);
 * ```
 */
export function isHttpURL(value: string): boolean {
  const url = URL.parse(value);
  return url !== null && (url.protocol === "http:" || url.protocol === "https:");
}

/**
 * Checks what `openai()` can check before its first turn: a model name, an http(s) base URL,
 * response limits that are positive numbers.
 *
 * @param options The provider's `model`, `baseURL` and response limits (`maxResponseChars`,
 *   `maxToolCalls`, `maxResponseBytes`, `maxEventBytes`).
 * @throws {TypeError} `Cannot create the openai model: …` when either is wrong.
 *
 * @example An empty model name
 * ```ts
 * import { checkOpenAIOptions } from "./check_options.ts";
 * import { throws } from "node:assert/strict";
 *
 * throws(() => checkOpenAIOptions({ model: "" }), /`model` is empty/);
 * ```
 */
export function checkOpenAIOptions(
  options: {
    model: string;
    baseURL?: string;
    maxResponseChars?: number;
    maxToolCalls?: number;
    maxResponseBytes?: number;
    maxEventBytes?: number;
  },
): void {
  if (!options.model) throw new TypeError("Cannot create the openai model: `model` is empty");
  if (options.baseURL !== undefined && !isHttpURL(options.baseURL)) {
    throw new TypeError(
      `Cannot create the openai model: baseURL "${options.baseURL}" is not an http(s) URL`,
    );
  }
  for (
    const name of ["maxResponseChars", "maxToolCalls", "maxResponseBytes", "maxEventBytes"] as const
  ) {
    const value = options[name];
    if (value !== undefined && !(value > 0)) {
      throw new TypeError(
        `Cannot create the openai model: ${name} is ${value}; it must be a positive number`,
      );
    }
  }
}
