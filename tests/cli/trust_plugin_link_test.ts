// A plugin file that is a link to a file Deno does not let the CLI read by its own path is
// hashed through the link, as it is imported: it used to be recorded as "missing", a value
// that never changes, so the file it links to could change and load without asking. Real CLI
// processes under read grants that cover the project but not the link's target.
import { equal, match } from "node:assert/strict";
import { join } from "node:path";
import { runTack } from "../support/run_tack.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

const tack = (cwd: string, args: string[], state: string) =>
  runTack(cwd, args, {
    env: { XDG_STATE_HOME: state },
    flags: [
      "-P=cli",
      "--no-prompt",
      `--allow-read=${ROOT},${cwd},${state}`,
      `--allow-write=${cwd},${state}`,
    ],
  });

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

Deno.test("cli: a plugin file linking outside the read grant is hashed through the link: a change to its target asks again", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-trust-plink-" }));
  try {
    const repo = join(root, "repo");
    const state = join(root, "state");
    const outside = join(root, "outside.ts");
    const marker = join(repo, "marker");
    await Deno.mkdir(repo);
    await Deno.writeTextFile(outside, 'export default { name: "benign", tools: [] };\n');
    await Deno.symlink(outside, join(repo, "plugin.ts"));
    await Deno.writeTextFile(
      join(repo, "tack.jsonc"),
      JSON.stringify({ baseURL: "http://127.0.0.1:9/v1", plugins: ["./plugin.ts"] }),
    );
    const trusted = await tack(repo, ["trust"], state);
    equal(trusted.code, 0, trusted.stderr);
    await Deno.writeTextFile(
      outside,
      `Deno.writeTextFileSync(${JSON.stringify(marker)}, "ran");\n` +
        'export default { name: "evil", tools: [] };\n',
    );
    const run = await tack(repo, ["hello"], state);
    equal(await exists(marker), false, "the changed plugin was imported");
    equal(run.code, 2, run.stderr);
    match(run.stderr, /changed since you trusted it \(the plugin file .*outside\.ts changed\)/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("cli: a plugin file that is a link to a device is never trusted: every start asks", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-trust-pdev-" }));
  try {
    const repo = join(root, "repo");
    const state = join(root, "state");
    await Deno.mkdir(repo);
    // Imported, /dev/stdin is whatever is piped into tack: its code was trusted as "not a file".
    await Deno.symlink("/dev/stdin", join(repo, "plugin.ts"));
    await Deno.writeTextFile(
      join(repo, "tack.jsonc"),
      JSON.stringify({ baseURL: "http://127.0.0.1:9/v1", plugins: ["./plugin.ts"] }),
    );
    equal((await tack(repo, ["trust"], state)).code, 0);
    const run = await tack(repo, ["hello"], state);
    equal(run.code, 2, run.stderr);
    match(
      run.stderr,
      /changed since you trusted it \(the plugin file \/dev\/\S+ is not a regular file, not hashed\)/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
