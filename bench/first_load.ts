/**
 * A sandbox's first load ever, as a new host process on a machine that never loaded the
 * plugin sees it: `cold_process.ts` in a fresh `DENO_DIR` (no graph description, no TypeBox
 * bundle, no child cache), whose npm packages come from this run's cache, so nothing is
 * downloaded (`tests/support/fresh_deno_dir.ts`: hard links to this run's packages).
 *
 *   cd bench && deno run -A first_load.ts
 *
 * @module
 */

import { denoCacheDir } from "../sdk/sandbox/deno_dir.ts";
import { runColdProcess } from "./run_cold_process.ts";
import { freshDenoDir } from "../tests/support/fresh_deno_dir.ts";

/**
 * Times `cold_process.ts` `runs` times, each in a new process with a fresh `DENO_DIR`.
 *
 * @param runs How many first loads.
 * @returns The times in ms, or why there are none.
 */
export async function firstLoads(runs: number): Promise<number[] | string> {
  const shared = await denoCacheDir();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = await freshDenoDir(shared);
    try {
      const ms = await runColdProcess({ DENO_DIR: dir });
      if (typeof ms === "string") return ms;
      times.push(ms);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
  return times;
}

if (import.meta.main) console.log((await firstLoads(3)).toString());
