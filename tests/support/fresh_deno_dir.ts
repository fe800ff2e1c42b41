/**
 * A new `DENO_DIR` that holds the npm packages and remote modules of an existing one and
 * none of its other caches or Tack's stores: a process run with it loads a sandboxed plugin
 * for the first time on this "machine" without downloading anything.
 *
 * @module
 */

/** The npm packages a sandbox child of the fixture plugins mounts. */
const MOUNTED = new Set(["typebox", "re2js"]);

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else if (entry.isFile) await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

/**
 * Makes the folder. The packages a sandbox mounts (TypeBox, re2js) are copied, because
 * the child mounts them by their paths in the new folder; the others, which only the host
 * loads, are linked.
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
