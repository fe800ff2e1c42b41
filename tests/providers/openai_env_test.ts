// The provider's environment defaults, each in a child process with an environment of its
// own: `deno test --parallel` runs test files in one process, so a variable another file
// sets (escape and shell tests set OPENAI_API_KEY) would race with a check made here.
import { deepEqual, equal } from "node:assert/strict";
import { childEnv } from "../support/child_env.ts";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";
import { runScript } from "../support/run_script.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Runs one turn of `openai({ model: "m", ...options })` in a child with `env`; its content. */
async function turnInChild(
  options: Record<string, string>,
  env: Record<string, string>,
): Promise<unknown> {
  const script = `import { openai } from ${JSON.stringify(`${ROOT}sdk/providers/openai/mod.ts`)};
import { ask, runTurn } from ${JSON.stringify(`${ROOT}tests/providers/stream_helpers.ts`)};
const turn = await runTurn(openai({ model: "m", ...${JSON.stringify(options)} }), ask("hi"));
console.log(JSON.stringify(turn.message.content));
`;
  const { code, stdout, stderr } = await runScript(
    script,
    ["--allow-net=127.0.0.1", "--allow-env", "--allow-read", "--cached-only"],
    { cwd: ROOT, env: childEnv({ NO_COLOR: "1", ...env }), clearEnv: true },
  );
  equal(code, 0, stderr);
  return JSON.parse(stdout);
}

Deno.test("openai: with a base URL and no key (a local server), the placeholder key is sent", async () => {
  await using server = await startFakeOpenAI({ turns: [{ text: "local" }] });
  deepEqual(await turnInChild({ baseURL: server.baseURL }, {}), [{ type: "text", text: "local" }]);
  equal(server.calls[0].headers.get("authorization"), "Bearer tack-no-key");
});

Deno.test("openai: OPENAI_BASE_URL and OPENAI_API_KEY are read when options leave them out", async () => {
  await using server = await startFakeOpenAI({ turns: [{ text: "from env" }] });
  const content = await turnInChild({}, {
    OPENAI_BASE_URL: server.baseURL,
    OPENAI_API_KEY: "sk-env",
  });
  deepEqual(content, [{ type: "text", text: "from env" }]);
  equal(server.calls[0].headers.get("authorization"), "Bearer sk-env");
});
