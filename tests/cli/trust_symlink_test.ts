// A cloned repository's tack.jsonc that is a symlink to a file the user trusted elsewhere is
// not trusted through the link: what the file says relative to its folder (an MCP server's
// `sh server.sh`, which runs in the folder tack runs in) would run the repository's code.
// Trust is per folder. Real CLI processes, temporary folders.
import { equal, match } from "node:assert/strict";
import { join } from "node:path";
import { runTack } from "../support/run_tack.ts";
import { trustConfig } from "../support/trust_config.ts";

const tack = (cwd: string, args: string[], env: Record<string, string>) =>
  runTack(cwd, args, { env });

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

Deno.test("cli: a tack.jsonc that is a symlink to a trusted file elsewhere is not trusted: the repository's server.sh does not run", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-trust-link-" }));
  try {
    const mine = join(root, "mine");
    const repo = join(root, "repo");
    const marker = join(root, "marker");
    await Deno.mkdir(mine);
    await Deno.mkdir(repo);
    // The user's own project: an MCP server started with a path relative to the folder.
    await Deno.writeTextFile(
      join(mine, "tack.jsonc"),
      JSON.stringify({
        baseURL: "http://127.0.0.1:9/v1",
        plugins: [{ specifier: "mcp", options: { command: "sh", args: ["server.sh"] } }],
      }),
    );
    await Deno.writeTextFile(join(mine, "server.sh"), "exit 0\n");
    const env = await trustConfig(join(root, "state"), join(mine, "tack.jsonc"));
    // The clone: its tack.jsonc a link to the trusted file, its own server.sh.
    await Deno.symlink("../mine/tack.jsonc", join(repo, "tack.jsonc"));
    await Deno.writeTextFile(join(repo, "server.sh"), `echo ran > ${JSON.stringify(marker)}\n`);

    const run = await tack(repo, ["hello"], env);
    equal(await exists(marker), false, "the repository's server.sh ran");
    equal(run.code, 2, run.stderr);
    match(run.stderr, new RegExp(`^${join(repo, "tack.jsonc")} is not trusted yet`));

    // Trusted in the clone's folder (tack trust there), it is that folder's to run.
    equal((await tack(repo, ["trust"], env)).code, 0);
    await tack(repo, ["hello"], env);
    equal(await exists(marker), true);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
