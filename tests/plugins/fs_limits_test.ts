/**
 * The fs tools against files built to hurt the host: a file too large to grep (never
 * read), a multi-gigabyte single line (read in bounded memory, stopped by the call's
 * timeout or abort), FIFOs, sockets and devices (refused, never opened), and a hard link to a file
 * outside the root (refused for reading and writing).
 */

import { createAgent, scriptedModel, text, type ToolCall, toolCall } from "@tack/agent";
import {
  createFsContext,
  createGrepTool,
  createReadTool,
  fs,
  type FsOptions,
} from "@tack/agent/plugins/fs";
import { deepEqual, equal, rejects } from "node:assert/strict";
import { resultsOf, textOf } from "../support/agent_harness.ts";
import { withTempRoot } from "../support/temp_root.ts";

const withRoot = (body: (root: string) => Promise<void>) => withTempRoot("tack_fs_limits_", body);

async function call(
  root: string,
  calls: ToolCall[],
  options: FsOptions = {},
  toolTimeoutMs?: number,
): Promise<{ text: string; isError: boolean; details: unknown }[]> {
  const agent = createAgent({
    model: scriptedModel([calls, [text("done")]]),
    plugins: [fs({ root, ...options })],
    toolTimeoutMs,
  });
  return resultsOf(await agent.prompt("go")).map((r) => ({
    text: textOf(r),
    isError: r.isError,
    details: r.details,
  }));
}

/** A sparse file: `head`, then zeros up to `size` bytes (no disk space used). */
async function sparse(path: string, head: string, size: number): Promise<void> {
  await Deno.writeTextFile(path, head);
  await Deno.truncate(path, size);
}

const GB = 1024 ** 3;

/**
 * Runs `body` with a signal aborted at the third tick of a 1 ms timer, and checks it rejects
 * with that abort: it can only when it lets the event loop turn (timers, abort) as it works.
 */
async function abortedMidway(body: (signal: AbortSignal) => unknown): Promise<void> {
  const controller = new AbortController();
  let ticks = 0;
  const timer = setInterval(() => {
    if (++ticks === 3) controller.abort(new Error("stopped by the test"));
  }, 1);
  try {
    await rejects(async () => await body(controller.signal), { message: "stopped by the test" });
  } finally {
    clearInterval(timer);
  }
}

Deno.test("grep: a file over the size cap is skipped without being read", async () => {
  await withRoot(async (root) => {
    await sparse(`${root}/huge.log`, "needle\n", 1.5 * GB);
    await Deno.writeTextFile(`${root}/small.txt`, "needle\n");
    const before = Deno.memoryUsage().rss;
    const [result] = await call(root, [toolCall("grep", { pattern: "needle" })]);
    const grown = Deno.memoryUsage().rss - before;
    equal(result.text, "small.txt:1: needle");
    deepEqual(result.details, { matches: 1, files: 1, limitReached: false, skippedFiles: 1 });
    equal(grown < 256 * 1024 ** 2, true, `rss grew by ${grown} bytes`);
  });
});

Deno.test("read: a 4 GB single line is read in bounded memory and stops at abort", async () => {
  await withRoot(async (root) => {
    await sparse(`${root}/one_line.txt`, "x".repeat(9000), 4 * GB);
    const read = createReadTool(createFsContext({ root }));
    const before = Deno.memoryUsage().rss;
    await abortedMidway((signal) =>
      read.execute({ path: "one_line.txt" }, { toolCallId: "1", signal })
    );
    const grown = Deno.memoryUsage().rss - before;
    equal(grown < 256 * 1024 ** 2, true, `rss grew by ${grown} bytes`);
    // Through the agent, the call's timeout ends it with an error result.
    const [result] = await call(root, [toolCall("read", { path: "one_line.txt" })], {}, 200);
    deepEqual(result.text, "Tool read timed out after 200 ms and was stopped");
  });
});

Deno.test("read: a file of 16 million empty lines is streamed, so an abort stops it", async () => {
  await withRoot(async (root) => {
    // Read whole and split in one go, it held the host 8.7 s at 8 MB (no timer fired). Big
    // enough that reading it takes longer than the abort's three timer ticks even on a fast,
    // busy machine (4 million lines were read before them in one full run out of many).
    const lines = 16 * 1024 * 1024;
    await Deno.writeTextFile(`${root}/lines.txt`, "\n".repeat(lines));
    const read = createReadTool(createFsContext({ root }));
    await abortedMidway((signal) =>
      read.execute({ path: "lines.txt", offset: lines }, { toolCallId: "1", signal })
    );
    const last = await read.execute({ path: "lines.txt", offset: lines }, {
      toolCallId: "2",
      signal: new AbortController().signal,
    });
    equal(last.content[0].type === "text" && last.content[0].text, "");
  });
});

Deno.test("grep: a file of 4 million empty lines lets the loop turn, so an abort stops it", async () => {
  await withRoot(async (root) => {
    // Empty lines counted nothing toward the pause between scans: the whole file ran at once.
    await Deno.writeTextFile(`${root}/lines.txt`, "\n".repeat(4 * 1024 * 1024));
    const grep = createGrepTool(createFsContext({ root }));
    await abortedMidway((signal) =>
      grep.execute({ pattern: "x", path: "lines.txt" }, { toolCallId: "1", signal })
    );
  });
});

Deno.test("read: a 12 MB single line comes back cut to the byte cap, with its size", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/min.js`, "y".repeat(12 * 1024 * 1024));
    const read = createReadTool(createFsContext({ root }));
    const result = await read.execute({ path: "min.js" }, {
      toolCallId: "1",
      signal: new AbortController().signal,
    });
    equal(
      result.content[0].type === "text" && result.content[0].text,
      `${
        "y".repeat(51200)
      }\n\n[Line 1 is 12 MB, over the 50 KB limit; showing its first 51200 characters.]`,
    );
  });
});

Deno.test("fs: FIFOs and sockets are refused by read, grep, write and edit, skipped by grep's walk", async () => {
  await withRoot(async (root) => {
    const made = await new Deno.Command("mkfifo", { args: [`${root}/pipe`] }).output();
    equal(made.success, true);
    const socket = Deno.listen({ transport: "unix", path: `${root}/sock` });
    try {
      const fifo = "pipe is a FIFO, not a regular file; fs tools only open regular files";
      const outcomes = await call(root, [
        toolCall("read", { path: "pipe" }),
        toolCall("grep", { pattern: "x", path: "pipe" }),
        toolCall("write", { path: "pipe", content: "x" }),
        toolCall("edit", { path: "pipe", oldText: "a", newText: "b" }),
        toolCall("read", { path: "sock" }),
        toolCall("find", { pattern: "*", path: "pipe" }),
        toolCall("grep", { pattern: "x" }),
      ]);
      deepEqual(outcomes.map((o) => [o.text, o.isError]), [
        [fifo, true],
        [fifo, true],
        [fifo, true],
        [fifo, true],
        ["sock is a socket, not a regular file; fs tools only open regular files", true],
        ["pipe is not a directory", true],
        ["No matches for x in .", false],
      ]);
      deepEqual(outcomes[6].details, {
        matches: 0,
        files: 0,
        limitReached: false,
        skippedFiles: 2,
      });
    } finally {
      socket.close();
    }
  });
});

/** Whether this process can make device nodes (root, and mknod allowed here). */
const CAN_MKNOD = await (async () => {
  if (Deno.uid() !== 0) return false;
  const dir = await Deno.makeTempDir({ prefix: "tack_mknod_probe_" });
  try {
    const made = await new Deno.Command("mknod", { args: [`${dir}/zero`, "c", "1", "5"] })
      .output().catch(() => undefined);
    return made?.success === true && Deno.lstatSync(`${dir}/zero`).isCharDevice === true;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
})();

Deno.test({
  name:
    "fs: devices (/dev/zero, /dev/null, a block device) are refused by read, grep, write and edit, skipped by grep's walk (needs root: mknod)",
  ignore: !CAN_MKNOD,
  async fn() {
    await withRoot(async (root) => {
      for (
        const [name, ...node] of [["zero", "c", "1", "5"], ["null", "c", "1", "3"], [
          "loop",
          "b",
          "7",
          "0",
        ]]
      ) {
        const made = await new Deno.Command("mknod", { args: [`${root}/${name}`, ...node] })
          .output();
        equal(made.success, true, new TextDecoder().decode(made.stderr));
      }
      const refused = (
        name: string,
        kind: string,
      ) => [`${name} is ${kind}, not a regular file; fs tools only open regular files`, true];
      const outcomes = await call(
        root,
        [
          toolCall("read", { path: "zero" }),
          toolCall("read", { path: "null" }),
          toolCall("read", { path: "loop" }),
          toolCall("grep", { pattern: "x", path: "zero" }),
          toolCall("grep", { pattern: "x", path: "null" }),
          toolCall("write", { path: "null", content: "x" }),
          toolCall("write", { path: "zero", content: "x" }),
          toolCall("edit", { path: "null", oldText: "a", newText: "b" }),
          toolCall("edit", { path: "zero", oldText: "a", newText: "b" }),
          toolCall("grep", { pattern: "x" }),
          // A device opened would block or never end: bounded, a regression fails, not hangs.
        ],
        {},
        5_000,
      );
      deepEqual(outcomes.map((o) => [o.text, o.isError]), [
        refused("zero", "a character device"),
        refused("null", "a character device"),
        refused("loop", "a block device"),
        refused("zero", "a character device"),
        refused("null", "a character device"),
        refused("null", "a character device"),
        refused("zero", "a character device"),
        refused("null", "a character device"),
        refused("zero", "a character device"),
        ["No matches for x in .", false],
      ]);
      deepEqual(outcomes[9].details, {
        matches: 0,
        files: 0,
        limitReached: false,
        skippedFiles: 3,
      });
      // Nothing was written: the nodes are still the devices, and nothing else is there.
      const entries = [...Deno.readDirSync(root)].map((entry) => entry.name).sort();
      deepEqual(entries, ["loop", "null", "zero"]);
      deepEqual(
        entries.map((name) => {
          const info = Deno.lstatSync(`${root}/${name}`);
          return [name, info.isCharDevice, info.isBlockDevice, info.isFile];
        }),
        [["loop", false, true, false], ["null", true, false, false], ["zero", true, false, false]],
      );
    });
  },
});

Deno.test("fs: a hard link to a file outside the root is neither read nor written", async () => {
  const outside = await Deno.makeTempDir({ prefix: "tack_fs_outside_" });
  try {
    await withRoot(async (root) => {
      await Deno.writeTextFile(`${outside}/secret.txt`, "the secret\n");
      await Deno.link(`${outside}/secret.txt`, `${root}/inside.txt`);
      const refusal = "inside.txt has 2 hard links; fs does not open files with more than one, " +
        "since another link may lie outside the root (the fs option allowHardLinks permits it)";
      const outcomes = await call(root, [
        toolCall("read", { path: "inside.txt" }),
        toolCall("write", { path: "inside.txt", content: "overwritten" }),
        toolCall("edit", { path: "inside.txt", oldText: "secret", newText: "public" }),
        toolCall("grep", { pattern: "secret", path: "inside.txt" }),
        toolCall("grep", { pattern: "secret" }),
      ]);
      deepEqual(outcomes.map((o) => [o.text, o.isError]), [
        [refusal, true],
        [refusal, true],
        [refusal, true],
        [refusal, true],
        ["No matches for secret in .", false],
      ]);
      equal(await Deno.readTextFile(`${outside}/secret.txt`), "the secret\n");
      const [allowed] = await call(root, [toolCall("read", { path: "inside.txt" })], {
        allowHardLinks: true,
      });
      equal(allowed.text, "the secret");
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});
