// A sandbox child's Deno cache is a capped tmpfs (a plugin with no permissions had filled the
// host's disk through the code caches Deno keeps there), so its starts would compile
// everything again. A seed of those caches, filled by two starts with no permissions when a
// plugin is loaded a second time, is mounted read-only into each start's tmpfs: what a plugin
// can leave in it is bounded by that tmpfs' cap, whatever its top level compiles.
import { deepEqual, equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { childCacheDir } from "../../sdk/sandbox/child_cache.ts";
import { denoCacheDir } from "../../sdk/sandbox/deno_dir.ts";
import { CHILD_CACHE_BYTES } from "../../sdk/sandbox/bwrap.ts";
import { fillSeed, readySeed, seedFilled } from "../../sdk/sandbox/code_cache_seed.ts";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";
import { skipWithoutBwrap } from "../support/os_layer.ts";

/**
 * A plugin whose top level compiles 20 TypeScript modules of 1 MiB string constants (Deno
 * emits each and caches its code and analysis: ~4 MiB a module, ~80 MiB in all), and one tool.
 */
const COMPILER = `const big = "x".repeat(1 << 20);
for (let i = 0; i < 20; i++) {
  const source = "export default " + JSON.stringify(big + i) + " as string;";
  await import("data:application/typescript," + encodeURIComponent(source));
}
export default { name: "compiler", tools: [{
  name: "echo", description: "Echoes", parameters: { type: "object" },
  execute: ({ text }) => ({ content: [{ type: "text", text: String(text) }] }),
}] };
`;

/** The plugin's seed folder, if one was filled. */
function seedOf(cache: string): string | undefined {
  const name = [...Deno.readDirSync(cache)].map((entry) => entry.name)
    .find((entry) => /^seed-[A-Za-z0-9]+$/.test(entry));
  return name === undefined ? undefined : `${cache}/${name}`;
}

async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    total += entry.isDirectory ? await sizeOf(path) : (await Deno.stat(path)).size;
  }
  return total;
}

Deno.test({
  name:
    "a plugin loaded again gets a seed of code caches, no larger than its tmpfs, whatever its top level compiles",
  ignore: skipWithoutBwrap("the code cache seed"),
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-seed-" }));
    const call = { toolCallId: "1", signal: new AbortController().signal };
    try {
      await Deno.writeTextFile(`${dir}/compiler.js`, COMPILER);
      const url = `file://${dir}/compiler.js`;
      const cache = await childCacheDir(url, await denoCacheDir(), dir);
      for (const load of ["first", "second"]) {
        const plugin = await loadPlugin(`${dir}/compiler.js`, {
          sandbox: true,
          onWarning: () => {},
          startTimeoutMs: 60_000,
        });
        try {
          const result = await plugin.tools![0].execute({ text: load }, call);
          equal(result.content[0].type === "text" && result.content[0].text, load);
        } finally {
          await plugin.dispose?.();
        }
        // A plugin loaded once has no seed; the second load filled it.
        const seed = seedOf(cache);
        equal(seed !== undefined && seedFilled(seed), load === "second", load);
      }
      // Only Deno's caches are copied out (not the emitted modules, not origin storage), from
      // the capped tmpfs: what the top level compiled is there, up to the cap, and no more.
      const seed = await sizeOf(seedOf(cache)!);
      equal(seed > 8 * (1 << 20) && seed <= CHILD_CACHE_BYTES, true, `${seed} bytes`);
      for await (const entry of Deno.readDir(seedOf(cache)!)) {
        equal(/^[a-z0-9_]+_v2(-wal)?$/.test(entry.name), true, entry.name);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(
        await childCacheDir(`file://${dir}/compiler.js`, await denoCacheDir(), dir),
        {
          recursive: true,
        },
      ).catch(() => {});
    }
  },
});

/** The sandbox children (Deno, not bubblewrap) whose command line names `text`. */
function childrenNaming(text: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry.name)) continue;
    let command: string[];
    try {
      command = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).split("\0");
    } catch {
      continue; // gone, or not ours
    }
    if (command[0] === Deno.execPath() && command.some((arg) => arg.includes(text))) {
      found.push(Number(entry.name));
    }
  }
  return found;
}

Deno.test({
  name:
    "a start mounts the seed's files (settled: planner statistics, no write-ahead log) read-only where Deno opens its caches, and leaves the seed as it was",
  ignore: skipWithoutBwrap("the code cache seed"),
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-seed-mount-" }));
    const file = `${dir}/seeded.js`;
    const call = { toolCallId: "1", signal: new AbortController().signal };
    const denoDir = await denoCacheDir();
    const cache = await childCacheDir(`file://${file}`, denoDir, dir);
    try {
      await Deno.writeTextFile(
        file,
        `export default { name: "seeded", tools: [{ name: "echo", description: "Echoes",
  parameters: { type: "object" }, execute: () => ({ content: [{ type: "text", text: "ok" }] }) }] };
`,
      );
      // Written just now, it would be described again on each load, with no version to key a
      // seed by.
      const past = new Date(Date.now() - 60_000);
      await Deno.utime(file, past, past);
      const state = (seed: string) =>
        [...Deno.readDirSync(seed)].map((entry) => {
          const info = Deno.statSync(`${seed}/${entry.name}`);
          return `${entry.name} ${info.size} ${info.mtime?.getTime()}`;
        }).sort();
      let before: string[] = [];
      for (const load of [1, 2, 3]) {
        const plugin = await loadPlugin(file, { sandbox: true, onWarning: () => {} });
        try {
          if (load === 3) {
            const seed = seedOf(cache);
            equal(seed !== undefined && seedFilled(seed), true, "filled at the second load");
            before = state(seed!);
            // Settled on the host once filled: each database holds its query planner's
            // statistics (Deno read V8's code cache ~2× slower from one without them, and a
            // filling run left them by chance) and its write-ahead log folded in.
            deepEqual(
              [...Deno.readDirSync(seed!)].map((entry) => entry.name).sort(),
              ["dep_analysis_cache_v2", "node_analysis_cache_v2", "v8_code_cache_v2"],
            );
            const copy = await Deno.makeTempDir({ prefix: "tack-seed-copy-" });
            try {
              await Deno.copyFile(`${seed}/v8_code_cache_v2`, `${copy}/db`);
              const database = new DatabaseSync(`${copy}/db`);
              const stats = database.prepare("SELECT tbl FROM sqlite_stat1").all()
                .map((row) => row.tbl);
              database.close();
              equal(stats.includes("codecache"), true, JSON.stringify(stats));
            } finally {
              await Deno.remove(copy, { recursive: true });
            }
            const [pid] = childrenNaming(file);
            equal(typeof pid, "number", "its child runs");
            // Each cache database Deno opens is the seed's file, mounted read-only (before, a
            // shell copied the seed into the tmpfs at every start: ~1–3 ms).
            const mounts = Deno.readTextFileSync(`/proc/${pid}/mountinfo`).split("\n")
              .map((line) => line.split(" "));
            for (const name of ["dep_analysis_cache_v2", "v8_code_cache_v2"]) {
              const mount = mounts.find((fields) => fields[4] === `${denoDir}/${name}`);
              equal(mount?.[5].split(",").includes("ro"), true, `${name}: ${mount?.join(" ")}`);
            }
            const open = [...Deno.readDirSync(`/proc/${pid}/fd`)].map((fd) => {
              try {
                return Deno.readLinkSync(`/proc/${pid}/fd/${fd.name}`);
              } catch {
                return "";
              }
            });
            equal(open.includes(`${denoDir}/dep_analysis_cache_v2`), true, open.join(" "));
          }
          const result = await plugin.tools![0].execute({}, call);
          equal(result.content[0].type === "text" && result.content[0].text, "ok");
        } finally {
          await plugin.dispose?.();
        }
      }
      // Deno's writes (the new entry module's analysis) failed: the seed is as it was.
      deepEqual(state(seedOf(cache)!), before);
    } finally {
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(cache, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test("no seed is filled where the tmpfs is not capped, or for a version whose filling failed", async () => {
  const cache = await Deno.makeTempDir({ prefix: "tack-seed-unit-" });
  try {
    await Deno.mkdir(`${cache}/gen/file`, { recursive: true }); // started before
    let runs = 0;
    const failing = () => (runs++, { command: "false", args: [], env: {} });
    // Without --size in bubblewrap the tmpfs has no cap: a seed copied out of it would be
    // unbounded on the host's disk (found by the review: 249 MiB).
    equal(await readySeed(cache, "v1", failing, false, 1 << 20), undefined);
    equal(runs, 0);
    // A failed filling is remembered for its version: later loads do not pay for it again.
    equal(await readySeed(cache, "v1", failing, true, 1 << 20), undefined);
    equal(runs, 1);
    equal(await readySeed(cache, "v1", failing, true, 1 << 20), undefined);
    equal(runs, 1);
    equal(await readySeed(cache, "v2", failing, true, 1 << 20), undefined);
    equal(runs, 2);
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test({
  name: "the seed's copy never runs a cp a plugin planted in a folder on the host's PATH",
  ignore: skipWithoutBwrap("the seed's cp"),
  async fn() {
    // Found by the review: the shell looked `cp` up in the host's PATH, where a plugin with a
    // write grant could put its own, which then ran before Deno's permission checks.
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-seed-path-" }));
    try {
      await Deno.mkdir(`${dir}/bin`);
      await Deno.writeTextFile(
        `${dir}/planter.js`,
        `export default { name: "planter", permissions: { write: [${
          JSON.stringify(`${dir}/bin`)
        }] },
  tools: [{ name: "plant", description: "Plants cp", parameters: { type: "object" },
    execute() {
      const cp = ${JSON.stringify(`${dir}/bin/cp`)};
      Deno.writeTextFileSync(cp, "#!/bin/sh\\n: > ${dir}/bin/pwned\\nexec /bin/cp \\"$@\\"\\n");
      Deno.chmodSync(cp, 0o755);
      return { content: [{ type: "text", text: "planted" }] };
    } }] };
`,
      );
      const host = `import { loadPlugin } from ${
        JSON.stringify(new URL("../../sdk/sandbox/mod.ts", import.meta.url).href)
      };
const call = { toolCallId: "1", signal: new AbortController().signal };
for (let i = 0; i < 3; i++) {
  const plugin = await loadPlugin(${
        JSON.stringify(`${dir}/planter.js`)
      }, { sandbox: true, onWarning: () => {} });
  const result = await plugin.tools[0].execute({}, call);
  console.log(result.content[0].text);
  await plugin.dispose();
}
`;
      await Deno.writeTextFile(`${dir}/host.ts`, host);
      // Written just now, the plugin would be described again on each load (it may still be
      // changing), with no version to key a seed by.
      const past = new Date(Date.now() - 60_000);
      await Deno.utime(`${dir}/planter.js`, past, past);
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          `--config=${new URL("../../deno.json", import.meta.url).pathname}`,
          `${dir}/host.ts`,
        ],
        env: { PATH: `${dir}/bin:${Deno.env.get("PATH")}` },
        stdout: "piped",
        stderr: "piped",
      }).output();
      equal(
        new TextDecoder().decode(output.stdout),
        "planted\nplanted\nplanted\n",
        new TextDecoder().decode(output.stderr),
      );
      const cache = await childCacheDir(`file://${dir}/planter.js`, await denoCacheDir(), dir);
      equal(seedOf(cache) !== undefined, true, "the third load had a seed to copy");
      // The planted cp would have marked its run where the plugin may write.
      equal(await Deno.stat(`${dir}/bin/pwned`).then(() => true, () => false), false);
      await Deno.remove(cache, { recursive: true });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("a filling start that stalls is killed at its bound and leaves nothing behind", async () => {
  const cache = await Deno.makeTempDir({ prefix: "tack-seed-stall-" });
  try {
    const stalling = () => ({ command: "sleep", args: ["30"], env: {} });
    const started = performance.now();
    equal(await fillSeed(`${cache}/seed-v1`, stalling, 200, 1 << 20), false);
    equal(performance.now() - started < 10_000, true, "not held by the stalled run");
    deepEqual([...Deno.readDirSync(cache)], []); // no seed, no half-filled folder
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});

/**
 * A stand-in for Deno's filling runs: each counts itself in `runs` and leaves the caches as
 * SQLite databases: the analysis of files `a` and `b` and of a `data:` module (never cached,
 * as one too big for the tmpfs), and the code cache `plan[n - 1]` gives run n, for good (a run
 * on a loaded machine may end having cached few).
 */
const STAND_IN = `import { DatabaseSync } from "node:sqlite";
const [out, plan, slowUntil] = Deno.args;
const n = Number(Deno.readTextFileSync(out + "/runs").trim() || 0) + 1;
Deno.writeTextFileSync(out + "/runs", String(n));
// With a time (ms since the epoch), run 2 ends no sooner, and a later one never on its own.
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
if (slowUntil && n === 2) await sleep(Number(slowUntil) - Date.now());
if (slowUntil && n > 2) await sleep(60_000);
const open = (file, table) => {
  const database = new DatabaseSync(out + "/" + file);
  database.exec("CREATE TABLE IF NOT EXISTS " + table + " (specifier TEXT PRIMARY KEY)");
  return database;
};
const analysis = open("dep_analysis_cache_v2", "moduleinfocache");
const analysed = ["file:///a.ts", "file:///b.ts", "data:text/javascript,1"];
for (const module of analysed) analysis.prepare("INSERT OR IGNORE INTO moduleinfocache VALUES (?)").run(module);
analysis.close();
const code = open("v8_code_cache_v2", "codecache");
for (const module of JSON.parse(plan)[n - 1] ?? []) code.prepare("INSERT OR IGNORE INTO codecache VALUES (?)").run("file:///" + module + ".ts");
code.close();
`;

Deno.test("the filling runs go on until the code cache holds every file analysed, a run adds none, or another would not end in time, six at most", async () => {
  const cache = await Deno.makeTempDir({ prefix: "tack-seed-runs-" });
  const script = `${cache}/stand_in.js`;
  await Deno.writeTextFile(script, STAND_IN);
  const runs = (plan: string[][], slowUntil?: number) => (out: string) => {
    Deno.writeTextFileSync(`${out}/runs`, "0");
    return {
      command: Deno.execPath(),
      args: [
        "run",
        "-A",
        "--no-config",
        script,
        out,
        JSON.stringify(plan),
        String(slowUntil ?? ""),
      ],
      env: {},
    };
  };
  const ran = (seed: string) => Deno.readTextFileSync(`${seed}/runs`).trim();
  try {
    // The second run caches both: two runs, as before.
    equal(await fillSeed(`${cache}/seed-a`, runs([[], ["a", "b"]]), 20_000, 1 << 20), true);
    equal(ran(`${cache}/seed-a`), "2");
    // The second caches none: before, a seed that saved nothing, for good.
    equal(await fillSeed(`${cache}/seed-b`, runs([[], [], ["a", "b"]]), 20_000, 1 << 20), true);
    equal(ran(`${cache}/seed-b`), "3");
    // The second caches one of the two: before, that seed was kept (the bytes had grown), and
    // every start compiled the other again.
    equal(
      await fillSeed(`${cache}/seed-c`, runs([[], ["a"], ["a", "b"]]), 20_000, 1 << 20),
      true,
    );
    equal(ran(`${cache}/seed-c`), "3");
    // One is never cached (never run): the runs stop once one adds nothing, with a seed.
    equal(await fillSeed(`${cache}/seed-d`, runs([[], ["a"], ["a"]]), 20_000, 1 << 20), true);
    equal(ran(`${cache}/seed-d`), "3");
    // Each run caching one more file, the second ending 4.5 s into a bound of 6 s (1.5 s left,
    // less than it took whenever the first ended within 3 s), the third stalling: the runs
    // stop when another would not end in time, with the seed so far (before, the third was
    // killed at the bound, and the seed lost with it). Not runs of a set length: on a loaded
    // machine Deno's start alone can take a run of 0.7 s past a bound of 2 s.
    const slowUntil = Date.now() + 4_500;
    equal(
      await fillSeed(`${cache}/seed-f`, runs([[], ["a"], ["a", "b"]], slowUntil), 6_000, 1 << 20),
      true,
    );
    equal(ran(`${cache}/seed-f`), "2");
    // Nothing cached until the fourth run (the last).
    equal(
      await fillSeed(`${cache}/seed-g`, runs([[], [], [], ["a", "b"]]), 20_000, 1 << 20),
      true,
    );
    equal(ran(`${cache}/seed-g`), "4");
    // Never written in four runs: no seed.
    equal(await fillSeed(`${cache}/seed-e`, runs([]), 20_000, 1 << 20), false);
    equal(seedFilled(`${cache}/seed-e`), false);
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("the filling runs share one time bound: a slow plugin costs its second load that long at most", async () => {
  const cache = await Deno.makeTempDir({ prefix: "tack-seed-budget-" });
  // Each run takes 1 s and never writes the code cache: four runs would take 4 s. Each marks
  // its start (outside the seed, which goes): within a bound of 1.5 s, no more than two start
  // (counted, not timed: a loaded machine may take longer, never more runs).
  const slow = (out: string) => ({
    command: "/bin/sh",
    args: ["-c", 'echo >> "$1"; sleep 1; touch "$0/v8_code_cache_v2"', out, `${cache}/started`],
    env: {},
  });
  try {
    equal(await fillSeed(`${cache}/seed-v1`, slow, 1_500, 1 << 20), false);
    const started = Deno.readTextFileSync(`${cache}/started`).length;
    equal(started >= 1 && started <= 2, true, `${started} runs started`);
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("a seed another version of Deno filled (before an upgrade) is filled again, not mounted for good", async () => {
  // Found by the review: Deno, finding another version's caches mounted read-only, clears
  // them, fails, and compiles everything at every start; the seed stayed, as filled.
  const cache = await Deno.makeTempDir({ prefix: "tack-seed-deno-" });
  const script = `${cache}/stand_in.js`;
  await Deno.writeTextFile(script, STAND_IN);
  await Deno.mkdir(`${cache}/gen/file`, { recursive: true }); // started before
  let fills = 0;
  const runs = (out: string) => {
    fills++;
    Deno.writeTextFileSync(`${out}/runs`, "0");
    return {
      command: Deno.execPath(),
      args: ["run", "-A", "--no-config", script, out, JSON.stringify([[], ["a", "b"]]), ""],
      env: {},
    };
  };
  const current = Deno.version;
  try {
    // Filled by an earlier Deno (as this process sees it), then loaded after the upgrade.
    Object.defineProperty(Deno, "version", { value: { ...current, deno: "0.0.1" } });
    const earlier = await readySeed(cache, "v1", runs, true, 1 << 20);
    equal(typeof earlier, "string");
    equal(await readySeed(cache, "v1", runs, true, 1 << 20), earlier, "kept for that Deno");
    equal(fills, 1);
    Object.defineProperty(Deno, "version", { value: current });
    const seed = await readySeed(cache, "v1", runs, true, 1 << 20);
    equal(fills, 2, "filled again");
    equal(typeof seed === "string" && seed !== earlier && seedFilled(seed), true);
    equal(seedFilled(earlier!), false, "the earlier one is gone");
  } finally {
    Object.defineProperty(Deno, "version", { value: current });
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("a filling cut short (its host killed) is removed by a later filling, not kept on disk for good", async () => {
  const cache = await Deno.makeTempDir({ prefix: "tack-seed-abandoned-" });
  try {
    await Deno.mkdir(`${cache}/gen/file`, { recursive: true }); // started before
    for (const name of ["seed-filling-old", "seed-filling-now"]) {
      await Deno.mkdir(`${cache}/${name}`);
      await Deno.writeFile(`${cache}/${name}/v8_code_cache_v2`, new Uint8Array(1 << 16));
    }
    const past = new Date(Date.now() - 10 * 60_000);
    await Deno.utime(`${cache}/seed-filling-old`, past, past);
    const failing = () => ({ command: "false", args: [], env: {} });
    equal(await readySeed(cache, "v1", failing, true, 1 << 20), undefined);
    const left = [...Deno.readDirSync(cache)].map((entry) => entry.name)
      .filter((name) => name.startsWith("seed-filling-"));
    // Another host's filling, going on now, stays.
    deepEqual(left, ["seed-filling-now"]);
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("a filling run that ends just as its bound fires never takes the host down with an uncaught error", async () => {
  // Found by the review: the bound's kill, in a timer, threw on a child Deno had reaped but
  // whose status had not reached fillSeed yet ("Child process has already terminated"),
  // uncaught: the host ended. Runs that end within 1–3 ms, bounds of 1–3 ms: on the old code
  // one of ~2,000 such fillings hit it (this test then fails with that uncaught error).
  const cache = await Deno.makeTempDir({ prefix: "tack-seed-kill-" });
  try {
    const quick = () => ({ command: "true", args: [], env: {} });
    for (let i = 0; i < 4_000; i++) {
      equal(await fillSeed(`${cache}/seed`, quick, 1 + (i % 3), 1 << 20), false);
    }
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});
