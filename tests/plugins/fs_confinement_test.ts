/**
 * The fs plugin's confinement, through a real agent: `..`, absolute paths and symlinks
 * out of the root end as error results with exact texts, and nothing outside is touched.
 */

import { HAVE_BWRAP, skipWithoutBwrap } from "../support/os_layer.ts";
import {
  createAgent,
  type Plugin,
  scriptedModel,
  text,
  type ToolCall,
  toolCall,
} from "@tack/agent";
import { fs, resolveInRoot } from "@tack/agent/plugins/fs";
import { deepEqual, equal, rejects } from "node:assert/strict";
import { resultsOf, textOf } from "../support/agent_harness.ts";
import { loadPlugin } from "../../sdk/sandbox/load_plugin.ts";

interface Outcome {
  text: string;
  isError: boolean;
}

async function run(plugin: Plugin, calls: ToolCall[]): Promise<Outcome[]> {
  const agent = createAgent({ model: scriptedModel([calls, [text("done")]]), plugins: [plugin] });
  const added = await agent.prompt("go");
  return resultsOf(added).map((r) => ({ text: textOf(r), isError: r.isError }));
}

async function withDirs(
  body: (root: string, outside: string) => Promise<void>,
): Promise<void> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack_fs_" }));
  const root = `${base}/root`;
  const outside = `${base}/outside`;
  await Deno.mkdir(root);
  await Deno.mkdir(outside);
  await Deno.writeTextFile(`${outside}/secret.txt`, "secret");
  await Deno.writeTextFile(`${root}/a.txt`, "inside\n");
  try {
    await body(root, outside);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

Deno.test("fs: .. and absolute paths outside the root are refused by every tool", async () => {
  await withDirs(async (root, outside) => {
    const outcomes = await run(fs({ root }), [
      toolCall("read", { path: "../outside/secret.txt" }),
      toolCall("read", { path: `${outside}/secret.txt` }),
      toolCall("read", { path: "sub/../../outside/secret.txt" }),
      toolCall("write", { path: "../evil.txt", content: "x" }),
      toolCall("edit", { path: "/etc/hostname", oldText: "a", newText: "b" }),
      toolCall("ls", { path: ".." }),
      toolCall("find", { pattern: "*", path: "/" }),
      toolCall("grep", { pattern: "secret", path: "../outside" }),
    ]);
    deepEqual(outcomes, [
      { text: `Path ../outside/secret.txt is outside the root ${root}`, isError: true },
      { text: `Path ${outside}/secret.txt is outside the root ${root}`, isError: true },
      { text: `Path sub/../../outside/secret.txt is outside the root ${root}`, isError: true },
      { text: `Path ../evil.txt is outside the root ${root}`, isError: true },
      { text: `Path /etc/hostname is outside the root ${root}`, isError: true },
      { text: `Path .. is outside the root ${root}`, isError: true },
      { text: `Path / is outside the root ${root}`, isError: true },
      { text: `Path ../outside is outside the root ${root}`, isError: true },
    ]);
    await rejects(Deno.stat(`${root}/../evil.txt`), Deno.errors.NotFound);
  });
});

Deno.test("fs: paths that stay inside the root work, relative or absolute", async () => {
  await withDirs(async (root) => {
    const outcomes = await run(fs({ root }), [
      toolCall("read", { path: "sub/../a.txt" }),
      toolCall("read", { path: `${root}/a.txt` }),
      toolCall("read", { path: "./a.txt" }),
    ]);
    deepEqual(outcomes.map((o) => o.text), ["inside", "inside", "inside"]);
  });
});

Deno.test("fs: a symlink to a file outside the root is refused", async () => {
  await withDirs(async (root, outside) => {
    await Deno.symlink(`${outside}/secret.txt`, `${root}/link.txt`);
    const outcomes = await run(fs({ root }), [
      toolCall("read", { path: "link.txt" }),
      toolCall("write", { path: "link.txt", content: "overwritten" }),
      toolCall("edit", { path: "link.txt", oldText: "secret", newText: "gone" }),
    ]);
    const refusal =
      `Path link.txt leads through a symlink to ${outside}/secret.txt, outside the root ${root}`;
    deepEqual(outcomes, [
      { text: refusal, isError: true },
      { text: refusal, isError: true },
      { text: refusal, isError: true },
    ]);
    equal(await Deno.readTextFile(`${outside}/secret.txt`), "secret");
  });
});

Deno.test("fs: a write cannot escape through a symlinked directory, even to a new file", async () => {
  await withDirs(async (root, outside) => {
    await Deno.symlink(outside, `${root}/out`);
    const outcomes = await run(fs({ root }), [
      toolCall("write", { path: "out/new.txt", content: "x" }),
      toolCall("write", { path: "out/deeper/new.txt", content: "x" }),
      toolCall("ls", { path: "out" }),
    ]);
    deepEqual(outcomes, [
      {
        text: `Path out/new.txt leads through a symlink to ${outside}, outside the root ${root}`,
        isError: true,
      },
      {
        text:
          `Path out/deeper/new.txt leads through a symlink to ${outside}, outside the root ${root}`,
        isError: true,
      },
      {
        text: `Path out leads through a symlink to ${outside}, outside the root ${root}`,
        isError: true,
      },
    ]);
    await rejects(Deno.stat(`${outside}/new.txt`), Deno.errors.NotFound);
    await rejects(Deno.stat(`${outside}/deeper`), Deno.errors.NotFound);
  });
});

Deno.test("fs: a dangling symlink pointing out of the root cannot be written through", async () => {
  await withDirs(async (root, outside) => {
    await Deno.symlink(`${outside}/planted.txt`, `${root}/dangling`);
    const outcomes = await run(fs({ root }), [
      toolCall("write", { path: "dangling", content: "x" }),
    ]);
    deepEqual(outcomes, [{
      text:
        `Path dangling leads through the symlink dangling -> ${outside}/planted.txt, which cannot be resolved inside the root ${root}`,
      isError: true,
    }]);
    await rejects(Deno.stat(`${outside}/planted.txt`), Deno.errors.NotFound);
  });
});

Deno.test("fs: symlinks that stay inside the root are followed", async () => {
  await withDirs(async (root) => {
    await Deno.mkdir(`${root}/real`);
    await Deno.symlink(`${root}/real`, `${root}/alias`);
    await Deno.symlink("a.txt", `${root}/a_link.txt`);
    const outcomes = await run(fs({ root }), [
      toolCall("read", { path: "a_link.txt" }),
      toolCall("write", { path: "alias/b.txt", content: "through alias" }),
    ]);
    deepEqual(outcomes.map((o) => o.isError), [false, false]);
    equal(outcomes[0].text, "inside");
    equal(await Deno.readTextFile(`${root}/real/b.txt`), "through alias");
  });
});

Deno.test("fs: a root given through a symlink is confined to its real path", async () => {
  await withDirs(async (root, outside) => {
    const alias = `${root}_alias`;
    await Deno.symlink(root, alias);
    try {
      const plugin = fs({ root: alias });
      deepEqual(plugin.permissions, { read: [alias, root], write: [alias, root] });
      const outcomes = await run(plugin, [
        toolCall("read", { path: "a.txt" }),
        toolCall("read", { path: `${alias}/a.txt` }),
        toolCall("read", { path: `${outside}/secret.txt` }),
      ]);
      deepEqual(outcomes, [
        { text: "inside", isError: false },
        { text: "inside", isError: false },
        { text: `Path ${outside}/secret.txt is outside the root ${root}`, isError: true },
      ]);
    } finally {
      await Deno.remove(alias);
    }
  });
});

Deno.test("fs: find and grep do not follow symlinks out of the root", async () => {
  await withDirs(async (root, outside) => {
    await Deno.symlink(outside, `${root}/out`);
    await Deno.symlink(`${outside}/secret.txt`, `${root}/secret_link.txt`);
    const outcomes = await run(fs({ root }), [
      toolCall("find", { pattern: "secret*" }),
      toolCall("grep", { pattern: "secret" }),
    ]);
    deepEqual(outcomes, [
      { text: "secret_link.txt", isError: false },
      { text: "No matches for secret in .", isError: false },
    ]);
  });
});

Deno.test("resolveInRoot: NUL characters and empty paths", async () => {
  await withDirs(async (root) => {
    await rejects(resolveInRoot(root, "a\0b"), {
      message: 'Path "a\\u0000b" contains a NUL character',
    });
    deepEqual(await resolveInRoot(root, ""), { real: root, display: "." });
    deepEqual(await resolveInRoot(root, "new/dir/f.txt"), {
      real: `${root}/new/dir/f.txt`,
      display: "new/dir/f.txt",
    });
  });
});

Deno.test({
  name: "fs: sandboxed, with only its declared permissions, it is still confined",
  ignore: skipWithoutBwrap("fs: sandboxed, it is still confined"),
}, async () => {
  equal(HAVE_BWRAP, true, "bubblewrap must be installed");
  await withDirs(async (root, outside) => {
    await Deno.symlink(`${outside}/secret.txt`, `${root}/link.txt`);
    const plugin = await loadPlugin("./plugins/fs/mod.ts", {
      sandbox: true,
      options: { root },
      root,
      stderr: "capture",
    });
    try {
      deepEqual([plugin.permissions?.read, plugin.permissions?.write], [[root], [root]]);
      const outcomes = await run(plugin, [
        toolCall("read", { path: "a.txt" }),
        toolCall("write", { path: "b.txt", content: "made in the sandbox" }),
        toolCall("read", { path: `${outside}/secret.txt` }),
        toolCall("read", { path: "link.txt" }),
      ]);
      deepEqual(outcomes, [
        { text: "inside", isError: false },
        { text: "Created b.txt (19 B)", isError: false },
        { text: `Path ${outside}/secret.txt is outside the root ${root}`, isError: true },
        {
          // Without read access outside the root, the symlink's target cannot even be resolved.
          text: `Path link.txt leads through the symlink link.txt -> ${outside}/secret.txt, ` +
            `which cannot be resolved inside the root ${root}`,
          isError: true,
        },
      ]);
      equal(await Deno.readTextFile(`${root}/b.txt`), "made in the sandbox");
    } finally {
      await plugin.dispose?.();
    }
  });
});
