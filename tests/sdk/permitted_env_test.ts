// A script run on a terminal with the permissions it needs, and no --allow-env, meets no
// permission prompt from Tack's provider, shell plugin or MCP stdio transport: each reads
// only the variables the host may already read. Where the host may read one, it is used.
import { equal, match, throws } from "node:assert/strict";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { permittedEnv, permittedEnvObject, withPermittedEnv } from "@tack/agent/sdk";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";
import { commandOnTerminal, onTerminal } from "../support/on_terminal.ts";
import { runScript } from "../support/run_script.ts";
import { fixtureServer } from "../plugins/mcp_fixture.ts";

const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** One turn of the provider against `baseURL`, printing its stop reason and text. */
function providerTurn(baseURL: string): string {
  return `import { openai } from "@tack/agent/sdk/providers/openai";
const model = openai({ model: "m", baseURL: ${JSON.stringify(baseURL)}, apiKey: "k" });
const stream = model.stream(
  { systemPrompt: "", tools: [], messages: [{ role: "user", content: "hi", timestamp: 0 }] },
  {},
);
const message = await stream.result();
console.log("turn", message.stopReason, message.content[0]?.text ?? message.errorMessage);
`;
}

Deno.test("openai: with --allow-net alone, a turn on a terminal shows no env prompt (the client's own reads included)", async () => {
  await using server = await startFakeOpenAI({ turns: [{ text: "ok" }] });
  const host = new URL(server.baseURL).host;
  const { prompt, output } = await onTerminal(providerTurn(server.baseURL), [
    `--config=${CONFIG}`,
    "--cached-only",
    `--allow-read=${ROOT}`,
    `--allow-net=${host}`,
  ]);
  equal(prompt, undefined, prompt);
  match(output, /turn stop ok/);
  equal(server.calls[0].headers.get("x-tack-custom"), null);
});

Deno.test("openai: an OPENAI_BASE_URL the host may not read is named in the error of the request that went to the default URL", async () => {
  await using server = await startFakeOpenAI({ turns: [{ text: "ok" }] });
  const script = `import { openai } from "@tack/agent/sdk/providers/openai";
const stream = openai({ model: "m" }).stream(
  { systemPrompt: "", tools: [], messages: [{ role: "user", content: "hi", timestamp: 0 }] },
  {},
);
const message = await stream.result();
console.log("turn", message.stopReason, message.content[0]?.text ?? message.errorMessage);
`;
  const run = (allowEnv: string) =>
    runScript(script, [
      `--config=${CONFIG}`,
      "--cached-only",
      "--no-prompt",
      `--allow-read=${ROOT}`,
      `--allow-net=${new URL(server.baseURL).host}`,
      `--allow-env=${allowEnv}`,
    ], { env: { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" } });
  // Before: "Cannot reach https://api.openai.com/v1: …" and nothing about the variable.
  const unread = await run("OPENAI_API_KEY");
  equal(
    unread.stdout.trim(),
    'turn error Cannot reach https://api.openai.com/v1: network access is not permitted (Requires net access to "api.openai.com:443", run again with the --allow-net flag); grant it with --allow-net=api.openai.com; OPENAI_BASE_URL was not read (this process may not): if it names your server, grant --allow-env=OPENAI_BASE_URL',
  );
  const read = await run("OPENAI_API_KEY,OPENAI_BASE_URL");
  equal(read.stdout.trim(), "turn stop ok");
});

Deno.test("openai: a variable the host may read is still read by the client (OPENAI_CUSTOM_HEADERS)", async () => {
  await using server = await startFakeOpenAI({ turns: [{ text: "ok" }] });
  const host = new URL(server.baseURL).host;
  const dir = await Deno.makeTempDir({ prefix: "tack-permitted-env-" });
  try {
    await Deno.writeTextFile(`${dir}/host.ts`, providerTurn(server.baseURL));
    const { prompt, output } = await commandOnTerminal([
      "env",
      "OPENAI_CUSTOM_HEADERS=X-Tack-Custom:yes",
      Deno.execPath(),
      "run",
      `--config=${CONFIG}`,
      "--cached-only",
      `--allow-read=${ROOT}`,
      `--allow-net=${host}`,
      "--allow-env=OPENAI_CUSTOM_HEADERS",
      `${dir}/host.ts`,
    ], ROOT);
    equal(prompt, undefined, prompt);
    match(output, /turn stop ok/);
    equal(server.calls[0].headers.get("x-tack-custom"), "yes");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("shell: a command run without --allow-env on a terminal shows no prompt and gets only the variables the host may read", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-permitted-env-" }));
  try {
    const source = `import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
import { shell } from "@tack/agent/plugins/shell";
const agent = createAgent({
  model: scriptedModel([[toolCall("bash", { command: "echo home=$HOME lang=$LANG" })], [text("done")]]),
  plugins: [shell({ root: ${JSON.stringify(dir)} })],
});
const messages = await agent.prompt("go");
const result = messages.find((message) => message.role === "toolResult");
console.log("result", result?.role === "toolResult" && result.content[0].type === "text" && result.content[0].text);
await agent.dispose();
`;
    await Deno.writeTextFile(`${dir}/host.ts`, source);
    const { prompt, output } = await commandOnTerminal([
      "env",
      "LANG=tack-lang",
      Deno.execPath(),
      "run",
      `--config=${CONFIG}`,
      "--cached-only",
      `--allow-read=${ROOT},${dir}`,
      `--allow-write=${dir}`,
      "--allow-run",
      "--allow-env=LANG",
      `${dir}/host.ts`,
    ], ROOT);
    equal(prompt, undefined, prompt);
    match(output, /result home= lang=tack-lang/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp: starting a stdio server without --allow-env on a terminal shows no prompt", async () => {
  const server = fixtureServer("stdio_server.ts");
  const { prompt, output } = await onTerminal(
    `import { StdioTransport } from "@tack/agent/plugins/mcp";
const transport = new StdioTransport(${JSON.stringify(server)});
await transport.start();
console.log("started", transport.pid !== undefined);
await transport.close();
`,
    [`--config=${CONFIG}`, "--cached-only", "--allow-read", "--allow-run"],
  );
  equal(prompt, undefined, prompt);
  match(output, /started true/);
});

Deno.test("withPermittedEnv: shows the variables this process may read, and puts process.env back after a throw", () => {
  const env = process.env;
  Deno.env.set("TACK_PERMITTED_ENV_TEST", "seen");
  try {
    equal(withPermittedEnv(() => process.env.TACK_PERMITTED_ENV_TEST), "seen");
    equal(withPermittedEnv(() => process.env[Symbol.iterator as unknown as string]), undefined);
    throws(() =>
      withPermittedEnv(() => {
        throw new Error("boom");
      }), /^Error: boom$/);
    equal(process.env, env);
    // Where process.env cannot be replaced, the function runs as it is.
    Object.defineProperty(process, "env", { value: env, writable: false, configurable: true });
    try {
      equal(withPermittedEnv(() => process.env.TACK_PERMITTED_ENV_TEST), "seen");
    } finally {
      Object.defineProperty(process, "env", { value: env, writable: true, configurable: true });
    }
    equal(permittedEnv("TACK_PERMITTED_ENV_TEST"), "seen");
    equal(permittedEnvObject()?.TACK_PERMITTED_ENV_TEST, "seen");
  } finally {
    Deno.env.delete("TACK_PERMITTED_ENV_TEST");
  }
});

Deno.test("permittedEnv: a variable the host may not read is undefined, with no prompt, and the whole environment too", async () => {
  const { prompt, output } = await onTerminal(
    `import { permittedEnv, permittedEnvObject, withPermittedEnv } from "@tack/agent/sdk";
import process from "node:process";
console.log("values", permittedEnv("HOME"), permittedEnv("NO_COLOR"), permittedEnvObject(),
  withPermittedEnv(() => process.env.HOME), withPermittedEnv(() => process.env.NO_COLOR));
`,
    [`--config=${CONFIG}`, "--cached-only", `--allow-read=${ROOT}`, "--allow-env=NO_COLOR"],
  );
  equal(prompt, undefined, prompt);
  // HOME is set on the terminal (NO_COLOR=1 too); only NO_COLOR may be read.
  match(output, /values undefined 1 undefined undefined 1/);
});

Deno.test("permittedEnv: a name no variable can have is undefined, not a throw", () => {
  equal(permittedEnv("A=B"), undefined);
  equal(permittedEnv(""), undefined);
});
