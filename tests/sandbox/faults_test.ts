// Faults in a sandbox: a runaway call is killed, a crash or garbage ends in-flight calls
// with error results, abort stops calls; the sandbox restarts and the agent goes on.
import { createAgent, scriptedModel, text, toolCall, type ToolResultMessage } from "@tack/agent";
import { deepEqual, equal, match } from "node:assert/strict";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";
import { instanceOf } from "../support/sandboxed_calls.ts";

const FIXTURE = "./tests/fixtures/sandbox/faulty_plugin.ts";

function results(messages: readonly { role: string }[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}

function textOf(result: ToolResultMessage): string {
  return result.content.map((block) => block.type === "text" ? block.text : "").join("\n");
}

Deno.test("sandbox faults", async (t) => {
  const plugin = await loadPlugin(FIXTURE, { sandbox: true, stderr: "capture" });
  try {
    await t.step("hooks, updates and results cross the protocol", async () => {
      const agent = createAgent({
        model: scriptedModel([
          [toolCall("echo", { text: "hello" }, "a"), toolCall("echo", { text: "block me" }, "b")],
          [text("done")],
        ]),
        plugins: [plugin],
      });
      const updates: unknown[] = [];
      agent.subscribe((event) => {
        if (event.type === "tool_execution_update") updates.push(event.partialResult);
      });
      await agent.prompt("go");
      const [echoed, blocked] = results(agent.messages);
      equal(echoed.isError, false);
      deepEqual(echoed.content, [
        { type: "text", text: "hello" },
        { type: "text", text: "(checked in the sandbox)" },
      ]);
      equal(blocked.isError, true);
      equal(textOf(blocked), "blocked inside the sandbox");
      deepEqual(updates, [{ content: [{ type: "text", text: "echoing hello" }] }]);
    });

    await t.step(
      "an update whose content no result may have is left out; the call goes on",
      async () => {
        const agent = createAgent({
          model: scriptedModel([[toolCall("odd_updates", {}, "o")], [text("done")]]),
          plugins: [plugin],
        });
        const updates: unknown[] = [];
        agent.subscribe((event) => {
          if (event.type === "tool_execution_update") updates.push(event.partialResult);
        });
        await agent.prompt("go");
        const [result] = results(agent.messages);
        equal(result.isError, false);
        equal(textOf(result), "done");
        deepEqual(updates, [{ content: [{ type: "text", text: "halfway" }] }]);
      },
    );

    await t.step("a runaway call is killed at its timeout and the sandbox restarts", async () => {
      const before = await instanceOf(plugin);
      const agent = createAgent({
        model: scriptedModel([
          [toolCall("spin", {}, "s")],
          [toolCall("echo", { text: "after" }, "e")],
          [text("done")],
        ]),
        plugins: [plugin],
      });
      await agent.prompt("spin");
      const [spun, echoed] = results(agent.messages);
      equal(spun.isError, true);
      equal(textOf(spun), "Tool spin timed out after 300 ms and was stopped");
      equal(echoed.isError, false);
      equal(textOf(echoed), "after\n(checked in the sandbox)");
      const after = (echoed.details as { instance: string }).instance;
      equal(after === before, false, "the sandbox was not restarted");
    });

    await t.step("a crash mid-call ends the call with an error result and restarts", async () => {
      const before = await instanceOf(plugin);
      const [crash] = plugin.tools!.filter((tool) => tool.name === "crash");
      const agent = createAgent({
        model: scriptedModel([
          [toolCall("crash", {}, "c"), toolCall("slow", { ms: 5000 }, "w")],
          [text("done")],
        ]),
        plugins: [plugin],
      });
      await agent.prompt("crash");
      const [crashed, waiting] = results(agent.messages);
      equal(crash.name, "crash");
      equal(crashed.isError, true);
      match(
        textOf(crashed),
        /^Tool crash failed: the sandbox of plugin "faulty" crashed \(exit code 1\) while running it; its last words on stderr: ".*the plugin crashed on purpose.*"; it restarts for the next call$/s,
      );
      equal(waiting.isError, true);
      match(
        textOf(waiting),
        /^Tool slow failed: the sandbox of plugin "faulty" crashed \(exit code 1\) while running it/,
      );
      equal((await instanceOf(plugin)) === before, false);
    });

    await t.step("garbage on stdout ends in-flight calls and restarts", async () => {
      const agent = createAgent({
        model: scriptedModel([[toolCall("garbage", {}, "g")], [
          toolCall("echo", { text: "ok" }, "e"),
        ], [
          text("done"),
        ]]),
        plugins: [plugin],
      });
      await agent.prompt("garbage");
      const [garbage, echoed] = results(agent.messages);
      equal(garbage.isError, true);
      equal(
        textOf(garbage),
        'Tool garbage failed: the sandbox of plugin "faulty" printed invalid protocol output ("this is not json") while running it; it restarts for the next call',
      );
      equal(echoed.isError, false);
    });

    await t.step("abort mid-call cancels a call that honours its signal", async () => {
      const before = await instanceOf(plugin);
      const agent = createAgent({
        model: scriptedModel([[toolCall("slow", { ms: 10_000 }, "w")], [text("never")]]),
        plugins: [plugin],
      });
      agent.subscribe((event) => {
        if (event.type === "tool_execution_start") setTimeout(() => agent.abort(), 50);
      });
      await agent.prompt("wait");
      const [aborted] = results(agent.messages);
      equal(aborted.isError, true);
      equal(textOf(aborted), "Tool slow was aborted while running");
      equal(await instanceOf(plugin), before, "a call that stopped should not cost a restart");
    });

    await t.step("abort mid-call kills a call that ignores its signal", async () => {
      const before = await instanceOf(plugin);
      const agent = createAgent({
        model: scriptedModel([[toolCall("spin", {}, "s")], [text("never")]]),
        plugins: [plugin],
      });
      agent.subscribe((event) => {
        if (event.type === "tool_execution_start") setTimeout(() => agent.abort(), 50);
      });
      await agent.prompt("spin");
      const [aborted] = results(agent.messages);
      equal(textOf(aborted), "Tool spin was aborted while running");
      equal((await instanceOf(plugin)) === before, false, "the runaway child was not killed");
    });

    await t.step("many parallel calls to one sandbox each get their own answer", async () => {
      const echo = plugin.tools!.find((tool) => tool.name === "echo")!;
      const signal = new AbortController().signal;
      const answers = await Promise.all(
        Array.from(
          { length: 200 },
          (_, i) => echo.execute({ text: `n${i}` }, { toolCallId: `p${i}`, signal }),
        ),
      );
      deepEqual(
        answers.map((answer) => answer.content[0].type === "text" && answer.content[0].text),
        Array.from({ length: 200 }, (_, i) => `n${i}`),
      );
    });
  } finally {
    await plugin.dispose?.();
  }
});

Deno.test("a plugin factory's error reaches the host without its escapes", async () => {
  // Found by an attack: a factory throwing "\x1b]52;c;…\x07" wrote the host's clipboard and
  // retitled its terminal through the load error `tack plugins inspect` printed.
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-fatal-" }));
  try {
    await Deno.writeTextFile(
      `${dir}/evil.js`,
      'export default () => { throw new Error("boom\\x1b]52;c;Y3VybA==\\x07\\x1b[2K\\x1b]0;pwned\\x07"); };\n',
    );
    const error = await loadPlugin(`${dir}/evil.js`, { sandbox: true, stderr: "capture" })
      .then(() => undefined, (reason: Error) => reason);
    match(error?.message ?? "", /failed to load its module: boom/);
    equal(
      [...(error?.message ?? "")].some((c) => c.charCodeAt(0) < 0x20 || c === "\x7f"),
      false,
      JSON.stringify(error?.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
