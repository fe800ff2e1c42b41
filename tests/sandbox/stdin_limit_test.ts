// What the host writes to a sandbox that stops reading its stdin is bounded: past four
// frames unread, the child is taken for stuck, every call sent to it ends with an error
// naming the limit, and the sandbox restarts. A hook that met it runs again in a fresh one.
import type { BeforeToolCallContext, Plugin } from "@tack/agent";
import { deepEqual, equal } from "node:assert/strict";
import { childStdin } from "../../sdk/sandbox/child_stdin.ts";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";
import { callTool as call, instanceOf, toolOf as tool } from "../support/sandboxed_calls.ts";

const encoder = new TextEncoder();
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("a stdin whose reader takes nothing refuses lines once the bound is unwritten", async () => {
  const stuck = new WritableStream<Uint8Array>({ write: () => new Promise(() => {}) });
  const stdin = childStdin(stuck, 12);
  const line = encoder.encode("abcde\n");
  equal(stdin.send(line), true);
  equal(stdin.send(line), true);
  equal(stdin.send(line), true, "one tick's lines all leave, whatever the bound");
  equal(stdin.waiting(), 0);
  await tick();
  equal(stdin.waiting(), 18);
  equal(stdin.send(line), false);
  equal(stdin.waiting(), 18, "a refused line is not queued");
  stdin.discard();
});

Deno.test("a stdin counts only what its reader has not taken; one tick's lines leave in one write", async () => {
  const writes: string[] = [];
  let take = () => {};
  const slow = new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve) => {
        writes.push(new TextDecoder().decode(chunk));
        take = resolve;
      }),
  });
  const stdin = childStdin(slow, 12);
  equal(stdin.send(encoder.encode("one\n")), true);
  equal(stdin.send(encoder.encode("two\n")), true);
  await tick();
  deepEqual(writes, ["one\ntwo\n"]);
  equal(stdin.waiting(), 8);
  equal(stdin.send(encoder.encode("three\n")), true);
  await tick();
  equal(stdin.waiting(), 14);
  equal(stdin.send(encoder.encode("four\n")), false);
  take();
  await tick();
  equal(stdin.waiting(), 6, "what the reader took still counts");
  equal(stdin.send(encoder.encode("five\n")), true);
  take();
  await tick();
  take();
  await tick();
  deepEqual(writes, ["one\ntwo\n", "three\n", "five\n"]);
  equal(stdin.waiting(), 0);
});

Deno.test("a discarded stdin writes nothing more", async () => {
  const writes: Uint8Array[] = [];
  const stdin = childStdin(new WritableStream({ write: (chunk) => void writes.push(chunk) }), 10);
  stdin.send(encoder.encode("lost\n"));
  stdin.discard();
  await tick();
  deepEqual(writes, []);
});

Deno.test("a discarded stdin is closed at once, not left open for whatever still reads it", async () => {
  // After a kill, whatever still reads the pipe (a process of the sandbox the host could not
  // kill: see tests/sandbox/process_lifetime_test.ts) sees its end. (A write still in flight
  // delays this: a stream aborts only after it.)
  let closedWith: unknown = "open";
  const pipe = new WritableStream<Uint8Array>({
    write: () => {},
    abort: (reason) => void (closedWith = reason),
  });
  const stdin = childStdin(pipe, 1024);
  stdin.send(encoder.encode("taken\n"));
  await tick();
  stdin.discard();
  await tick();
  equal(closedWith, undefined, "the pipe was closed (aborted), not left open");
});

// The real thing: a sandboxed plugin whose tool blocks its thread, so it reads nothing.

const FIXTURE = "./tests/fixtures/sandbox/hostile_plugin.ts";

/** Calls `stall` and waits until it reports that it blocks; then `outcome` is its end. */
async function stall(plugin: Plugin): Promise<{ outcome: Promise<string> }> {
  let stalled!: () => void;
  const blocking = new Promise<void>((resolve) => (stalled = resolve));
  const outcome = (async () => {
    try {
      await tool(plugin, "stall").execute({}, {
        toolCallId: "stall",
        signal: new AbortController().signal,
        update: () => stalled(),
      });
      return "stall returned";
    } catch (error) {
      return `error: ${(error as Error).message}`;
    }
  })();
  await blocking;
  return { outcome };
}

/** The hostile fixture with `frameMb: 1`: the host lets 4 MB wait unread on its stdin. */
function loadWithSmallFrames(): Promise<Plugin> {
  return loadPlugin(FIXTURE, { sandbox: true, stderr: "capture", limits: { frameMb: 1 } });
}

/**
 * Blocks the child's thread in a tool, then sends 4.4 MB of calls in one tick: one write the
 * child never takes, so the bound is reached. Returns the outcomes of those five calls.
 */
async function fillStdin(plugin: Plugin): Promise<Promise<string>[]> {
  const stalled = (await stall(plugin)).outcome;
  const big = { text: "x".repeat(1.1 * 1024 * 1024) };
  const filling = [1, 2, 3, 4].map(() => call(plugin, "length", big));
  await tick();
  return [stalled, ...filling];
}

const LIMIT_TEXT = 'the sandbox of plugin "hostile" left 4 MB unread on its stdin (its limit)';
const failed = (name: string) =>
  `error: Tool ${name} failed: ${LIMIT_TEXT} while running it; it restarts for the next call`;

Deno.test("a plugin that stops reading its stdin: every call sent to it ends naming the limit, then it restarts", async () => {
  const plugin = await loadWithSmallFrames();
  try {
    const before = await instanceOf(plugin);
    const filled = await fillStdin(plugin);
    // The next message finds the limit reached: the child is stopped.
    const refused = call(plugin, "echo", { text: "one more" });
    deepEqual(await Promise.all([...filled, refused]), [
      failed("stall"),
      failed("length"),
      failed("length"),
      failed("length"),
      failed("length"),
      failed("echo"),
    ]);
    equal(await call(plugin, "echo", { text: "still here" }), "still here");
    equal((await instanceOf(plugin)) === before, false, "the sandbox was not restarted");
  } finally {
    await plugin.dispose?.();
  }
});

Deno.test("a hook that finds a plugin's stdin full runs again in a fresh sandbox", async () => {
  const plugin = await loadWithSmallFrames();
  try {
    const seen = tool(plugin, "seen");
    const context = {
      assistantMessage: {
        role: "assistant",
        content: [{ type: "toolCall", id: "h", name: "seen", arguments: {} }],
      },
      toolCall: { type: "toolCall", id: "h", name: "seen", arguments: {} },
      tool: seen,
      args: {},
      context: { systemPrompt: "", messages: [], tools: plugin.tools! },
    } as unknown as BeforeToolCallContext;
    const filled = await fillStdin(plugin);
    const answer = await plugin.beforeToolCall!(context, new AbortController().signal);
    deepEqual(answer, { args: { seen: "true " } });
    deepEqual(await Promise.all(filled), [
      failed("stall"),
      failed("length"),
      failed("length"),
      failed("length"),
      failed("length"),
    ]);
  } finally {
    await plugin.dispose?.();
  }
});

Deno.test("one message larger than the limit still reaches a plugin that reads", async () => {
  const plugin = await loadWithSmallFrames();
  try {
    const before = await instanceOf(plugin);
    equal(await call(plugin, "length", { text: "x".repeat(6 * 1024 * 1024) }), "6291456");
    equal(await instanceOf(plugin), before, "an honest plugin was restarted");
  } finally {
    await plugin.dispose?.();
  }
});
