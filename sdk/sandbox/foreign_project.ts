/**
 * What a local plugin's own project (its own `deno.json`) may not ask of the host: the host
 * runs `deno info` and `deno cache` there, with its user's rights, before any sandbox exists.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { namedLockFile, readConfig, workspaceRootOf } from "./deno_config.ts";
import { refuseExpandingNpmrc } from "./expanding_npmrc.ts";
import { pathWithin } from "./path_within.ts";

/** The real path of `path`: its deepest existing ancestor's, plus the rest. */
function realLocation(path: string): string {
  const missing: string[] = [];
  let existing = path;
  for (;;) {
    try {
      return join(Deno.realPathSync(existing), ...missing.reverse());
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return path;
      missing.push(existing.slice(parent.length).replace(/^\/+/, ""));
      existing = parent;
    }
  }
}

/**
 * Refuses a plugin project that would have the host run or write something outside it while
 * preparing the plugin: an `.npmrc` that expands environment variables (they would go to a
 * registry it names), `allowScripts` in its config (npm install scripts would run as the
 * host's user), or a lockfile, `node_modules` or `vendor` folder that lies, as written or
 * through a symlink, outside the project (Deno writes them as it resolves).
 *
 * @param own The plugin's config (its folder and file).
 * @param project The host's project folder.
 * @throws {Error} Saying what the project asks and how to fix it.
 *
 * @example A project that asks for nothing of the kind
 * ```ts
 * import { refuseUnsafeProject } from "./foreign_project.ts";
 *
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/deno.json`, "{}");
 * await refuseUnsafeProject({ dir, file: `${dir}/deno.json` }, undefined);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function refuseUnsafeProject(
  own: { dir: string; file: string },
  project: string | undefined,
): Promise<void> {
  await refuseExpandingNpmrc(own, project);
  const root = await workspaceRootOf(own, project);
  for (const config of new Set([own.file, root.file])) {
    const scripts = (await readConfig(config) as { allowScripts?: unknown } | undefined)
      ?.allowScripts;
    if (scripts !== undefined && scripts !== false) {
      throw new Error(
        `its project's ${
          JSON.stringify(config)
        } sets "allowScripts", so Deno would run npm install scripts as the host's user while preparing it: remove it (a sandboxed plugin's npm packages install without their scripts)`,
      );
    }
  }
  const lock = await namedLockFile(own, project);
  if (lock !== undefined && !pathWithin(lock.path, lock.root.dir)) {
    throw new Error(
      `its project's lockfile ${JSON.stringify(lock.path)} (named in ${
        JSON.stringify(lock.root.file)
      }) is outside that project, where Deno would write it: move it into ${
        JSON.stringify(lock.root.dir)
      }`,
    );
  }
  // Inside as written, but through a symlink (a folder of the plugin's that links elsewhere):
  // Deno follows it as it writes.
  const realRoot = realLocation(root.dir);
  const written = [
    ...(lock === undefined ? [] : [{ what: "lockfile", path: lock.path }]),
    { what: "node_modules folder", path: join(root.dir, "node_modules") },
    { what: "vendor folder", path: join(root.dir, "vendor") },
  ];
  for (const { what, path } of written) {
    const target = realLocation(path);
    if (!pathWithin(target, realRoot)) {
      throw new Error(
        `its project's ${what} ${JSON.stringify(path)} leads through a symlink to ${
          JSON.stringify(target)
        }, outside that project, where Deno would write it: keep it inside ${
          JSON.stringify(root.dir)
        }`,
      );
    }
  }
}
