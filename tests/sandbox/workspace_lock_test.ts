// The lockfile a plugin resolves with is the one Deno really uses: in a workspace member the
// workspace root's (a member's own `lock` is ignored), in a folder a parent does not list
// its own, inside node_modules the project's above it. Each case runs a real `deno cache`
// from the plugin's folder and checks that the one lockfile Deno wrote is the one
// `lockFileOf` names (none when Deno wrote none).
import { deepEqual, equal } from "node:assert/strict";
import { dirname, join } from "node:path";
import { findConfig, lockFileOf } from "../../sdk/sandbox/deno_config.ts";

/** A module with an npm import (in the Deno cache already), so Deno writes a lockfile. */
const MODULE = `import { Type } from "npm:typebox@1.4.3";\nexport const t = Type.String();\n`;

interface Case {
  name: string;
  /** Config files by path (relative to the temp folder). */
  files: Record<string, string>;
  /** The folder of the plugin's module (`mod.ts`). */
  plugin: string;
  /** The lockfile Deno writes and `lockFileOf` must name; `undefined` for none. */
  lock: string | undefined;
}

const MEMBER = `{}`;

/** A lockfile Deno does not use (the config says `"lock": false`) and leaves alone. */
const STALE = `{ "version": "5" }`;

const CASES: Case[] = [
  {
    name: "a member listed by path uses the root's lock",
    files: { "deno.json": `{ "workspace": ["./member"] }`, "member/deno.json": MEMBER },
    plugin: "member",
    lock: "deno.lock",
  },
  {
    name: "a member's own lock path is ignored",
    files: {
      "deno.json": `{ "workspace": ["./member"] }`,
      "member/deno.json": `{ "lock": "./own.lock" }`,
    },
    plugin: "member",
    lock: "deno.lock",
  },
  {
    name: "a member's lock: false is ignored",
    files: { "deno.json": `{ "workspace": ["./member"] }`, "member/deno.json": `{"lock":false}` },
    plugin: "member",
    lock: "deno.lock",
  },
  {
    name: "the root's lock: false means no lock for a member",
    files: {
      "deno.json": `{ "workspace": ["./member"], "lock": false }`,
      "member/deno.json": MEMBER,
      "deno.lock": STALE,
    },
    plugin: "member",
    lock: undefined,
  },
  {
    name: "the root's { path } is the member's lock",
    files: {
      "deno.json": `{ "workspace": ["member/"], "lock": { "path": "./locks/ws.lock" } }`,
      "member/deno.json": MEMBER,
      "locks/.keep": "",
    },
    plugin: "member",
    lock: "locks/ws.lock",
  },
  {
    name: "the object form { members }",
    files: {
      "deno.json": `{ "workspace": { "members": ["./member"] } }`,
      "member/deno.json": MEMBER,
    },
    plugin: "member",
    lock: "deno.lock",
  },
  {
    name: "a jsonc root (comments, trailing comma)",
    files: { "deno.jsonc": `{ // root\n "workspace": ["./member"], }`, "member/deno.json": MEMBER },
    plugin: "member",
    lock: "deno.lock",
  },
  {
    name: "a plugin in a member's sub-folder (no config of its own)",
    files: { "deno.json": `{ "workspace": ["./member"] }`, "member/deno.json": MEMBER },
    plugin: "member/tools",
    lock: "deno.lock",
  },
  {
    name: "a member two folders down, the root above a folder without a config",
    files: { "deno.json": `{ "workspace": ["./a/b/member"] }`, "a/b/member/deno.json": MEMBER },
    plugin: "a/b/member",
    lock: "deno.lock",
  },
  {
    name: "a folder the parent does not list is its own project",
    files: {
      "deno.json": `{ "workspace": ["./other"] }`,
      "other/deno.json": MEMBER,
      "member/deno.json": MEMBER,
    },
    plugin: "member",
    lock: "member/deno.lock",
  },
  {
    name: "a parent without a workspace field does not make a workspace",
    files: { "deno.json": `{}`, "member/deno.json": MEMBER },
    plugin: "member",
    lock: "member/deno.lock",
  },
  {
    name: "a member that is a workspace root itself uses its own lock",
    files: {
      "deno.json": `{ "workspace": ["./member"] }`,
      "member/deno.json": `{ "workspace": ["./sub"] }`,
      "member/sub/deno.json": MEMBER,
    },
    plugin: "member",
    lock: "member/deno.lock",
  },
  {
    name: "the workspace root's own module",
    files: { "deno.json": `{ "workspace": ["./member"] }`, "member/deno.json": MEMBER },
    plugin: ".",
    lock: "deno.lock",
  },
  {
    name: "a glob ./packages/* lists a member",
    files: {
      "deno.json": `{ "workspace": ["./packages/*"] }`,
      "packages/member/deno.json": MEMBER,
    },
    plugin: "packages/member",
    lock: "deno.lock",
  },
  {
    name: "* does not cross a folder",
    files: { "deno.json": `{ "workspace": ["./*"] }`, "a/member/deno.json": MEMBER },
    plugin: "a/member",
    lock: "a/member/deno.lock",
  },
  {
    name: "** crosses folders",
    files: { "deno.json": `{ "workspace": ["./**/member"] }`, "a/b/member/deno.json": MEMBER },
    plugin: "a/b/member",
    lock: "deno.lock",
  },
  {
    name: "** does not enter a hidden folder",
    files: { "deno.json": `{ "workspace": ["./**/member"] }`, ".a/member/deno.json": MEMBER },
    plugin: ".a/member",
    lock: ".a/member/deno.lock",
  },
  {
    name: "* does not match a hidden folder",
    files: { "deno.json": `{ "workspace": ["./*"] }`, ".member/deno.json": MEMBER },
    plugin: ".member",
    lock: ".member/deno.lock",
  },
  {
    name: "a glob naming the leading dot matches a hidden folder",
    files: { "deno.json": `{ "workspace": ["./.m*"] }`, ".member/deno.json": MEMBER },
    plugin: ".member",
    lock: "deno.lock",
  },
  {
    name: "? matches one character",
    files: { "deno.json": `{ "workspace": ["./m?mber"] }`, "member/deno.json": MEMBER },
    plugin: "member",
    lock: "deno.lock",
  },
  {
    name: "[…] is not a pattern",
    files: { "deno.json": `{ "workspace": ["./[m]ember"] }`, "member/deno.json": MEMBER },
    plugin: "member",
    lock: "member/deno.lock",
  },
  {
    name: "a ! exclusion before the glob still excludes",
    files: { "deno.json": `{ "workspace": ["!./member", "./*"] }`, "member/deno.json": MEMBER },
    plugin: "member",
    lock: "member/deno.lock",
  },
  {
    name: "a ! glob exclusion after the glob excludes",
    files: { "deno.json": `{ "workspace": ["./*", "!./m*"] }`, "member/deno.json": MEMBER },
    plugin: "member",
    lock: "member/deno.lock",
  },
  {
    name: "a ! exclusion does not undo a plain path",
    files: {
      "deno.json": `{ "workspace": ["./member", "!./member"] }`,
      "member/deno.json": MEMBER,
    },
    plugin: "member",
    lock: "deno.lock",
  },
  {
    name: "a glob with a .. segment matches nothing",
    files: { "deno.json": `{ "workspace": ["./a/../a/*"] }`, "a/member/deno.json": MEMBER },
    plugin: "a/member",
    lock: "a/member/deno.lock",
  },
  {
    name: "a ! glob with a .. segment excludes nothing",
    files: {
      "deno.json": `{ "workspace": ["./a/*", "!./b/../a/*"] }`,
      "a/member/deno.json": MEMBER,
    },
    plugin: "a/member",
    lock: "deno.lock",
  },
  {
    name: "a ! plain path with a .. segment still excludes",
    files: {
      "deno.json": `{ "workspace": ["./a/*", "!./b/../a/member"] }`,
      "a/member/deno.json": MEMBER,
    },
    plugin: "a/member",
    lock: "a/member/deno.lock",
  },
  {
    name: "a glob lists a member under a folder whose name starts with ..",
    files: { "deno.json": `{ "workspace": ["./..x/*"] }`, "..x/member/deno.json": MEMBER },
    plugin: "..x/member",
    lock: "deno.lock",
  },
  {
    name: "an empty workspace lists nothing",
    files: { "deno.json": `{ "workspace": [] }`, "member/deno.json": MEMBER },
    plugin: "member",
    lock: "member/deno.lock",
  },
  {
    name: "a package inside node_modules is resolved by the project above it",
    files: { "deno.json": `{}`, "node_modules/pkg/deno.json": MEMBER },
    plugin: "node_modules/pkg",
    lock: "deno.lock",
  },
  {
    name: "inside node_modules the project above it decides (lock: false)",
    files: {
      "deno.json": `{ "lock": false }`,
      "node_modules/pkg/deno.json": MEMBER,
      "deno.lock": STALE,
    },
    plugin: "node_modules/pkg",
    lock: undefined,
  },
];

async function tempDir(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-workspace-lock-" }));
}

async function write(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(dir, name)), { recursive: true });
    await Deno.writeTextFile(join(dir, name), text);
  }
}

/** The lockfiles under `dir` that Deno wrote the module's package into (relative, sorted). */
async function lockFiles(dir: string, under = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(join(dir, under))) {
    const path = under === "" ? entry.name : `${under}/${entry.name}`;
    if (entry.isDirectory) found.push(...await lockFiles(dir, path));
    else if (
      entry.name.endsWith(".lock") &&
      (await Deno.readTextFile(join(dir, path))).includes("typebox@1.4.3")
    ) found.push(path);
  }
  return found.sort();
}

for (const test of CASES) {
  Deno.test(`workspace lock: ${test.name}`, async () => {
    const dir = await tempDir();
    try {
      await write(dir, { ...test.files, [`${test.plugin}/mod.ts`]: MODULE });
      const config = findConfig(join(dir, test.plugin))!;
      // From the plugin's folder: Deno finds the same config and lock from there as from
      // the folder of the config the preparation runs it in.
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["cache", "--quiet", "mod.ts"],
        cwd: join(dir, test.plugin),
        env: { NO_COLOR: "1" },
        stdout: "null",
        stderr: "piped",
      }).output();
      equal(output.success, true, new TextDecoder().decode(output.stderr));
      deepEqual(await lockFiles(dir), test.lock === undefined ? [] : [test.lock], "Deno");
      equal(await lockFileOf(config), test.lock === undefined ? undefined : join(dir, test.lock));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
