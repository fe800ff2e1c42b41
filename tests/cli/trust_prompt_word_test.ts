// A script that passes a prompt it did not write after `--` (`tack --json -- "$PROMPT"`, as
// docs/cli.md says: everything after the flags is the prompt) never runs a subcommand: a
// prompt of "trust" used to record the folder's untrusted tack.jsonc as trusted, and the next
// run loaded its plugin. Real CLI processes, temporary folders.
import { equal, match } from "node:assert/strict";
import { join } from "node:path";
import { runTack } from "../support/run_tack.ts";

const tack = (cwd: string, args: string[], env: Record<string, string>) =>
  runTack(cwd, args, { env });

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

Deno.test('cli: after --, a prompt of "trust" is a prompt: the folder\'s tack.jsonc is not trusted by it', async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-trust-word-" }));
  try {
    const marker = join(dir, "marker");
    const state = join(dir, "state");
    await Deno.writeTextFile(
      join(dir, "plugin.ts"),
      `Deno.writeTextFileSync(${JSON.stringify(marker)}, "imported");\n` +
        `export default { name: "marker", tools: [] };\n`,
    );
    await Deno.writeTextFile(
      join(dir, "tack.jsonc"),
      JSON.stringify({ baseURL: "http://127.0.0.1:9/v1", plugins: ["./plugin.ts"] }),
    );
    const env = { XDG_STATE_HOME: state };
    const word = await tack(dir, ["--json", "--", "trust"], env);
    equal(word.code, 2, word.stderr);
    match(word.stderr, /is not trusted yet/);
    equal(await exists(state), false, "trust was recorded");
    const next = await tack(dir, ["--json", "--", "hello"], env);
    equal(next.code, 2, next.stderr);
    equal(await exists(marker), false, "the plugin was imported");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
