// A plugin in a Deno workspace member, as the sandbox prepares and runs it: its graph names
// the workspace root's lockfile (an edit of it describes the graph again), the sandboxed
// child runs with a pruned copy of that lock, frozen, and a host that may not read the
// root's config finds none, or the member's own stale lock (said in docs/sandbox.md).
import { deepEqual, equal, match, notEqual } from "node:assert/strict";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { prepareModuleGraph } from "../../sdk/sandbox/module_graph.ts";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** A module with an npm import (in the Deno cache already), so Deno writes a lockfile. */
const MODULE = `import { Type } from "npm:typebox@1.4.3";\nexport const t = Type.String();\n`;

const MEMBER = `{}`;

async function tempDir(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-workspace-member-" }));
}

async function write(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(dir, name)), { recursive: true });
    await Deno.writeTextFile(join(dir, name), text);
  }
}

Deno.test("workspace member: a host that may not read the workspace root's config finds the member's own lock, if any, not the root's", async () => {
  const dir = await tempDir();
  try {
    await write(dir, {
      "deno.json": `{ "workspace": ["./member"] }`,
      "member/deno.json": MEMBER,
      "member/mod.ts": MODULE,
      "member/probe.ts": `import { findConfig, lockFileOf } from ${
        JSON.stringify(`${REPO}/sdk/sandbox/deno_config.ts`)
      };
console.log(await lockFileOf(findConfig(${JSON.stringify(`${dir}/member`)})!) ?? "none");\n`,
    });
    const cached = await new Deno.Command(Deno.execPath(), {
      args: ["cache", "--quiet", "mod.ts"],
      cwd: `${dir}/member`,
    }).output();
    equal(cached.success, true);
    const probe = async (read: string) => {
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-config", "--no-prompt", `--allow-read=${read},${REPO}`, "probe.ts"],
        cwd: `${dir}/member`,
        stdout: "piped",
        stderr: "piped",
      }).output();
      equal(output.success, true, new TextDecoder().decode(output.stderr));
      return new TextDecoder().decode(output.stdout).trim();
    };
    equal(await probe(dir), `${dir}/deno.lock`);
    // Deno (with its own permissions) used the root's lock; the host cannot know: none.
    equal(await probe(`${dir}/member`), "none");
    // A lock the member kept from before it joined the workspace (Deno ignores it): the host
    // that cannot see the root takes it for the member's (said in docs/sandbox.md).
    await Deno.writeTextFile(`${dir}/member/deno.lock`, `{ "version": "5" }`);
    equal(await probe(dir), `${dir}/deno.lock`);
    equal(await probe(`${dir}/member`), `${dir}/member/deno.lock`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * Dates `files` a minute back: a description of files changed while (or just before) it
 * was made is not kept, and these stand for files nobody is editing.
 */
async function settle(files: string[]): Promise<void> {
  const past = new Date(Date.now() - 60_000);
  for (const file of files) await Deno.utime(file, past, past);
}

/** A workspace whose member holds a sandboxable plugin that imports TypeBox. */
async function workspace(): Promise<string> {
  const dir = await tempDir();
  await write(dir, {
    "deno.json": JSON.stringify({
      workspace: ["./member"],
      imports: {
        "@tack/agent/plugin": `${REPO}/sdk/plugin_api.ts`,
        "typebox": "npm:typebox@1.4.3",
        "typebox/compile": "npm:typebox@1.4.3/compile",
        "re2js": "npm:re2js@2.10.0",
      },
    }),
    "member/deno.json": `{ "name": "@x/member", "version": "0.1.0", "exports": "./plugin.ts" }`,
    "member/plugin.ts": `import { definePlugin, defineTool } from "@tack/agent/plugin";
import { Type } from "typebox";

export default definePlugin({
  name: "member",
  tools: [
    defineTool({
      name: "member_echo",
      description: "Echoes a word",
      parameters: Type.Object({ word: Type.String() }),
      execute: ({ word }) => ({ content: [{ type: "text", text: word }] }),
    }),
  ],
});
`,
  });
  await settle([`${dir}/deno.json`, `${dir}/member/deno.json`, `${dir}/member/plugin.ts`]);
  return dir;
}

Deno.test("workspace member: a member plugin's graph names the root's lock, and an edit of that lock describes it again", async () => {
  const dir = await workspace();
  try {
    const url = pathToFileURL(`${dir}/member/plugin.ts`).href;
    // The first description writes the lock (so it is not kept): the next one is.
    equal((await prepareModuleGraph(url, dir)).lockFile, `${dir}/deno.lock`);
    await settle([`${dir}/deno.lock`]);
    const graph = await prepareModuleGraph(url, dir);
    equal(graph.lockFile, `${dir}/deno.lock`);
    equal(await prepareModuleGraph(url, dir), graph, "described again although nothing changed");
    // The lock Deno resolves the member with changed: what the graph was described with is stale.
    const lock = JSON.parse(await Deno.readTextFile(`${dir}/deno.lock`));
    await Deno.writeTextFile(`${dir}/deno.lock`, JSON.stringify(lock, null, 4));
    await settle([`${dir}/deno.lock`]);
    notEqual(await prepareModuleGraph(url, dir), graph);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The command lines of the running processes that mention `text`. */
async function processesWith(text: string): Promise<string[][]> {
  const found: string[][] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const args = (await Deno.readTextFile(`/proc/${entry.name}/cmdline`)).split("\0");
      if (args.some((arg) => arg.includes(text))) found.push(args);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

Deno.test("workspace member: a sandboxed plugin in a workspace member runs with the root's lock, frozen", async () => {
  const dir = await workspace();
  try {
    const plugin = await loadPlugin(`${dir}/member/plugin.ts`, {
      sandbox: true,
      stderr: "capture",
      onWarning: () => {},
    });
    try {
      const echo = plugin.tools!.find((tool) => tool.name === "member_echo")!;
      const result = await echo.execute({ word: "locked" }, {
        toolCallId: "e",
        signal: new AbortController().signal,
      });
      deepEqual(result.content, [{ type: "text", text: "locked" }]);
      // The child is `deno run … --lock=<copy> --frozen … <config naming the plugin>`.
      const [child] = (await processesWith(`${dir}/member/plugin.ts`))
        .filter((args) => args.includes("--no-config"));
      notEqual(child, undefined, "the sandbox's deno process");
      equal(child.includes("--no-lock"), false, child.join(" "));
      equal(child.includes("--frozen"), true, child.join(" "));
      const copy = child.find((arg) => arg.startsWith("--lock="))!.slice("--lock=".length);
      // The root's lock, pruned to the graph's npm packages.
      const root = JSON.parse(await Deno.readTextFile(`${dir}/deno.lock`));
      const used = JSON.parse(await Deno.readTextFile(copy));
      match(Object.keys(used.npm).join(","), /typebox@1\.4\.3/);
      deepEqual(used.npm["typebox@1.4.3"], root.npm["typebox@1.4.3"]);
    } finally {
      await plugin.dispose?.();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
