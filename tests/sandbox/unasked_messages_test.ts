// A sandboxed plugin with no permissions may send only answers (and its manifest, once) on
// stdout. Found by the sandbox attack: one writing valid updates for ids no call had, as fast
// as it could, kept a host core busy (6.5 s of CPU in 10 s) while the host parsed and dropped
// them. Such a message is now a fault: the child is killed, and restarts for the next call.
import { deepEqual, equal } from "node:assert/strict";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";
import type { Plugin } from "@tack/agent";
import { instanceOf, toolOf } from "../support/sandboxed_calls.ts";

/** A call's text, or `error: <message>`; aborted after 5 s (before the fix, floods hung it). */
async function callTool(plugin: Plugin, name: string, args = {}): Promise<string> {
  try {
    const result = await toolOf(plugin, name).execute(args, {
      toolCallId: name,
      signal: AbortSignal.timeout(5000),
    });
    return result.content.map((block) => block.type === "text" ? block.text : "").join("");
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

const FLOODER = `
const instance = crypto.randomUUID();
const encoder = new TextEncoder();
/** Writes \`message\` as protocol lines, as fast as the pipe takes them, forever. */
function flood(message) {
  const chunk = encoder.encode((JSON.stringify(message) + "\\n").repeat(500));
  setTimeout(async () => {
    for (;;) {
      for (let at = 0; at < chunk.length;) at += await Deno.stdout.write(chunk.subarray(at));
    }
  }, 0);
}
const update = { type: "update", id: 987654321, partial: { content: [{ type: "text", text: "x" }] } };
const text = (value) => ({ content: [{ type: "text", text: value }] });
const tools = [
  { name: "echo", description: "Echoes, reporting progress", parameters: { type: "object" },
    execute: ({ text: value }, { update: report }) => {
      for (let i = 0; i < 100; i++) report(text("step " + i));
      return { ...text(value), details: { instance } };
    } },
  { name: "flood_later", description: "Floods updates for an unknown id once it has answered",
    parameters: { type: "object" }, execute: () => { flood(update); return text("flooding"); } },
  { name: "flood_now", description: "Floods updates for an unknown id while it runs",
    parameters: { type: "object" }, execute: () => { flood(update); return new Promise(() => {}); } },
  { name: "manifest_again", description: "Floods its manifest while it runs",
    parameters: { type: "object" },
    execute: () => {
      // The very manifest it reported (its tools without their functions): not a changed one.
      flood({ type: "manifest", manifest: JSON.parse(JSON.stringify({ name: "flooder", tools, hooks: [] })) });
      return new Promise(() => {});
    } },
];
export default { name: "flooder", tools };
`;

Deno.test("a plugin sending messages no call or hook asked for is stopped, and restarts", async (t) => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-unasked-" }));
  await Deno.writeTextFile(`${dir}/flooder.js`, FLOODER);
  const plugin = await loadPlugin(`${dir}/flooder.js`, { sandbox: true, stderr: "capture" });
  try {
    await t.step("progress updates for its own call reach the caller", async () => {
      const updates: unknown[] = [];
      const result = await toolOf(plugin, "echo").execute({ text: "hi" }, {
        toolCallId: "e",
        signal: new AbortController().signal,
        update: (partial) => updates.push(partial),
      });
      deepEqual(result.content, [{ type: "text", text: "hi" }]);
      equal(updates.length, 100);
      deepEqual(updates[99], { content: [{ type: "text", text: "step 99" }] });
    });

    await t.step("a flood while a call runs ends the call with the fault", async () => {
      const before = await instanceOf(plugin);
      equal(
        await callTool(plugin, "flood_now"),
        'error: Tool flood_now failed: the sandbox of plugin "flooder" sent a message it was not asked for (an "update" for id 987654321) while running it; it restarts for the next call',
      );
      // Before: the call hung (the host dropping the updates), the same process answered.
      equal(await instanceOf(plugin) === before, false);
    });

    await t.step(
      "a flood with nothing in flight stops the child; the next call restarts it",
      async () => {
        const before = await instanceOf(plugin);
        equal(await callTool(plugin, "flood_later"), "flooding");
        await new Promise((resolve) => setTimeout(resolve, 1000));
        equal(await instanceOf(plugin) === before, false);
      },
    );

    await t.step("a second manifest is a fault too", async () => {
      equal(
        await callTool(plugin, "manifest_again"),
        'error: Tool manifest_again failed: the sandbox of plugin "flooder" sent a message it was not asked for (its manifest again) while running it; it restarts for the next call',
      );
      equal(await callTool(plugin, "echo", { text: "after" }), "after");
    });
  } finally {
    await plugin.dispose?.();
    await Deno.remove(dir, { recursive: true });
  }
});
