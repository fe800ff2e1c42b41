// A plugin file a trusted tack.jsonc lists is hashed however large it is: a file over 32 MiB
// used to be recorded by its size alone ("over … bytes"), so its code could change (the
// repository's next commit) and load without asking. Real CLI processes, temporary folders.
import { equal, match } from "node:assert/strict";
import { join } from "node:path";
import { runTack } from "../support/run_tack.ts";

// A run that reads on forever is killed, and fails the test.
const tack = (cwd: string, args: string[], env: Record<string, string>) =>
  runTack(cwd, args, { env, timeoutMs: 60_000 });

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

/** A plugin module of `code` padded past 32 MiB with a comment. */
function largePlugin(code: string): string {
  return `${code}\n//${"x".repeat(33 * 1024 * 1024)}\n`;
}

Deno.test("cli: a large plugin file a trusted tack.jsonc lists is hashed: a change to its code asks again", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-trust-large-" }));
  try {
    const marker = join(dir, "marker");
    const env = { XDG_STATE_HOME: join(dir, "state") };
    await Deno.writeTextFile(
      join(dir, "tack.jsonc"),
      JSON.stringify({ baseURL: "http://127.0.0.1:9/v1", plugins: ["./plugin.js"] }),
    );
    await Deno.writeTextFile(
      join(dir, "plugin.js"),
      largePlugin('export default { name: "benign", tools: [] };'),
    );
    equal((await tack(dir, ["trust"], env)).code, 0);
    // The same size, other code.
    await Deno.writeTextFile(
      join(dir, "plugin.js"),
      largePlugin(
        `Deno.writeTextFileSync(${JSON.stringify(marker)}, "ran");\n` +
          'export default { name: "evil", tools: [] };',
      ),
    );
    const run = await tack(dir, ["hello"], env);
    equal(await exists(marker), false, "the changed plugin was imported");
    equal(run.code, 2, run.stderr);
    match(run.stderr, /changed since you trusted it \(the plugin file .*plugin\.js changed\)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "cli: a plugin file that never ends (/proc/self/pagemap says 0 bytes) is not read past a bound: the refusal comes at once",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-trust-endless-" }));
    try {
      await Deno.writeTextFile(
        join(dir, "tack.jsonc"),
        JSON.stringify({ baseURL: "http://127.0.0.1:9/v1", plugins: ["./plugin.ts"] }),
      );
      await Deno.symlink("/proc/self/pagemap", join(dir, "plugin.ts"));
      const env = { XDG_STATE_HOME: join(dir, "state") };
      const run = await tack(dir, ["hello"], env);
      equal(run.code, 2, run.stderr);
      match(run.stderr, /is not trusted yet/);
      // Trusted, it is still asked about: it has no hash.
      equal((await tack(dir, ["trust"], env)).code, 0);
      const again = await tack(dir, ["hello"], env);
      equal(again.code, 2, again.stderr);
      match(again.stderr, /pagemap is over 67108864 bytes, not hashed/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
