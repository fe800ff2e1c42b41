/**
 * A sandbox's first load ever, as a new host process on a machine that never loaded the
 * plugin sees it: `cold_process.ts` in a fresh `DENO_DIR` (no graph description, no TypeBox
 * bundle, no child cache), whose npm packages come from this run's cache, so nothing is
 * downloaded. The packages the sandbox mounts (TypeBox and re2js) are copied (the child
 * mounts them by their paths in the fresh folder); the others, which only the host loads,
 * are linked.
 *
 *   cd bench && deno run -A first_load.ts
 *
 * @module
 */

import { denoCacheDir } from "../sdk/sandbox/deno_dir.ts";
import { runColdProcess } from "./run_cold_process.ts";

/** The npm packages a sandbox child of the fixture plugin mounts. */
const MOUNTED = new Set(["typebox", "re2js"]);

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else if (entry.isFile) await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

/**
 * A new `DENO_DIR` with this run's npm packages and remote modules and nothing else.
 *
 * @param shared This run's Deno cache folder.
 * @returns The new folder (the caller removes it).
 */
export async function freshDenoDir(shared: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "tack-bench-first-load-" });
  try {
    await Deno.symlink(`${shared}/remote`, `${dir}/remote`);
  } catch {
    // No remote modules cached.
  }
  const registry = "npm/registry.npmjs.org";
  await Deno.mkdir(`${dir}/${registry}`, { recursive: true });
  for await (const entry of Deno.readDir(`${shared}/${registry}`)) {
    const from = `${shared}/${registry}/${entry.name}`;
    const to = `${dir}/${registry}/${entry.name}`;
    if (MOUNTED.has(entry.name)) await copyTree(from, to);
    else await Deno.symlink(from, to);
  }
  return dir;
}

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
