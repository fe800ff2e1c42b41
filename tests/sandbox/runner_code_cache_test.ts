// Found by CI: a plugin's seed filling sometimes cached no code at all, run after run, and the
// plugin then went without a seed for that version (seed_version_test failed). Deno writes
// V8's code cache for the modules it compiled in a later turn of its event loop; the runner
// ended with `Deno.exit(0)` as soon as its stdin did, which under load came first (8 of 16
// runs at once wrote no code cache). The runner now lets one turn pass before it exits.
import { deepEqual } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";

const RUNNER = new URL("../../sdk/sandbox/runner.ts", import.meta.url).href;
const RUNS = 16;

/** The `file:` specifiers a Deno cache's table holds. */
function files(cache: string, database: string, table: string): string[] {
  const db = new DatabaseSync(`${cache}/${database}`);
  try {
    return db.prepare(`SELECT specifier FROM ${table} WHERE specifier LIKE 'file:%'`).all()
      .map((row) => String(row.specifier)).sort();
  } finally {
    db.close();
  }
}

Deno.test("a runner whose stdin ends at once leaves the code of every module it loaded cached (16 runs at once)", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-runner-cache-" }));
  try {
    const plugin = `${dir}/plugin.js`;
    await Deno.writeTextFile(plugin, 'export default { name: "p", tools: [] };\n');
    await Deno.writeTextFile(
      `${dir}/entry.js`,
      `import { serveStdio } from ${JSON.stringify(RUNNER)};\n` +
        `import * as plugin from "./plugin.js";\nawait serveStdio(plugin);\n`,
    );
    const config = JSON.stringify({
      specifier: pathToFileURL(plugin).href,
      read: [],
      confined: false,
    });
    const results = await Promise.all(Array.from({ length: RUNS }, async (_, run) => {
      const cache = `${dir}/cache-${run}`;
      const { code } = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-config", "-A", `${dir}/entry.js`, config],
        env: { DENO_DIR: cache },
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).output();
      const analysed = files(cache, "dep_analysis_cache_v2", "moduleinfocache");
      const cached = files(cache, "v8_code_cache_v2", "codecache");
      return { code, all: analysed.length > 0 && cached.join() === analysed.join() };
    }));
    deepEqual(results, Array.from({ length: RUNS }, () => ({ code: 0, all: true })));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
