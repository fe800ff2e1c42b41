/**
 * A seed of code caches for a sandbox child. Its own Deno cache is a capped tmpfs (a plugin
 * must not fill the host's disk through the caches Deno writes there), so each start would
 * compile Tack's runner, the TypeBox bundle and the plugin again: ~20 ms. Instead two starts
 * with no permissions and a closed stdin (it loads, reports its manifest, ends) fill a seed
 * once, and every start mounts its files read-only into its tmpfs (Deno reads the caches
 * and fails to add to them; what it would add would be gone with the sandbox anyway). What
 * those runs can leave in the seed is bounded by that tmpfs' cap (no seed where bubblewrap
 * cannot cap it), and checked again on the host.
 *
 * @module
 */

import { dirname } from "node:path";
import { killProcessGroup, spawnGroup } from "../process_group.ts";
import { hostMay } from "./host_may.ts";
import { sha256Hex } from "./sha256_hex.ts";

/** Where the run that fills a seed has it mounted, writable. */
export const SEED_MOUNT = "/tack_seed";

/** The shell that copies a seed out of the run that fills it; without it the filling runs fail, and no seed is used. */
const SEED_SHELL = "/bin/sh";

/**
 * How long the filling starts may take together: a plugin slower than that to load gets no
 * seed (the second load waits for them).
 */
const FILL_TIMEOUT_MS = 5_000;

/** How old a folder a filling run writes to is when its host is surely gone (far past its bound). */
const ABANDONED_FILL_MS = 60_000;

/**
 * The most runs that fill a seed. Deno writes V8's code cache for a module it analysed before,
 * so the second run writes it. Runs that wrote none (two, four in a row on a loaded machine)
 * were the runner's doing: it exited as its stdin ended, before the turn of Deno's event loop
 * that writes the code cache (it now lets that turn pass). The runs go on until every file the
 * runs analysed has its code cached, or a run caches no more than the last (a file analysed
 * but never run: a tool's dynamic import), checked in the databases, not by their size (a run
 * that only wrote the planner's statistics passed for one that wrote the code cache). Runs
 * take ~40 ms for a plugin of a few modules, and all share one time bound.
 */
const MAX_FILL_RUNS = 4;

// Copy what the seed holds in, run Deno (by its absolute path), then copy the caches out (a
// database and its write-ahead log; the shared-memory index is rebuilt when it is opened).
// `cp` is looked up in the system's default PATH (`command -p`), never in the host's PATH,
// where a plugin may write (found by the review: a planted `cp` ran before Deno's permission
// checks).
const COPY_OUT = 'command -p cp "$0"/* "$DENO_DIR"/ 2>/dev/null; "$@"; status=$?; ' +
  'command -p cp "$DENO_DIR"/*_v2 "$DENO_DIR"/*_v2-wal "$0"/ 2>/dev/null; exit $status';

/** Bumped when what a seed holds changes, so seeds of the earlier form are filled again. */
const SEED_FORMAT = 2;

/** What a filled seed holds: Deno's cache databases (and write-ahead logs, in an earlier form). */
const SEED_FILE = /^[a-z0-9_]+_v[0-9]+(-wal)?$/;

/** Makes a sandbox child's command, given the seed folder it fills. */
export type FillCommand = (out: string) => {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
};

/**
 * The command of a run that fills a seed: the child's command behind the shell that copies
 * the caches out (to {@linkcode SEED_MOUNT}) once Deno is done.
 *
 * @param command The child's command (`deno run …`, Deno by its absolute path).
 * @returns The command to run inside the sandbox.
 *
 * @example
 * ```ts
 * import { fillingCommand, SEED_MOUNT } from "./code_cache_seed.ts";
 * import { equal } from "node:assert/strict";
 *
 * const command = fillingCommand(["/usr/bin/deno", "run", "entry.js"]);
 * equal(command[0], "/bin/sh");
 * equal(command[3], SEED_MOUNT);
 * equal(command.slice(4).join(" "), "/usr/bin/deno run entry.js");
 * ```
 */
export function fillingCommand(command: readonly string[]): string[] {
  return [SEED_SHELL, "-c", COPY_OUT, SEED_MOUNT, ...command];
}

/**
 * The files of a filled seed, which a start mounts read-only into its Deno cache; `undefined`
 * when there is no filled seed (another host may have just dropped it: the start goes
 * without).
 *
 * @param dir The seed folder.
 * @returns The files' names, or `undefined`.
 *
 * @example
 * ```ts
 * import { seedFiles } from "./code_cache_seed.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(seedFiles("/no/such/seed"), undefined);
 * ```
 */
export function seedFiles(dir: string): string[] | undefined {
  if (!seedFilled(dir)) return undefined;
  try {
    return [...Deno.readDirSync(dir)]
      .filter((entry) => entry.isFile && SEED_FILE.test(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return undefined;
  }
}

/**
 * Whether a seed folder holds a filled seed (its code cache).
 *
 * @param dir The seed folder.
 * @returns Whether starts may copy it in.
 *
 * @example
 * ```ts
 * import { seedFilled } from "./code_cache_seed.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(seedFilled("/no/such/seed"), false);
 * ```
 */
export function seedFilled(dir: string): boolean {
  return statOf(`${dir}/v8_code_cache_v2`)?.isFile === true;
}

/**
 * Fills a seed folder, once: runs `command` (a sandbox child with no permissions and a closed
 * stdin, its seed mounted writable at {@linkcode SEED_MOUNT}) into a fresh folder beside it
 * until V8's code cache holds every file the runs analysed (the second, usually; four runs at
 * most), settles it and moves it in place. A run that fails, runs that stall past `timeoutMs` in
 * all, or a seed with no code cache, with anything but files, or over `maxBytes`, leaves no seed.
 *
 * @param dir The seed folder.
 * @param command Makes the filling run's command, given the folder it writes to.
 * @param timeoutMs How long the runs may take together.
 * @param maxBytes The most the seed may hold.
 * @returns Whether a seed is there now.
 *
 * @example A run that leaves nothing
 * ```ts
 * import { fillSeed } from "./code_cache_seed.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * const command = () => ({ command: "true", args: [], env: {} });
 * equal(await fillSeed(`${dir}/seed`, command, 5_000, 1 << 20), false);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function fillSeed(
  dir: string,
  command: FillCommand,
  timeoutMs: number,
  maxBytes: number,
): Promise<boolean> {
  if (seedFilled(dir)) return true;
  let out: string | undefined;
  try {
    out = await Deno.makeTempDir({ dir: dirname(dir), prefix: "seed-filling-" });
    const { command: program, args, env } = command(out);
    // The first run fills the dependency analysis, a later one (with it) the code cache.
    let cached = 0;
    const deadline = performance.now() + timeoutMs;
    for (let run = 0; run < MAX_FILL_RUNS; run++) {
      const started = performance.now();
      const child = spawnGroup(program, {
        args: [...args],
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "null",
      });
      // Past the bound its whole group is killed, as runDeno does: a kill from a timer threw
      // for a child Deno had reaped but whose status had not reached this code yet, uncaught,
      // and ended the host (found by the review: 1 in ~2,000 fillings ending at their bound).
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stalled = new Promise<"stalled">((resolve) => {
        timer = setTimeout(() => resolve("stalled"), Math.max(0, deadline - performance.now()));
      });
      const ended = await Promise.race([child.status, stalled]);
      clearTimeout(timer);
      if (ended === "stalled") killProcessGroup(child);
      const { success } = await child.status;
      if (!success || !seedFilled(out)) return false;
      if (run === 0) continue;
      const modules = await modulesIn(out);
      // Done once every file the runs analysed has its code cached (what a top level builds
      // as `data:` or `blob:` modules is not the graph's, and may not fit the tmpfs), or a run
      // cached none the last did not (a file the runs analyse but never run: a tool's dynamic
      // import), or another run would likely not end in time (it would be killed, and the
      // seed lost with it: on a new cache, TypeBox's ~370 modules from npm take runs of ~1 s).
      const all = [...modules.analysed].every((specifier) => modules.cached.has(specifier));
      const before = cached;
      cached = modules.cached.size;
      const late = deadline - performance.now() < performance.now() - started;
      if (cached > 0 && (all || cached === before || late)) break;
    }
    if (cached === 0) return false;
    // Copied out of a capped tmpfs, and checked again here: only files, within the cap.
    if (filesSize(out) > maxBytes) return false;
    await settle(out);
    if (filesSize(out) > maxBytes) return false;
    // Another host may have filled it first: then this copy goes.
    if (await Deno.rename(out, dir).then(() => true, () => false)) out = undefined;
    return seedFilled(dir);
  } catch {
    return false;
  } finally {
    if (out !== undefined) await Deno.remove(out, { recursive: true }).catch(() => {});
  }
}

/**
 * The seed a plugin's starts copy in, filled now if the plugin was started before (a new
 * process, a new load: a plugin loaded once pays nothing for it); `undefined` when there is
 * none: the first load, a host that may not write there, a tmpfs bubblewrap cannot cap, or
 * a failed filling (its top level needs permissions, or takes longer than
 * {@linkcode FILL_TIMEOUT_MS}; remembered for this version, so later loads do not try again).
 *
 * @param cacheDir The plugin's child cache folder (its `gen/file` exists once it started).
 * @param version This version of the plugin: a new one gets a new seed, the old one goes.
 * @param command Makes the filling run's command, given the folder it writes to.
 * @param capped Whether the child's tmpfs is capped (at `maxBytes`).
 * @param maxBytes The tmpfs' cap: the most a seed may hold.
 * @returns The seed folder, or `undefined`.
 *
 * @example A plugin never started
 * ```ts
 * import { readySeed } from "./code_cache_seed.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * const command = () => ({ command: "true", args: [], env: {} });
 * equal(await readySeed(dir, "v1", command, true, 1 << 20), undefined);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readySeed(
  cacheDir: string,
  version: string,
  command: FillCommand,
  capped: boolean,
  maxBytes: number,
): Promise<string | undefined> {
  // A hash of all of it: its tail alone is Tack's runner's fingerprint, the same for every
  // version of the plugin (found by the sandbox attack: a seed outlived the code that filled
  // it, and one version's failed filling kept every later one from a seed).
  // And of this Deno's version: Deno clears a cache another version wrote, which it cannot do
  // in a seed mounted read-only, and compiles everything (found by the review: after an
  // upgrade, every start of a plugin whose code had not changed went without its seed, for good).
  const key = `${SEED_FORMAT}\0${Deno.version.deno}\0${version}`;
  const name = `seed-${(await sha256Hex(key)).slice(0, 16)}`;
  const dir = `${cacheDir}/${name}`;
  if (seedFilled(dir)) return dir;
  const started = statOf(`${cacheDir}/gen/file`)?.isDirectory === true;
  if (!capped || !started || statOf(`${dir}.failed`) !== undefined) return undefined;
  const may = (name: "read" | "write") => hostMay({ name, path: cacheDir });
  if (!may("read") || !may("write")) return undefined; // no prompt, no seed
  for (const entry of Deno.readDirSync(cacheDir)) {
    const path = `${cacheDir}/${entry.name}`;
    const filling = entry.name.startsWith("seed-filling-");
    const earlier = entry.name.startsWith("seed-") && !filling;
    // A filling another host is doing now is younger than its bound; an older one was cut
    // short (its host killed as it waited), and up to the cap stayed on disk for good (found
    // by the review: neither this nor the folder's cleanup removed it).
    const abandoned = filling &&
      Date.now() - (statOf(path)?.mtime?.getTime() ?? Date.now()) > ABANDONED_FILL_MS;
    if (abandoned || earlier && (!entry.name.startsWith(name) || entry.name === name)) {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    }
  }
  if (await fillSeed(dir, command, FILL_TIMEOUT_MS, maxBytes)) return dir;
  await Deno.mkdir(`${dir}.failed`).catch(() => {});
  return undefined;
}

/**
 * Gives each database of a filled seed its query planner's statistics and folds its
 * write-ahead log into it (closing does): a start mounts the databases read-only, and Deno,
 * reading V8's code cache from one without statistics, took ~12 ms to load what takes ~6.5
 * with them (measured by hand). Whether a filling run left them was chance: Deno writes them
 * as it closes a database, which a run that ends as its stdin does may not reach. A bounded
 * `ANALYZE` (`analysis_limit`) writes `sqlite_stat1` only: a full one also samples index keys
 * into `sqlite_stat4`, and a `data:` module's key is the whole module (+8 MB for the test's
 * plugin that compiles ~80 MiB).
 *
 * @throws {Error} When a database cannot be opened or analysed (then no seed is kept).
 */
async function settle(dir: string): Promise<void> {
  const { DatabaseSync } = await import("node:sqlite");
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.isFile || !/_v[0-9]+$/.test(entry.name)) continue;
    const database = new DatabaseSync(`${dir}/${entry.name}`);
    try {
      database.exec("PRAGMA analysis_limit = 1000; ANALYZE;");
    } finally {
      database.close();
    }
  }
}

/** A path's stat, asked first (a host that may not read there gets no prompt), or `undefined`. */
function statOf(path: string): Deno.FileInfo | undefined {
  try {
    return hostMay({ name: "read", path }) ? Deno.statSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The files (`file:` modules) Deno analysed (its dependency analysis cache) and those whose
 * code it cached (V8's code cache) in a filling run's caches, by specifier; a cache that is not
 * there (or not a database Deno wrote) counts as empty.
 */
async function modulesIn(dir: string): Promise<{ analysed: Set<string>; cached: Set<string> }> {
  const { DatabaseSync } = await import("node:sqlite");
  const specifiers = (file: string, table: string) => {
    try {
      const database = new DatabaseSync(`${dir}/${file}`);
      try {
        // Files only: a `data:` module's specifier is the module (1 MiB for the test's plugin).
        const rows = database.prepare(
          `SELECT specifier FROM ${table} WHERE specifier LIKE 'file:%'`,
        ).all();
        return new Set(rows.map((row) => String(row.specifier)));
      } finally {
        database.close();
      }
    } catch {
      return new Set<string>();
    }
  };
  return {
    analysed: specifiers("dep_analysis_cache_v2", "moduleinfocache"),
    cached: specifiers("v8_code_cache_v2", "codecache"),
  };
}

/** The bytes of a folder's files; anything but a file there counts as too much. */
function filesSize(dir: string): number {
  let total = 0;
  for (const entry of Deno.readDirSync(dir)) {
    total += entry.isFile ? Deno.statSync(`${dir}/${entry.name}`).size : Infinity;
  }
  return total;
}
