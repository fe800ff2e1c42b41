// Attack on the code cache seed's key (round six of the sandbox attack): the seed was named by
// the last 16 letters of the version string, which are the tail of Tack's runner's fingerprint,
// the same for every version of a plugin and every `options`. So a plugin's seed outlived the
// code that filled it, and a version whose filling failed kept every later version from ever
// getting one (the failure mark had the same name).
import { equal, notEqual } from "node:assert/strict";
import { childCacheDir } from "../../sdk/sandbox/child_cache.ts";
import { denoCacheDir } from "../../sdk/sandbox/deno_dir.ts";
import { seedFilled } from "../../sdk/sandbox/code_cache_seed.ts";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";
import { skipWithoutBwrap } from "../support/os_layer.ts";

/** A plugin with one tool; `broken` makes its top level throw (its filling fails too). */
function source(broken: boolean): string {
  return `${broken ? 'throw new Error("broken");\n' : ""}export default { name: "versioned",
  tools: [{ name: "echo", description: "Echoes", parameters: { type: "object" },
    execute: () => ({ content: [{ type: "text", text: "ok" }] }) }] };
`;
}

/** Writes the plugin, dated in the past (a file changed just now is described again on each load, with no version). */
async function write(file: string, text: string, minutesAgo: number): Promise<void> {
  await Deno.writeTextFile(file, text);
  const past = new Date(Date.now() - minutesAgo * 60_000);
  await Deno.utime(file, past, past);
}

async function load(file: string, options?: unknown): Promise<boolean> {
  try {
    const plugin = await loadPlugin(file, {
      sandbox: true,
      onWarning: () => {},
      stderr: "capture",
      options,
    });
    await plugin.dispose?.();
    return true;
  } catch {
    return false;
  }
}

const seeds = (cache: string) =>
  [...Deno.readDirSync(cache)].map((entry) => entry.name).filter((name) => name.startsWith("seed-"))
    .sort();

Deno.test({
  name:
    "a new version of a plugin gets a new seed: a failed filling of an earlier one does not keep it from one",
  ignore: skipWithoutBwrap("the code cache seed"),
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-seed-version-" }));
    const file = `${dir}/versioned.js`;
    const cache = await childCacheDir(`file://${file}`, await denoCacheDir(), dir);
    try {
      // Version 1's top level throws: it starts (and fails) once, then its filling fails.
      await write(file, source(true), 3);
      equal(await load(file), false);
      equal(await load(file), false);
      const failed = seeds(cache);
      equal(failed.length === 1 && failed[0].endsWith(".failed"), true, failed.join());
      // Version 2 works: its second load has a seed of its own.
      await write(file, source(false), 2);
      equal(await load(file), true);
      const now = seeds(cache);
      equal(now.length === 1 && !now[0].endsWith(".failed"), true, now.join());
      notEqual(now[0], failed[0].replace(/\.failed$/, ""));
      equal(seedFilled(`${cache}/${now[0]}`), true);
      // Version 3 (the same code, another date): version 2's seed goes, a new one is filled.
      await write(file, source(false) + "\n", 1);
      equal(await load(file), true);
      const third = seeds(cache);
      equal(third.length === 1 && third[0] !== now[0], true, third.join());
      // Other factory options, the same code: the same seed (it holds code by its source), not
      // one set of options emptying the other's.
      equal(await load(file, { other: true }), true);
      equal(seeds(cache).join(), third.join());
    } finally {
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(cache, { recursive: true }).catch(() => {});
    }
  },
});
