// `deno task install` into a temporary DENO_INSTALL_ROOT, then the installed `tack` run in
// a project folder outside the repository: its files, its tack.jsonc, its --plugin paths
// (one outside both), and an MCP stdio server started by the mcp plugin.

import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";
import { childEnv } from "../support/child_env.ts";

const REPO = new URL("../..", import.meta.url).pathname;
const STDIO_SERVER = join(REPO, "tests", "fixtures", "mcp", "stdio_server.ts");

function env(extra: Record<string, string>): Record<string, string> {
  return childEnv({ NO_COLOR: "1", ...extra });
}

Deno.test("the installed tack works in any folder on that folder's files, config and plugins", async () => {
  const root = await Deno.makeTempDir({ prefix: "tack_install_" });
  try {
    const installed = await new Deno.Command(Deno.execPath(), {
      args: ["task", "install"],
      cwd: REPO,
      env: env({ DENO_INSTALL_ROOT: root }),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    equal(installed.code, 0, new TextDecoder().decode(installed.stderr));
    // Deno's global install ignores a project's lock (denoland/deno#17116): what deno.json
    // pins, the installed tack resolves as the repository's lock does; transitive packages
    // may be newer (on an empty cache: hono, jose, pkce-challenge …), as the docs say.
    const pinned = JSON.parse(await Deno.readTextFile(join(REPO, "deno.lock"))).specifiers;
    const resolved = JSON.parse(await Deno.readTextFile(join(root, "bin", ".tack", "deno.lock")))
      .specifiers as Record<string, string>;
    deepEqual(
      Object.entries(resolved).filter(([specifier, version]) => pinned[specifier] !== version),
      [],
    );
    const tack = join(root, "bin", "tack");
    // Deno's default cache folder is writable, so sandboxes keep their stores and caches, and
    // so is the trust store's folder.
    match(
      await Deno.readTextFile(tack),
      new RegExp(
        `--allow-write=\\.,/tmp,${Deno.env.get("HOME")}/\\.cache/deno,` +
          `${Deno.env.get("HOME")}/\\.local/state/tack `,
      ),
    );

    const project = join(root, "project");
    const elsewhere = join(root, "elsewhere");
    await Deno.mkdir(project);
    await Deno.mkdir(elsewhere);
    await Deno.writeTextFile(join(project, "notes.txt"), "the project's own notes\n");
    await Deno.writeTextFile(
      join(project, "local.ts"),
      `export default { name: "local", tools: [{ name: "hello", description: "Says hello", ` +
        `parameters: { type: "object" }, execute: () => ({ content: [{ type: "text", text: "hello from local" }] }) }] };`,
    );
    await Deno.writeTextFile(
      join(elsewhere, "far.ts"),
      `export default { name: "far", tools: [{ name: "far_away", description: "Far", ` +
        `parameters: { type: "object" }, execute: () => ({ content: [{ type: "text", text: "far plugin ran" }] }) }] };`,
    );
    await Deno.writeTextFile(
      join(project, "tack.jsonc"),
      JSON.stringify({
        model: "project-model",
        plugins: [
          "fs",
          "./local.ts",
          {
            specifier: "mcp",
            options: {
              name: "fixture",
              command: Deno.execPath(),
              args: ["run", "--quiet", "--cached-only", STDIO_SERVER],
            },
          },
        ],
      }),
    );
    await using server = await startFakeOpenAI({
      turns: [
        {
          toolCalls: [
            { name: "read", arguments: { path: "notes.txt" } },
            { name: "hello", arguments: {} },
            { name: "far_away", arguments: {} },
            { name: "fixture_echo", arguments: { text: "over stdio" } },
          ],
        },
        { text: "All four worked." },
      ],
    });
    // The project's tack.jsonc is trusted first, with the installed tack's own command.
    const state = join(root, "state");
    const trusted = await new Deno.Command(tack, {
      args: ["trust"],
      cwd: project,
      env: env({ XDG_STATE_HOME: state }),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    equal(trusted.code, 0, new TextDecoder().decode(trusted.stderr));
    const output = await new Deno.Command(tack, {
      args: ["--yes", "--plugin", join(elsewhere, "far.ts"), "look around"],
      cwd: project,
      env: env({ OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "test", XDG_STATE_HOME: state }),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    equal(output.code, 0, stderr);
    equal(new TextDecoder().decode(output.stdout), "All four worked.\n");
    equal(server.requests[0].model, "project-model");
    const results = server.requests[1].messages
      .filter((m: { role: string }) => m.role === "tool")
      .map((m: { content: string }) => m.content);
    match(results[0], /the project's own notes/);
    deepEqual(results.slice(1), ["hello from local", "far plugin ran", "echo: over stdio"]);
    // The session was written in the project's own .tack/.
    equal((await Array.fromAsync(Deno.readDir(join(project, ".tack", "sessions")))).length, 1);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the install task grants the environment the `agent` task's permission set grants", async () => {
  const config = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json")));
  const granted = /--allow-env=(\S+)/.exec(config.tasks.install)?.[1].split(",");
  deepEqual(granted, config.permissions.cli.env);
});

Deno.test("docs/cli.md's install one-liner is the install task", async () => {
  const docs = await Deno.readTextFile(join(REPO, "docs", "cli.md"));
  const block = /The\s+task is this one-liner[\s\S]*?```sh\n([\s\S]*?)```/.exec(docs)?.[1];
  const task = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json"))).tasks.install;
  equal(block?.replace(/\\\n\s*/g, "").trim(), task);
});
