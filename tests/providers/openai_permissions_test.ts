import { equal } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";
import { runScript } from "../support/run_script.ts";

const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

/** Runs one turn in a deno process with the given flags, returning its final message. */
async function turnWith(flags: string[], baseURL: string) {
  const script = `
    import { openai } from "@tack/agent/sdk/providers/openai";
    const model = openai({ model: "m", baseURL: ${JSON.stringify(baseURL)}, maxRetries: 0 });
    const stream = model.stream(
      { systemPrompt: "", tools: [], messages: [{ role: "user", content: "hi", timestamp: 0 }] },
      {},
    );
    for await (const _ of stream) { /* drain */ }
    console.log(JSON.stringify(await stream.result()));
  `;
  const { code, stdout, stderr } = await runScript(script, [
    "--cached-only",
    "--quiet",
    `--config=${CONFIG}`,
    ...flags,
  ]);
  equal(code, 0, stderr);
  return JSON.parse(stdout);
}

Deno.test("without --allow-net the turn ends with the flag to grant; no env permission needed", async () => {
  await using server = await startFakeOpenAI({ turns: [{ text: "ok" }] });
  const host = new URL(server.baseURL).host;
  const denied = await turnWith(["--allow-read"], server.baseURL);
  equal(denied.stopReason, "error");
  equal(
    denied.errorMessage.startsWith(
      `Cannot reach ${server.baseURL}: network access is not permitted`,
    ),
    true,
    denied.errorMessage,
  );
  equal(denied.errorMessage.endsWith(`; grant it with --allow-net=${host}`), true);
  equal(server.requests.length, 0);
  // With only the net permission (no --allow-env), the same turn works.
  const allowed = await turnWith(["--allow-read", `--allow-net=${host}`], server.baseURL);
  equal(allowed.stopReason, "stop");
  equal(allowed.content[0].text, "ok");
});
