// grep reads files ahead of its search (several at once) and sizes each read from lstat:
// the output keeps the walk's order, the match limit still stops it, and a file that grew
// after its size was checked is read whole (or skipped past the cap), never past the cap.
import { createFsContext, createGrepTool, type GrepDetails } from "@tack/agent/plugins/fs";
import { deepEqual, equal } from "node:assert/strict";
import { readCapped } from "../../plugins/fs/read_capped.ts";
import { withTempRoot } from "../support/temp_root.ts";

const withRoot = (body: (root: string) => Promise<void>) => withTempRoot("tack_grep_read_", body);

async function grep(root: string, params: Record<string, unknown>) {
  const tool = createGrepTool(createFsContext({ root }));
  const context = { toolCallId: "c1", signal: new AbortController().signal, update() {} };
  // deno-lint-ignore no-explicit-any
  const result = await tool.execute(params as any, context as any);
  const text = result.content[0].type === "text" ? result.content[0].text : "";
  return { text, details: result.details as GrepDetails };
}

Deno.test("grep: matches across many files come in name order, and the limit stops the search there", async () => {
  await withRoot(async (root) => {
    // Sizes that differ, so the reads started together end in another order than they began.
    for (let i = 0; i < 40; i++) {
      const name = `f${String(i).padStart(2, "0")}.txt`;
      await Deno.writeTextFile(`${root}/${name}`, "pad\n".repeat((40 - i) * 2000) + `hit ${i}\n`);
    }
    await Deno.mkdir(`${root}/sub`);
    await Deno.writeTextFile(`${root}/sub/z.txt`, "\0binary hit\n");
    await Deno.writeTextFile(`${root}/sub/a.txt`, "hit sub\n");
    const all = await grep(root, { pattern: "^hit", limit: 1000 });
    const lines = all.text.split("\n").filter((line) => line !== "--")
      .map((line) => line.replace(/:\d+: /, ": "));
    deepEqual(lines, [
      ...Array.from({ length: 40 }, (_, i) => `f${String(i).padStart(2, "0")}.txt: hit ${i}`),
      "sub/a.txt: hit sub",
    ]);
    deepEqual(all.details, { matches: 41, files: 41, limitReached: false, skippedFiles: 1 });
    const first = await grep(root, { pattern: "^hit", limit: 5 });
    equal(first.text.split("\n").filter((line) => line.includes(": hit")).length, 5);
    equal(first.text.startsWith("f00.txt:"), true, first.text);
    equal(first.details.files, 5);
    equal(first.details.limitReached, true);
  });
});

Deno.test("grep: a limit of 1e9 on many matching lines stops at 2,000,000 characters of output and says so", async () => {
  await withRoot(async (root) => {
    // 3 files of 1.5 MB of "a" lines: 2.4 million matching lines in all.
    for (const name of ["a1.txt", "a2.txt", "a3.txt"]) {
      await Deno.writeTextFile(`${root}/${name}`, "a\n".repeat(800_000));
    }
    const { text, details } = await grep(root, { pattern: "a", limit: 1e9, context: 1e9 });
    equal(details.limitReached, true);
    equal(text.length < 2_100_000, true, `${text.length} characters`);
    const note = text.split("\n").at(-1)!;
    equal(
      note,
      `[Showing the first ${details.matches} matches: the output reached 2000000 characters. Use a narrower pattern, path or glob.]`,
    );
    equal(text.startsWith("a1.txt:1: a\n"), true);
  });
});

Deno.test("readCapped: a file read from a stale size is read whole, up to the cap and not past it", async () => {
  await withRoot(async (root) => {
    const path = `${root}/grew.txt`;
    await Deno.writeTextFile(path, "x".repeat(1000));
    equal((await readCapped(path, 1000, 5000))?.length, 1000); // size as checked
    equal((await readCapped(path, 0, 5000))?.length, 1000); // grew from empty: buffer grows
    equal((await readCapped(path, 10, 1000))?.length, 1000); // grew to exactly the cap
    equal(await readCapped(path, 10, 999), undefined); // one byte past the cap
    await Deno.writeTextFile(path, "");
    equal((await readCapped(path, 0, 5000))?.length, 0);
    equal(await readCapped(`${root}/missing`, 0, 10), undefined);
  });
});

Deno.test("readAhead: a load still running after a break may reject without an unhandled rejection; one the consumer reaches rejects there", async () => {
  const { readAhead } = await import("../../plugins/fs/read_ahead.ts");
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const load = async (n: number) => {
    await wait(n === 0 ? 0 : 5);
    if (n > 0) throw new Error(`load ${n} failed`);
    return n;
  };
  for await (const [n] of readAhead([0, 1, 2, 3], 4, load)) {
    equal(n, 0);
    break; // 1, 2 and 3 are still loading: they reject unawaited
  }
  await wait(20); // an unhandled rejection would fail the test here
  let error: Error | undefined;
  try {
    for await (const _ of readAhead([0, 1], 2, load)) { /* 0, then 1 rejects */ }
  } catch (caught) {
    error = caught as Error;
  }
  equal(error?.message, "load 1 failed");
});
