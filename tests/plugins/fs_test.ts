/**
 * The fs plugin's tools on real files in temp dirs, through a real agent where the
 * error text matters.
 */

import {
  createAgent,
  type Plugin,
  scriptedModel,
  text,
  type ToolCall,
  toolCall,
  type ToolResultMessage,
} from "@tack/agent";
import { createFileLocks, fs, type FsOptions } from "@tack/agent/plugins/fs";
import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { resultsOf, textOf } from "../support/agent_harness.ts";
import { withTempRoot } from "../support/temp_root.ts";

async function run(plugin: Plugin, calls: ToolCall[]): Promise<ToolResultMessage[]> {
  const agent = createAgent({ model: scriptedModel([calls, [text("done")]]), plugins: [plugin] });
  return resultsOf(await agent.prompt("go"));
}

async function one(
  root: string,
  name: string,
  args: Record<string, unknown>,
  options: FsOptions = {},
): Promise<{ text: string; isError: boolean; details: unknown; result: ToolResultMessage }> {
  const [result] = await run(fs({ root, ...options }), [toolCall(name, args)]);
  return { text: textOf(result), isError: result.isError, details: result.details, result };
}

const withRoot = (body: (root: string) => Promise<void>) => withTempRoot("tack_fs_", body);

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

Deno.test("fs: the plugin declares its tools, effects and permissions", () => {
  const plugin = fs({ root: "." });
  const root = Deno.realPathSync(".");
  equal(plugin.name, "fs");
  deepEqual(
    plugin.tools?.map((t) => [t.name, t.effects]),
    [
      ["read", ["read"]],
      ["write", ["write"]],
      ["edit", ["write"]],
      ["ls", ["read"]],
      ["find", ["read"]],
      ["grep", ["read"]],
    ],
  );
  deepEqual(plugin.permissions, { read: [root], write: [root] });
});

Deno.test("fs: bad options fail at creation", async () => {
  await withRoot(async (root) => {
    throws(() => fs({ root: `${root}/missing` }), {
      message: `Cannot create fs plugin: root ${root}/missing does not exist`,
    });
    await Deno.writeTextFile(`${root}/file`, "");
    throws(() => fs({ root: `${root}/file` }), {
      message: `Cannot create fs plugin: root ${root}/file is not a directory`,
    });
    throws(() => fs({ root, maxReadLines: 0 }), {
      name: "TypeError",
      message: "Cannot create fs plugin: maxReadLines must be a positive number, got 0",
    });
  });
});

Deno.test("read: whole file, offset and limit, with the continuation note", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.txt`, lines(10));
    equal((await one(root, "read", { path: "a.txt" })).text, lines(10).trimEnd());
    const middle = await one(root, "read", { path: "a.txt", offset: 3, limit: 2 });
    equal(middle.text, "line 3\nline 4\n\n[Showing lines 3-4 of 10. Use offset=5 to continue.]");
    deepEqual(middle.details, {
      path: "a.txt",
      lines: { from: 3, to: 4, total: 10 },
      truncated: true,
    });
    equal((await one(root, "read", { path: "a.txt", offset: 9 })).text, "line 9\nline 10");
  });
});

Deno.test("read: line and byte caps truncate with a clear note", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.txt`, lines(10));
    const byLines = await one(root, "read", { path: "a.txt" }, { maxReadLines: 3 });
    equal(
      byLines.text,
      "line 1\nline 2\nline 3\n\n[Showing lines 1-3 of 10. Use offset=4 to continue.]",
    );
    const byBytes = await one(root, "read", { path: "a.txt" }, { maxReadBytes: 20 });
    equal(
      byBytes.text,
      "line 1\nline 2\n\n[Showing lines 1-2 of 10 (20 B limit). Use offset=3 to continue.]",
    );
    await Deno.writeTextFile(`${root}/long.txt`, "x".repeat(50) + "\nshort\n");
    const long = await one(root, "read", { path: "long.txt" }, { maxReadBytes: 20 });
    equal(
      long.text,
      `${
        "x".repeat(20)
      }\n\n[Line 1 is 50 B, over the 20 B limit; showing its first 20 characters. ` +
        "Use offset=2 to continue.]",
    );
  });
});

Deno.test("read: a file over 8 MB is streamed, with the same ranges and notes", async () => {
  await withRoot(async (root) => {
    const line = "x".repeat(99);
    const count = 90_000; // 9 MB
    await Deno.writeTextFile(`${root}/big.log`, `${line}\n`.repeat(count - 1) + "last");
    const tail = await one(root, "read", { path: "big.log", offset: count - 1 });
    equal(tail.text, `${line}\nlast`);
    deepEqual(tail.details, {
      path: "big.log",
      lines: { from: count - 1, to: count, total: count },
      truncated: false,
    });
    const head = await one(root, "read", { path: "big.log", limit: 1 });
    equal(head.text, `${line}\n\n[Showing lines 1-1 of ${count}. Use offset=2 to continue.]`);
    await Deno.writeFile(`${root}/big.bin`, new Uint8Array(9 * 1024 * 1024));
    equal(
      (await one(root, "read", { path: "big.bin" })).text,
      "big.bin is a binary file; read returns text and PNG, JPEG, GIF or WebP images only",
    );
  });
});

Deno.test("read: bad offsets, missing files, directories and binaries are error results", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.txt`, lines(3));
    await Deno.writeTextFile(`${root}/empty.txt`, "");
    await Deno.mkdir(`${root}/dir`);
    await Deno.writeFile(`${root}/blob.bin`, new Uint8Array([1, 2, 0, 3]));
    const outcomes = await run(fs({ root }), [
      toolCall("read", { path: "a.txt", offset: 4 }),
      toolCall("read", { path: "nope.txt" }),
      toolCall("read", { path: "dir" }),
      toolCall("read", { path: "blob.bin" }),
      toolCall("read", { path: "empty.txt" }),
      toolCall("read", { path: "empty.txt", offset: 2 }),
      toolCall("read", { path: "a.txt", offset: 0 }),
      toolCall("read", {}),
    ]);
    deepEqual(outcomes.map((r) => [textOf(r), r.isError]), [
      ["Offset 4 is beyond the end of a.txt (3 lines)", true],
      ["File not found: nope.txt", true],
      ["dir is a directory; use ls to list it", true],
      ["blob.bin is a binary file; read returns text and PNG, JPEG, GIF or WebP images only", true],
      ["(empty.txt is empty)", false],
      ["Offset 2 is beyond the end of empty.txt (it is empty)", true],
      [
        'Invalid arguments for tool "read":\n  - offset: must be >= 1 (received 0)\n' +
        'Received arguments: {"path":"a.txt","offset":0}',
        true,
      ],
      ['Invalid arguments for tool "read":\n  - path: is required\nReceived arguments: {}', true],
    ]);
  });
});

// The smallest valid PNG: 1x1, one transparent pixel.
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

Deno.test("read: images come back as image content, recognized by their bytes", async () => {
  await withRoot(async (root) => {
    await Deno.writeFile(`${root}/pixel.dat`, PNG);
    const image = await one(root, "read", { path: "pixel.dat" });
    equal(image.isError, false);
    deepEqual(image.result.content, [
      { type: "text", text: `Read image pixel.dat [image/png, ${PNG.length} B]` },
      { type: "image", mimeType: "image/png", data: btoa(String.fromCharCode(...PNG)) },
    ]);
    const tooBig = await one(root, "read", { path: "pixel.dat" }, { maxImageBytes: 10 });
    deepEqual([tooBig.text, tooBig.isError], [
      `Image pixel.dat is ${PNG.length} B, over the 10 B limit for images`,
      true,
    ]);
  });
});

Deno.test("write: creates parents, overwrites, refuses directories", async () => {
  await withRoot(async (root) => {
    await Deno.mkdir(`${root}/dir`);
    const outcomes = await run(fs({ root }), [
      toolCall("write", { path: "deep/er/a.txt", content: "héllo" }),
      toolCall("write", { path: "dir", content: "x" }),
    ]);
    deepEqual(outcomes.map((r) => [textOf(r), r.isError]), [
      ["Created deep/er/a.txt (6 B)", false],
      ["dir is a directory; cannot write to it", true],
    ]);
    deepEqual(outcomes[0].details, { path: "deep/er/a.txt", bytes: 6, created: true });
    equal(await Deno.readTextFile(`${root}/deep/er/a.txt`), "héllo");
    const again = await one(root, "write", { path: "deep/er/a.txt", content: "" });
    equal(again.text, "Wrote deep/er/a.txt (0 B)");
    equal(await Deno.readTextFile(`${root}/deep/er/a.txt`), "");
  });
});

Deno.test("edit: a unique match is replaced, with the line and a diff in details", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.ts`, "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const edited = await one(root, "edit", {
      path: "a.ts",
      oldText: "const b = 2;",
      newText: "const b = 20;\nconst b2 = 21;",
    });
    equal(edited.text, "Edited a.ts at line 2");
    deepEqual(edited.details, {
      path: "a.ts",
      firstChangedLine: 2,
      diff: "-2 const b = 2;\n+2 const b = 20;\n+3 const b2 = 21;",
    });
    equal(
      await Deno.readTextFile(`${root}/a.ts`),
      "const a = 1;\nconst b = 20;\nconst b2 = 21;\nconst c = 3;\n",
    );
  });
});

Deno.test("edit: missing, repeated, empty and no-op edits are exact error results", async () => {
  await withRoot(async (root) => {
    const original = "x = 1\nx = 1\nx = 1\ny = 2\n";
    await Deno.writeTextFile(`${root}/a.txt`, original);
    const outcomes = await run(fs({ root }), [
      toolCall("edit", { path: "a.txt", oldText: "z = 3", newText: "z = 4" }),
      toolCall("edit", { path: "a.txt", oldText: "x = 1", newText: "x = 2" }),
      toolCall("edit", { path: "a.txt", oldText: "", newText: "x" }),
      toolCall("edit", { path: "a.txt", oldText: "y = 2", newText: "y = 2" }),
      toolCall("edit", { path: "nope.txt", oldText: "a", newText: "b" }),
    ]);
    deepEqual(outcomes.map((r) => [textOf(r), r.isError]), [
      [
        "oldText not found in a.txt; it must match the file exactly, including whitespace and " +
        "line breaks (read the file to check)",
        true,
      ],
      ["oldText occurs 3 times in a.txt; include more context to make it unique", true],
      ["oldText must not be empty", true],
      ["oldText and newText are the same; the edit would change nothing", true],
      ["File not found: nope.txt", true],
    ]);
    equal(await Deno.readTextFile(`${root}/a.txt`), original);
  });
});

Deno.test("edit and grep: a file over 10 MiB is an error naming it, never read whole (edit held the host's memory past its timeout)", async () => {
  await withRoot(async (root) => {
    const big = await Deno.open(`${root}/big.txt`, { write: true, create: true });
    await big.truncate(11 * 1024 * 1024); // sparse: no disk used
    big.close();
    await Deno.mkdir(`${root}/dir`);
    const outcomes = await run(fs({ root }), [
      toolCall("edit", { path: "big.txt", oldText: "a", newText: "b" }),
      toolCall("grep", { pattern: "hello", path: "big.txt" }),
      toolCall("edit", { path: "dir", oldText: "a", newText: "b" }),
    ]);
    deepEqual(outcomes.map((r) => [textOf(r), r.isError]), [
      [
        "big.txt is over 10485760 bytes; edit changes files of at most that size (use bash for larger ones)",
        true,
      ],
      [
        // Before: "No matches for hello in big.txt".
        "big.txt is 11534336 bytes; grep reads files of at most 10485760 bytes (read it in parts with read, or search it with bash)",
        true,
      ],
      ["dir is a directory; edit changes files", true],
    ]);
  });
});

Deno.test("edit: a file with CRLF line endings keeps them", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/win.txt`, "one\r\ntwo\r\nthree\r\n");
    const edited = await one(root, "edit", {
      path: "win.txt",
      oldText: "one\ntwo",
      newText: "uno\ndos",
    });
    equal(edited.isError, false);
    equal(await Deno.readTextFile(`${root}/win.txt`), "uno\r\ndos\r\nthree\r\n");
  });
});

Deno.test("edit: parallel edits of one file are serialized, so none is lost", async () => {
  await withRoot(async (root) => {
    const count = 8;
    await Deno.writeTextFile(`${root}/a.txt`, lines(count));
    const calls = Array.from(
      { length: count },
      (_, i) =>
        toolCall("edit", { path: "a.txt", oldText: `line ${i + 1}\n`, newText: `L${i + 1}\n` }),
    );
    const outcomes = await run(fs({ root }), calls);
    deepEqual(outcomes.map((r) => r.isError), Array(count).fill(false));
    const expected = Array.from({ length: count }, (_, i) => `L${i + 1}`).join("\n") + "\n";
    equal(await Deno.readTextFile(`${root}/a.txt`), expected);
  });
});

Deno.test("file locks: one key waits, other keys run in parallel, failures release", async () => {
  const locks = createFileLocks();
  const order: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const first = locks.run("/a", async () => {
    await gate;
    order.push("a1");
  });
  const second = locks.run("/a", () => {
    order.push("a2");
    return Promise.resolve();
  });
  await locks.run("/b", () => {
    order.push("b");
    return Promise.resolve();
  });
  deepEqual(order, ["b"]);
  release();
  await Promise.all([first, second]);
  deepEqual(order, ["b", "a1", "a2"]);
  const failing = locks.run("/c", () => Promise.reject(new Error("boom")));
  await failing.catch(() => {});
  equal(await locks.run("/c", () => Promise.resolve("after")), "after");
  await new Promise((resolve) => setTimeout(resolve, 0));
  equal(locks.size, 0);
});

Deno.test("ls: sorted entries, directories and symlinks marked, limit note", async () => {
  await withRoot(async (root) => {
    await Deno.mkdir(`${root}/src`);
    await Deno.writeTextFile(`${root}/B.md`, "");
    await Deno.writeTextFile(`${root}/a.txt`, "");
    await Deno.writeTextFile(`${root}/.env`, "");
    await Deno.symlink("a.txt", `${root}/link`);
    equal((await one(root, "ls", {})).text, ".env\na.txt\nB.md\nlink -> a.txt\nsrc/");
    const limited = await one(root, "ls", { limit: 2 });
    equal(limited.text, ".env\na.txt\n\n[Showing 2 of 5 entries. Use limit=5 to see all.]");
    deepEqual(limited.details, { path: ".", total: 5, shown: 2 });
    const outcomes = await run(fs({ root }), [
      toolCall("ls", { path: "src" }),
      toolCall("ls", { path: "a.txt" }),
      toolCall("ls", { path: "missing" }),
    ]);
    deepEqual(outcomes.map((r) => [textOf(r), r.isError]), [
      ["(src is empty)", false],
      ["a.txt is not a directory; use read to see a file", true],
      ["Directory not found: missing", true],
    ]);
  });
});

async function tree(root: string): Promise<void> {
  for (const dir of ["src/ui", "node_modules/pkg", ".git", "docs"]) {
    await Deno.mkdir(`${root}/${dir}`, { recursive: true });
  }
  const files: Record<string, string> = {
    "src/main.ts": "import { ui } from './ui/view.tsx';\nconsole.log(ui);\n",
    "src/ui/view.tsx": "export const ui = 'TODO: style';\n",
    "src/util.test.ts": "// todo later\nDeno.test('x', () => {});\n",
    "node_modules/pkg/index.ts": "TODO in a dependency\n",
    ".git/config": "TODO in git\n",
    "docs/readme.md": "# Docs\nTODO: write\n",
  };
  for (const [path, content] of Object.entries(files)) {
    await Deno.writeTextFile(`${root}/${path}`, content);
  }
}

Deno.test("find: globs by name and by path, skipping .git and node_modules", async () => {
  await withRoot(async (root) => {
    await tree(root);
    const outcomes = await run(fs({ root }), [
      toolCall("find", { pattern: "*.ts" }),
      toolCall("find", { pattern: "src/**/*.{ts,tsx}" }),
      toolCall("find", { pattern: "ui/*", path: "src" }),
      toolCall("find", { pattern: "*.ts", limit: 1 }),
      toolCall("find", { pattern: "*.rs" }),
      toolCall("find", { pattern: "ui" }),
      toolCall("find", { pattern: "*", path: "docs/readme.md" }),
      toolCall("find", { pattern: "" }),
    ]);
    deepEqual(outcomes.map((r) => [textOf(r), r.isError]), [
      ["src/main.ts\nsrc/util.test.ts", false],
      ["src/main.ts\nsrc/ui/view.tsx\nsrc/util.test.ts", false],
      ["src/ui/view.tsx", false],
      [
        "src/main.ts\n\n[Showing the first 1 matches. Use limit or a narrower pattern for more.]",
        false,
      ],
      ["No files match *.rs in .", false],
      ["src/ui/", false],
      ["docs/readme.md is not a directory", true],
      ["The glob pattern is empty", true],
    ]);
  });
});

Deno.test("grep: matches with context, glob filter, case and literal options", async () => {
  await withRoot(async (root) => {
    await tree(root);
    const outcomes = await run(fs({ root }), [
      toolCall("grep", { pattern: "TODO" }),
      toolCall("grep", { pattern: "todo", ignoreCase: true, glob: "*.ts" }),
      toolCall("grep", { pattern: "TODO", path: "docs", context: 1 }),
      toolCall("grep", { pattern: "log(ui)", literal: true }),
      toolCall("grep", { pattern: "ui(" }),
      toolCall("grep", { pattern: "TODO", limit: 1 }),
      toolCall("grep", { pattern: "nothing here" }),
      toolCall("grep", { pattern: "x", path: "missing" }),
    ]);
    deepEqual(outcomes.map((r) => [textOf(r), r.isError]), [
      [
        "docs/readme.md:2: TODO: write\n--\nsrc/ui/view.tsx:1: export const ui = 'TODO: style';",
        false,
      ],
      ["src/util.test.ts:1: // todo later", false],
      ["docs/readme.md-1- # Docs\ndocs/readme.md:2: TODO: write", false],
      ["src/main.ts:2: console.log(ui);", false],
      [
        "pattern is not a valid regular expression: missing closing ): `ui(` (RE2 syntax, no " +
        "backreferences or lookaround; set literal: true to search for the text as is)",
        true,
      ],
      [
        "docs/readme.md:2: TODO: write\n\n[Showing the first 1 matches. Use limit or a narrower " +
        "pattern for more.]",
        false,
      ],
      ["No matches for nothing here in .", false],
      ["Path not found: missing", true],
    ]);
    deepEqual(outcomes[0].details, { matches: 2, files: 2, limitReached: false, skippedFiles: 0 });
  });
});

Deno.test("grep: context groups in one file, binary files skipped, long lines clipped", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.txt`, "m1\nx\nx\nx\nx\nm2\nm3\nx\n");
    await Deno.writeFile(`${root}/b.bin`, new Uint8Array([109, 49, 0, 1]));
    await Deno.writeTextFile(`${root}/c.txt`, `m ${"y".repeat(600)}\n`);
    const grouped = await one(root, "grep", { pattern: "^m\\d", context: 1 });
    equal(
      grouped.text,
      "a.txt:1: m1\na.txt-2- x\n--\na.txt-5- x\na.txt:6: m2\na.txt:7: m3\na.txt-8- x",
    );
    deepEqual(grouped.details, { matches: 3, files: 1, limitReached: false, skippedFiles: 1 });
    const clipped = await one(root, "grep", { pattern: "^m ", path: "c.txt" });
    equal(clipped.text, `c.txt:1: m ${"y".repeat(498)}… [line truncated]`);
    ok(!clipped.isError);
  });
});
