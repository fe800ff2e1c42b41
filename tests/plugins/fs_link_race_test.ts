// A link made after the policies checked a call does not redirect it: the fs tools look at
// the path again when they run, and refuse one that now goes through a symlink (found by an
// attack: a tool of the same parallel batch swapped `hooks` for a link to `.git/hooks` after
// the rules had passed `hooks/pre-commit`, and the hook was planted).
import {
  createAgent,
  defineTool,
  scriptedModel,
  text,
  toolCall,
  type ToolResultMessage,
} from "@tack/agent";
import {
  createEditTool,
  createFsContext,
  createWriteTool,
  fs,
  type FsContext,
} from "@tack/agent/plugins/fs";
import { rules } from "@tack/agent/plugins/rules";
import { Type } from "typebox";
import { loadPlugin } from "../../sdk/sandbox/load_plugin.ts";
import { skipWithoutBwrap } from "../support/os_layer.ts";
import { deepEqual, equal, rejects } from "node:assert/strict";

const denyGitWrites = rules({
  rules: [{
    name: "no-git-writes",
    action: "deny",
    effect: "write",
    args: { path: { glob: ".git/**" } },
  }],
});

/** A tool that swaps `from` for a symlink to `to` the moment it starts (no await first). */
function swapTool(root: string) {
  return defineTool({
    name: "swap",
    description: "Replaces a folder with a symlink",
    parameters: Type.Object({ from: Type.String(), to: Type.String() }),
    execute({ from, to }) {
      Deno.removeSync(`${root}/${from}`, { recursive: true });
      Deno.symlinkSync(to, `${root}/${from}`);
      return { content: [{ type: "text", text: "swapped" }] };
    },
  });
}

function outcomes(messages: readonly { role: string }[]): [boolean, string][] {
  return messages.filter((m): m is ToolResultMessage => m.role === "toolResult").map((r) => [
    r.isError,
    r.content.map((b) => b.type === "text" ? b.text : "").join(""),
  ]);
}

Deno.test("fs: a link swapped in by an earlier call of the same parallel batch is refused at run time", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(`${root}/.git/hooks`, { recursive: true });
    await Deno.writeTextFile(`${root}/.git/config`, "[core]\n");
    await Deno.mkdir(`${root}/hooks`);
    await Deno.mkdir(`${root}/conf`);
    await Deno.writeTextFile(`${root}/conf/config`, "[core]\n");
    const agent = createAgent({
      model: scriptedModel([[
        toolCall("swap", { from: "hooks", to: ".git/hooks" }, "a"),
        toolCall("swap", { from: "conf", to: ".git" }, "b"),
        toolCall("write", { path: "hooks/pre-commit", content: "#!/bin/sh\necho pwned\n" }, "c"),
        toolCall(
          "edit",
          { path: "conf/config", oldText: "[core]", newText: "[core]\n\tx = 1" },
          "d",
        ),
        toolCall("read", { path: "conf/config" }, "e"),
      ], [text("done")]]),
      plugins: [fs({ root }), denyGitWrites],
      tools: [swapTool(root)],
    });
    const added = await agent.prompt("go");
    const refusal = (path: string, real: string) =>
      `Path ${path} leads through a symlink to ${real}, not the path the call was checked ` +
      `with; call again with ${real}`;
    deepEqual(outcomes(added), [
      [false, "swapped"],
      [false, "swapped"],
      [true, refusal("hooks/pre-commit", ".git/hooks/pre-commit")],
      [true, refusal("conf/config", ".git/config")],
      [true, refusal("conf/config", ".git/config")],
    ]);
    await rejects(Deno.stat(`${root}/.git/hooks/pre-commit`), Deno.errors.NotFound);
    equal(await Deno.readTextFile(`${root}/.git/config`), "[core]\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test({
  name: "fs: sandboxed (no prepareArguments across the process), a link in the root is refused",
  ignore: skipWithoutBwrap("fs: sandboxed, a link in the root is refused"),
}, async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(`${root}/.git/hooks`, { recursive: true });
    await Deno.symlink(".git/hooks", `${root}/hooks`);
    const plugin = await loadPlugin("./plugins/fs/mod.ts", {
      sandbox: true,
      options: { root },
      root,
      stderr: "capture",
    });
    try {
      const agent = createAgent({
        model: scriptedModel([[
          toolCall("write", { path: "hooks/pre-commit", content: "#!/bin/sh\necho pwned\n" }),
          toolCall("write", { path: "ok.txt", content: "fine" }),
        ], [text("done")]]),
        plugins: [plugin, denyGitWrites],
      });
      deepEqual(outcomes(await agent.prompt("go")), [
        [
          true,
          "Path hooks/pre-commit leads through a symlink to .git/hooks/pre-commit, not the path " +
          "the call was checked with; call again with .git/hooks/pre-commit",
        ],
        [false, "Created ok.txt (4 B)"],
      ]);
      await rejects(Deno.stat(`${root}/.git/hooks/pre-commit`), Deno.errors.NotFound);
    } finally {
      await plugin.dispose?.();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("fs: a link swapped in while a write or edit waits for its file's lock is refused", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(`${root}/.git/hooks`, { recursive: true });
    await Deno.writeTextFile(`${root}/.git/hooks/post-merge`, "#!/bin/sh\n");
    await Deno.mkdir(`${root}/hooks`);
    await Deno.writeTextFile(`${root}/hooks/post-merge`, "#!/bin/sh\n");
    const shared = createFsContext({ root });
    // The tools' context, telling when both calls reach their file's lock.
    let waiting = 0;
    let bothWaiting = () => {};
    const reached = new Promise<void>((resolve) => bothWaiting = resolve);
    const context: FsContext = {
      ...shared,
      realRoot: shared.realRoot,
      locks: {
        run(key, task) {
          const result = shared.locks.run(key, task);
          if (++waiting === 4) bothWaiting();
          return result;
        },
        size: 0,
      },
    };
    const write = createWriteTool(context);
    const edit = createEditTool(context);
    const options = { toolCallId: "1", signal: new AbortController().signal };
    // Another write to the same files holds their locks while the folder becomes a link.
    let release = () => {};
    const held = new Promise<void>((resolve) => release = resolve);
    const holding = Promise.all([
      context.locks.run(`${root}/hooks/pre-commit`, () => held),
      context.locks.run(`${root}/hooks/post-merge`, () => held),
    ]);
    const writing = Promise.resolve(
      write.execute({ path: "hooks/pre-commit", content: "echo pwned\n" }, options),
    ).then(() => "written", (error: Error) => error.message);
    const editing = Promise.resolve(edit.execute(
      { path: "hooks/post-merge", oldText: "#!/bin/sh\n", newText: "#!/bin/sh\necho pwned\n" },
      options,
    )).then(() => "edited", (error: Error) => error.message);
    await reached; // both resolved their path and wait behind the held locks
    await Deno.remove(`${root}/hooks`, { recursive: true });
    await Deno.symlink(".git/hooks", `${root}/hooks`);
    release();
    await holding;
    const refusal = (name: string) =>
      `Path hooks/${name} leads through a symlink to .git/hooks/${name}, not the path the ` +
      `call was checked with; call again with .git/hooks/${name}`;
    deepEqual([await writing, await editing], [refusal("pre-commit"), refusal("post-merge")]);
    await rejects(Deno.stat(`${root}/.git/hooks/pre-commit`), Deno.errors.NotFound);
    equal(await Deno.readTextFile(`${root}/.git/hooks/post-merge`), "#!/bin/sh\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("fs: a path a hook rewrote after the policies (no prepareArguments) is refused through a link", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(`${root}/.git/hooks`, { recursive: true });
    await Deno.symlink(".git/hooks", `${root}/hooks`);
    const agent = createAgent({
      model: scriptedModel([[toolCall("write", { path: "notes.txt", content: "echo pwned\n" })], [
        text("done"),
      ]]),
      plugins: [fs({ root }), denyGitWrites],
      // Runs after the plugins' hooks: the rules saw notes.txt.
      beforeToolCall: ({ args }) => ({ args: { ...args, path: "hooks/pre-commit" } }),
    });
    deepEqual(outcomes(await agent.prompt("go")), [[
      true,
      "Path hooks/pre-commit leads through a symlink to .git/hooks/pre-commit, not the path the " +
      "call was checked with; call again with .git/hooks/pre-commit",
    ]]);
    await rejects(Deno.stat(`${root}/.git/hooks/pre-commit`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
