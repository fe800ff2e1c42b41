/**
 * Which model the CLI talks to, from flags, the config file and the environment (in that
 * order), and the message that says how to set one up when nothing is set.
 *
 * @module
 */

/** The model a run uses. */
export interface ModelSettings {
  /** The model id. */
  model: string;
  /** The endpoint; absent means api.openai.com. */
  baseURL?: string;
  /** From `OPENAI_API_KEY` only. */
  apiKey?: string;
}

/** The model used when neither `--model`, the config nor `$TACK_MODEL` names one. */
export const DEFAULT_MODEL: string = "gpt-4o-mini";

/** What the CLI prints (and exits 2 with) when there is neither a key nor a base URL. */
export const NO_MODEL_MESSAGE: string = `No model is configured: set an API key or a base URL.

  For OpenAI:
    export OPENAI_API_KEY=sk-...
  For a local OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio):
    export OPENAI_BASE_URL=http://127.0.0.1:11434/v1
    (or pass --base-url, or set "baseURL" in tack.jsonc)

To try Tack without a model or a key, run "deno task demo" in the Tack repository.`;

/** The outcome of {@linkcode resolveModelSettings}. */
export type ModelSettingsResult =
  | { kind: "ok"; settings: ModelSettings }
  | { kind: "error"; message: string };

/** Where settings may come from, most specific first. */
export interface ModelSettingsSources {
  /** `--model` and `--base-url`. */
  flags: { model?: string; baseURL?: string };
  /** The config file's `model` and `baseURL`, and its path for error texts. */
  config: { model?: string; baseURL?: string; path?: string };
  /** Reads an environment variable (`undefined` when unset or not permitted). */
  env: (name: string) => string | undefined;
}

/**
 * Resolves the model, base URL and key. Flags win over the config file, which wins over
 * the environment (`TACK_MODEL`, `OPENAI_BASE_URL`; the key only ever comes from
 * `OPENAI_API_KEY`, so it stays out of shell history and config files).
 *
 * @param sources Flags, config and an environment reader.
 * @returns The settings, or an error to print (exit code 2).
 *
 * @example No key and no base URL
 * ```ts
 * import { NO_MODEL_MESSAGE, resolveModelSettings } from "./model_settings.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(
 *   resolveModelSettings({ flags: {}, config: {}, env: () => undefined }),
 *   { kind: "error", message: NO_MODEL_MESSAGE },
 * );
 * ```
 */
export function resolveModelSettings(sources: ModelSettingsSources): ModelSettingsResult {
  const { flags, config, env } = sources;
  const nonEmpty = (value: string | undefined) => value?.trim() ? value.trim() : undefined;
  const model = flags.model ?? config.model ?? nonEmpty(env("TACK_MODEL")) ?? DEFAULT_MODEL;
  const baseURL = flags.baseURL ?? config.baseURL ?? nonEmpty(env("OPENAI_BASE_URL"));
  const apiKey = nonEmpty(env("OPENAI_API_KEY"));
  if (!apiKey && !baseURL) return { kind: "error", message: NO_MODEL_MESSAGE };
  if (baseURL !== undefined) {
    const from = flags.baseURL !== undefined
      ? "--base-url"
      : config.baseURL !== undefined
      ? `"baseURL" in ${config.path ?? "the config"}`
      : "OPENAI_BASE_URL";
    let url: URL | undefined;
    try {
      url = new URL(baseURL);
    } catch { /* reported below */ }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      return {
        kind: "error",
        message: `${from} must be an http:// or https:// URL, got "${baseURL}"`,
      };
    }
  }
  return { kind: "ok", settings: { model, baseURL, apiKey } };
}
