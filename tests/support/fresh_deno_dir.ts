/**
 * A new `DENO_DIR` that holds the npm packages and remote modules of an existing one and
 * none of its other caches or Tack's stores: a process run with it loads a sandboxed plugin
 * for the first time on this "machine" without downloading anything.
 *
 * @module
 */

import { childEnv } from "./child_env.ts";
import { denoCacheDir } from "../../sdk/sandbox/deno_dir.ts";

/** The npm packages a sandbox child of the fixture plugins mounts. */
const MOUNTED = new Set(["typebox", "re2js"]);

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else if (entry.isFile) await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

/** Hard-links the tree `from` to `to` (`cp -al`): real files, no copy. */
async function linkTree(from: string, to: string): Promise<boolean> {
  try {
    const { success } = await new Deno.Command("cp", {
      args: ["-al", from, to],
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch {
    return false;
  }
}

/**
 * Makes the folder. Its npm packages are hard links to the shared ones (real files: the
 * sandbox mounts them by their paths in the new folder, and Deno loads a package it
 * imports dynamically only from inside its `DENO_DIR`). Across file systems, where links
 * cannot be made, the packages a sandbox mounts (TypeBox, re2js) are copied and the others
 * linked symbolically (enough for a host that imports them statically).
 *
 * @param shared The Deno cache folder to take the packages from.
 * @param dir Where to make it (a new temp folder when left out).
 * @returns The new `DENO_DIR` (the caller removes it).
 */
export async function freshDenoDir(shared: string, dir?: string): Promise<string> {
  dir ??= await Deno.makeTempDir({ prefix: "tack-fresh-deno-dir-" });
  await Deno.mkdir(dir, { recursive: true });
  try {
    await Deno.symlink(`${shared}/remote`, `${dir}/remote`);
  } catch {
    // No remote modules cached.
  }
  if (await linkTree(`${shared}/npm`, `${dir}/npm`)) return dir;
  await Deno.remove(`${dir}/npm`, { recursive: true }).catch(() => {});
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
 * Runs `fn` with a fresh `DENO_DIR` ({@linkcode freshDenoDir}, made from this process's
 * Deno cache) at `<dir>/deno_dir` in a new temp folder `dir`, removed after.
 *
 * @param fn The test body.
 */
export async function withFreshDenoDir(
  fn: (denoDir: string, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-fresh-" }));
  try {
    await fn(await freshDenoDir(await denoCacheDir(), `${dir}/deno_dir`), dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Runs the host script `source` (written beside `denoDir` as `host.js`) in a new process
 * with `denoDir` as its `DENO_DIR` and the repository's config; it must exit with 0.
 *
 * @param source The script.
 * @param denoDir Its `DENO_DIR` (e.g. one {@linkcode withFreshDenoDir} made).
 * @returns Its stdout, parsed as JSON.
 * @throws {Error} When it exits with another code (with its stderr).
 */
export async function runHost(source: string, denoDir: string): Promise<unknown> {
  const root = new URL("../../", import.meta.url).pathname;
  const host = `${denoDir}/../host.js`;
  await Deno.writeTextFile(host, source);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--cached-only", `--config=${root}deno.json`, host],
    env: childEnv({ DENO_DIR: denoDir, NO_COLOR: "1" }),
    clearEnv: true,
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (output.code !== 0) {
    throw new Error(
      `The host exited with ${output.code}: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

/**
 * How many whole TypeBox bundles `denoDir` holds (folders with their `bundle.json`).
 *
 * @param denoDir A `DENO_DIR`.
 * @returns The count (0 without a `tack_bundles` folder).
 */
export async function builtBundles(denoDir: string): Promise<number> {
  let count = 0;
  try {
    for await (const entry of Deno.readDir(`${denoDir}/tack_bundles`)) {
      const list = `${denoDir}/tack_bundles/${entry.name}/bundle.json`;
      if (await Deno.stat(list).then((info) => info.isFile, () => false)) count++;
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return count;
}
