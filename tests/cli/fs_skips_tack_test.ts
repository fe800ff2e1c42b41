// The agent's own files (.tack/sessions, .tack/history) are not searched by grep or find.

import { deepEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { fs } from "../../plugins/fs/mod.ts";

Deno.test("grep and find pass over .tack/ (sessions and history), and nothing else", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(root, ".tack", "sessions"), { recursive: true });
    await Deno.writeTextFile(join(root, ".tack", "sessions", "s.jsonl"), '{"text":"needle"}\n');
    await Deno.writeTextFile(join(root, ".tack", "history"), '"needle"\n');
    await Deno.writeTextFile(join(root, "notes.txt"), "a needle here\n");
    const tools = fs({ root }).tools!;
    const call = async (name: string, args: Record<string, unknown>) => {
      const tool = tools.find((t) => t.name === name)!;
      const result = await tool.execute(args, {
        toolCallId: "c",
        signal: new AbortController().signal,
      });
      return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    };
    const grep = await call("grep", { pattern: "needle" });
    equal(grep.includes(".tack"), false, grep);
    equal(grep.includes("notes.txt"), true, grep);
    const found = await call("find", { pattern: "**/*" });
    deepEqual(found.split("\n").filter((l) => l.includes(".tack")), []);
    equal(found.includes("notes.txt"), true, found);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
