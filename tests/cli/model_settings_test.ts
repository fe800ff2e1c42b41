import { deepEqual } from "node:assert/strict";
import { DEFAULT_MODEL, NO_MODEL_MESSAGE, resolveModelSettings } from "../../cli/model_settings.ts";

const envOf = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("flags win over the config, which wins over the environment", () => {
  const env = envOf({
    TACK_MODEL: "env-model",
    OPENAI_BASE_URL: "http://env:1/v1",
    OPENAI_API_KEY: "k",
  });
  deepEqual(
    resolveModelSettings({
      flags: { model: "flag-model", baseURL: "http://flag:1/v1" },
      config: { model: "config-model", baseURL: "http://config:1/v1" },
      env,
    }),
    { kind: "ok", settings: { model: "flag-model", baseURL: "http://flag:1/v1", apiKey: "k" } },
  );
  deepEqual(
    resolveModelSettings({
      flags: {},
      config: { model: "config-model", baseURL: "http://config:1/v1" },
      env,
    }),
    { kind: "ok", settings: { model: "config-model", baseURL: "http://config:1/v1", apiKey: "k" } },
  );
  deepEqual(
    resolveModelSettings({ flags: {}, config: {}, env }),
    { kind: "ok", settings: { model: "env-model", baseURL: "http://env:1/v1", apiKey: "k" } },
  );
});

Deno.test("a key alone uses OpenAI and the default model", () => {
  deepEqual(
    resolveModelSettings({ flags: {}, config: {}, env: envOf({ OPENAI_API_KEY: "sk-1" }) }),
    { kind: "ok", settings: { model: DEFAULT_MODEL, baseURL: undefined, apiKey: "sk-1" } },
  );
});

Deno.test("a base URL alone is enough (local servers need no key)", () => {
  deepEqual(
    resolveModelSettings({
      flags: { baseURL: "http://127.0.0.1:11434/v1" },
      config: {},
      env: envOf({}),
    }),
    {
      kind: "ok",
      settings: { model: DEFAULT_MODEL, baseURL: "http://127.0.0.1:11434/v1", apiKey: undefined },
    },
  );
});

Deno.test("neither a key nor a base URL (empty counts as unset) says how to set one", () => {
  const result = resolveModelSettings({
    flags: {},
    config: {},
    env: envOf({ OPENAI_API_KEY: "  ", OPENAI_BASE_URL: "" }),
  });
  deepEqual(result, { kind: "error", message: NO_MODEL_MESSAGE });
  for (const needle of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "--base-url", "deno task demo"]) {
    deepEqual(NO_MODEL_MESSAGE.includes(needle), true, needle);
  }
});

Deno.test("a base URL that is not http(s) names where it came from", () => {
  deepEqual(
    resolveModelSettings({ flags: { baseURL: "localhost:11434" }, config: {}, env: envOf({}) }),
    {
      kind: "error",
      message: '--base-url must be an http:// or https:// URL, got "localhost:11434"',
    },
  );
  deepEqual(
    resolveModelSettings({
      flags: {},
      config: { baseURL: "ftp://x", path: "tack.jsonc" },
      env: envOf({}),
    }),
    {
      kind: "error",
      message: '"baseURL" in tack.jsonc must be an http:// or https:// URL, got "ftp://x"',
    },
  );
  deepEqual(
    resolveModelSettings({ flags: {}, config: {}, env: envOf({ OPENAI_BASE_URL: "nope" }) }),
    {
      kind: "error",
      message: 'OPENAI_BASE_URL must be an http:// or https:// URL, got "nope"',
    },
  );
});
