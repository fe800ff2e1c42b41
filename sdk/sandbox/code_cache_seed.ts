/**
 * A seed of code caches for a sandbox child. Its own Deno cache is a capped tmpfs (a plugin
 * must not fill the host's disk through the caches Deno writes there), so each start would
 * compile Tack's runner, the TypeBox bundle and the plugin again: ~20 ms. Instead two starts
 * with no permissions and a closed stdin (it loads, reports its manifest, ends) fill a seed
 * once, and every start copies it into its tmpfs before Deno starts. What those runs can
 * leave in the seed is bounded by that tmpfs' cap.
 *
 * @module
 */

import { dirname } from "node:path";
import { hostMay } from "./host_may.ts";

/** Where a child's seed is mounted (read-only, but for the run that fills it). */
export const SEED_MOUNT = "/tack_seed";

/** The shell that copies the seed in (or out); without it the filling runs fail, and no seed is used. */
export const SEED_SHELL = "/bin/sh";

/** How many runs fill a seed: Deno writes V8's code cache for a module it analysed before. */
const FILL_RUNS = 2;

// Copy in, then run Deno in the shell's place. Filling: the same, then copy the caches out (a
// database and its write-ahead log; the shared-memory index is rebuilt when it is opened).
const COPY_IN = 'cp "$0"/* "$DENO_DIR"/ 2>/dev/null; exec "$@"';
const COPY_OUT = 'cp "$0"/* "$DENO_DIR"/ 2>/dev/null; "$@"; status=$?; ' +
  'cp "$DENO_DIR"/*_v2 "$DENO_DIR"/*_v2-wal "$0"/ 2>/dev/null; exit $status';

/**
 * A child's command behind the shell that copies its seed in (or, `fill`, out once Deno has
 * run).
 *
 * @param command The child's command (`deno run …`).
 * @param fill Whether this run fills the seed (it is mounted writable then, and copied out
 *   when Deno is done).
 * @returns The command to run inside the sandbox.
 *
 * @example
 * ```ts
 * import { SEED_MOUNT, seededCommand } from "./code_cache_seed.ts";
 * import { equal } from "node:assert/strict";
 *
 * const command = seededCommand(["deno", "run", "entry.js"], false);
 * equal(command[0], "/bin/sh");
 * equal(command[3], SEED_MOUNT);
 * equal(command.slice(4).join(" "), "deno run entry.js");
 * ```
 */
export function seededCommand(command: readonly string[], fill: boolean): string[] {
  return [SEED_SHELL, "-c", fill ? COPY_OUT : COPY_IN, SEED_MOUNT, ...command];
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
  return isFile(`${dir}/v8_code_cache_v2`);
}

/**
 * Fills a seed folder, once: runs `command` (a sandbox child with no permissions and a closed
 * stdin, its seed mounted writable at {@linkcode SEED_MOUNT}) twice into a fresh folder beside
 * it, then moves that in place. A run that fails, stalls past `timeoutMs`, or leaves no code cache
 * leaves no seed: starts then go without one, as before.
 *
 * @param dir The seed folder (`<child cache>/seed`).
 * @param command Makes the filling run's command, given the folder it writes to.
 * @param timeoutMs How long the run may take.
 * @returns Whether a seed is there now.
 *
 * @example A run that leaves nothing
 * ```ts
 * import { fillSeed } from "./code_cache_seed.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * const command = () => ({ command: "true", args: [], env: {} });
 * equal(await fillSeed(`${dir}/seed`, command, 5_000), false);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function fillSeed(
  dir: string,
  command: (
    out: string,
  ) => { command: string; args: readonly string[]; env: Record<string, string> },
  timeoutMs: number,
): Promise<boolean> {
  if (seedFilled(dir)) return true;
  let out: string | undefined;
  try {
    out = await Deno.makeTempDir({ dir: dirname(dir), prefix: "seed.filling-" });
    const { command: program, args, env } = command(out);
    // The first run fills the dependency analysis, the second (with it) the code cache.
    for (let run = 0; run < FILL_RUNS; run++) {
      const child = new Deno.Command(program, {
        args: [...args],
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      const { success } = await child.status.finally(() => clearTimeout(timer));
      if (!success || !seedFilled(out)) return false;
    }
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
 * none (the first load, a host that may not write there, a filling run that failed, as
 * one does without `/bin/sh` in the sandbox).
 *
 * @param cacheDir The plugin's child cache folder (its `gen/file` exists once it started).
 * @param command Makes the filling run's command, given the folder it writes to.
 * @param timeoutMs How long each filling run may take.
 * @returns The seed folder, or `undefined`.
 *
 * @example A plugin never started
 * ```ts
 * import { readySeed } from "./code_cache_seed.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * const command = () => ({ command: "true", args: [], env: {} });
 * equal(await readySeed(dir, command, 5_000), undefined);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readySeed(
  cacheDir: string,
  command: (
    out: string,
  ) => { command: string; args: readonly string[]; env: Record<string, string> },
  timeoutMs: number,
): Promise<string | undefined> {
  const dir = `${cacheDir}/seed`;
  if (seedFilled(dir)) return dir;
  // No `/bin/sh` in the sandbox: the filling runs fail, and starts go without a seed.
  if (!isDirectory(`${cacheDir}/gen/file`)) return undefined;
  if (!hostMay({ name: "write", path: cacheDir })) return undefined;
  return await fillSeed(dir, command, timeoutMs) ? dir : undefined;
}

// Asked first: a host that may not read there gets no permission prompt (and no seed).
function isDirectory(path: string): boolean {
  try {
    return hostMay({ name: "read", path }) && Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return hostMay({ name: "read", path }) && Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
