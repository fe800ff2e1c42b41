/**
 * What cutting does to the log: arguments whose long keys share their first 256
 * characters, a key named like the log's own note, and a cut inside a surrogate pair.
 */

import { createAgent, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
import { audit } from "@tack/agent/plugins/audit";
import { Type } from "typebox";
import { deepEqual, equal } from "node:assert/strict";

Deno.test("audit: keys that are the same once cut each keep their value in the log", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tack_audit_keys_" });
  try {
    const ran: unknown[] = [];
    // The schema allows other keys, as many (MCP servers' included) do: they reach the tool.
    const tool = defineTool({
      name: "put",
      description: "Stores values",
      parameters: Type.Object({}),
      execute: (args) => {
        ran.push(args);
        return { content: [{ type: "text", text: "stored" }] };
      },
    });
    const long = "k".repeat(300);
    const args: Record<string, unknown> = { [`${long}a`]: "harmless", [`${long}b`]: "secret" };
    for (let i = 0; i < 200; i++) args[`n${i}`] = i;
    args["…"] = "hidden by the note"; // the 203rd key: past the 200 kept
    const log = audit({ path: `${dir}/audit.jsonl` });
    const agent = createAgent({
      model: scriptedModel([[toolCall("put", args, "c1")], [text("done")]]),
      tools: [tool],
      plugins: [log],
    });
    await agent.prompt("store");
    equal(Object.keys(ran[0] as object).length, 203);
    const lines = Deno.readTextFileSync(log.path).trim().split("\n").map((l) => JSON.parse(l));
    for (const line of lines) {
      const values = Object.values(line.args);
      // Before: both cut keys were one, so "harmless" was not in the log.
      deepEqual(values.slice(0, 2), ["harmless", "secret"]);
      equal(Object.keys(line.args).length, 201); // 200 kept, and the note
      equal(values.at(-1), "[+3 keys]");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("audit: a cut never splits a surrogate pair", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tack_audit_keys_" });
  try {
    const tool = defineTool({
      name: "say",
      description: "Says",
      parameters: Type.Object({ words: Type.String() }),
      execute: () => ({ content: [{ type: "text", text: "said" }] }),
    });
    const log = audit({ path: `${dir}/audit.jsonl`, maxStringChars: 3 });
    const agent = createAgent({
      model: scriptedModel([[toolCall("say", { words: "ab😀cd" }, "c1")], [text("done")]]),
      tools: [tool],
      plugins: [log],
    });
    await agent.prompt("say");
    const lines = Deno.readTextFileSync(log.path).trim().split("\n");
    // Before: "ab\ud83d…", half a character (a lone surrogate some log readers refuse).
    for (const line of lines) equal(JSON.parse(line).args.words, "ab…[+4 chars]");
    for (const line of lines) equal(line.includes("\\ud83d"), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
