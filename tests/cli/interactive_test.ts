import { deepEqual, equal } from "node:assert/strict";
import { INTERACTIVE_HELP, LineReader, runInteractive } from "../../cli/interactive.ts";

/** A byte source over a real pipe: a child process's stdout. */
async function childOutput(
  script: string,
): Promise<{ reader: LineReader; done: () => Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(script));
  await writer.close();
  const stream = child.stdout.getReader({ mode: "byob" });
  const source = {
    async read(buffer: Uint8Array): Promise<number | null> {
      const { value, done } = await stream.read(new Uint8Array(buffer.length));
      if (done || !value) return null;
      buffer.set(value);
      return value.length;
    },
  };
  return {
    reader: new LineReader(source),
    done: async () => {
      stream.releaseLock();
      await child.stdout.cancel().catch(() => {});
      await child.status;
    },
  };
}

Deno.test("LineReader splits a real pipe into lines, CRLF and a last unterminated line included", async () => {
  const { reader, done } = await childOutput(
    `const e = new TextEncoder();
     await Deno.stdout.write(e.encode("one\\r\\ntw"));
     await new Promise((r) => setTimeout(r, 20));
     await Deno.stdout.write(e.encode("o\\n\\nélan\\nlast"));`,
  );
  try {
    deepEqual(
      [
        await reader.readLine(),
        await reader.readLine(),
        await reader.readLine(),
        await reader.readLine(),
        await reader.readLine(),
        await reader.readLine(),
      ],
      ["one", "two", "", "élan", "last", null],
    );
    equal(await reader.readLine(), null);
  } finally {
    await done();
  }
});

Deno.test("the loop runs prompts, skips blank lines, knows /help, /exit and unknown commands", async () => {
  const lines = ["  first  ", "", "/help", "/nope", "/usr/bin is where?", "/quit", "never"];
  const ran: string[] = [];
  const printed: string[] = [];
  let prompts = 0;
  const count = await runInteractive({
    readLine: () => Promise.resolve(lines.shift() ?? null),
    showPrompt: () => void prompts++,
    print: (text) => void printed.push(text),
    run: (prompt) => Promise.resolve(void ran.push(prompt)),
  });
  equal(count, 2);
  deepEqual(ran, ["first", "/usr/bin is where?"]);
  deepEqual(printed, [INTERACTIVE_HELP, `Unknown command /nope. ${INTERACTIVE_HELP}`]);
  equal(prompts, 6);
  deepEqual(lines, ["never"]);
});

Deno.test("the loop ends at the end of input", async () => {
  const count = await runInteractive({
    readLine: () => Promise.resolve(null),
    showPrompt: () => {},
    print: () => {},
    run: () => Promise.reject(new Error("must not run")),
  });
  equal(count, 0);
});

Deno.test("the next line is read only after the run finished", async () => {
  const order: string[] = [];
  const lines = ["a", "b"];
  await runInteractive({
    readLine: () => {
      order.push("read");
      return Promise.resolve(lines.shift() ?? null);
    },
    showPrompt: () => {},
    print: () => {},
    run: async (prompt) => {
      order.push(`start ${prompt}`);
      await new Promise((r) => setTimeout(r, 5));
      order.push(`end ${prompt}`);
    },
  });
  deepEqual(order, ["read", "start a", "end a", "read", "start b", "end b", "read"]);
});
