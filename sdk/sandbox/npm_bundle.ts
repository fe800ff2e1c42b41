/**
 * TypeBox for a sandbox child, prebuilt as one bundle. TypeBox is ~370 small npm modules,
 * and a child loads every one of them on each start (~40 ms of a ~90 ms cold start);
 * bundled with `deno bundle` (code splitting, so each of its modules exists once across
 * the entry points the graph uses) it loads in ~9 ms.
 *
 * Only when nothing else could hold a second copy: no npm package of the graph may depend on
 * TypeBox (its imports resolve inside npm, not through the import map), and no module may
 * import TypeBox by its `npm:` specifier, so every `typebox` import in the child goes
 * through its import map to the bundle. Otherwise, or when the build fails, it leaves
 * the graph as it is. The first start that asks for a bundle does not wait for it (a build
 * takes ~0.6 s): it loads TypeBox from npm while the bundle is built for the next start.
 * Bundles live in `DENO_DIR/tack_bundles/` (the host's, never mounted
 * writable in a sandbox), one per set of entry points and Deno version.
 *
 * @module
 */

import { hostMay, hostMayUse } from "./host_may.ts";
import { pruneStore } from "./prune_store.ts";
import { sha256Hex } from "./sha256_hex.ts";
import type { ModuleGraph } from "./module_graph.ts";

/** Bumped when the way a bundle is built changes. */
const FORMAT = 2;
/** How many bundles are kept (the most recently used). */
const KEEP = 16;

const TYPEBOX_ENTRY = /^npm:\/?typebox@[^/]+(\/.*)?$/;

/** A built bundle: its files, and the file each npm entry point maps to. */
export interface NpmBundle {
  /** Absolute paths of the bundle's files (to mount read-only). */
  files: string[];
  /** `npm:/typebox@1.4.3/compile` → `file:///…/tack_bundles/<key>/e1.js`. */
  targets: Map<string, string>;
}

/**
 * The TypeBox entry points `graph` resolves, when it may be bundled: no npm package of it
 * depends on TypeBox and no module imports it by `npm:` specifier. Sorted;
 * empty when it may not.
 *
 * @param graph A described module graph.
 * @returns The `npm:/typebox@…` specifiers its import map resolves to.
 *
 * @example A graph where another npm package depends on TypeBox is left alone
 * ```ts
 * import { bundleableEntries } from "./npm_bundle.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const scopes = { "file:///p.ts": { typebox: "npm:/typebox@1.4.3" } };
 * const graph = { root: "file:///p.ts", localFiles: [], dynamicFiles: [], dataFiles: [],
 *   cacheFiles: [], remoteHosts: [], importMap: { imports: {}, scopes } };
 * const npmPackages = ["typebox@1.4.3", "zod@4.6.7", "schemas@1.0.0"];
 * deepEqual(bundleableEntries({ ...graph, npmPackages, npmDependedOn: [] }), ["npm:/typebox@1.4.3"]);
 * deepEqual(bundleableEntries({ ...graph, npmPackages, npmDependedOn: ["typebox@1.4.3"] }), []);
 * ```
 */
export function bundleableEntries(graph: ModuleGraph): string[] {
  // A package importing TypeBox gets npm's copy (its imports resolve inside npm). A graph
  // described without the dependency list is not bundled.
  if (graph.npmDependedOn === undefined) return [];
  if (graph.npmDependedOn.some((id) => /^typebox@/.test(id))) return [];
  // An `npm:typebox…` import the import map does not see would load a second copy.
  if ((graph.directNpmImports ?? []).some((target) => TYPEBOX_ENTRY.test(target))) return [];
  const entries = new Set<string>();
  for (const scope of Object.values(graph.importMap.scopes)) {
    for (const target of Object.values(scope)) {
      if (TYPEBOX_ENTRY.test(target)) entries.add(target);
    }
  }
  return [...entries].sort();
}

const npmSpecifier = (entry: string) => JSON.stringify(entry.replace(/^npm:\/?/, "npm:"));

/**
 * A wrapper per entry point: its named exports, and its default export when it has one (a
 * module without one must not gain one: `import T from "typebox/type"` fails on npm).
 */
function wrapperSource(entry: string, hasDefault: boolean): string {
  const specifier = npmSpecifier(entry);
  return `export * from ${specifier};\n` +
    (hasDefault ? `export { default } from ${specifier};\n` : "");
}

/** Which entry points have a default export, as Deno itself loads them (a `deno run`). */
async function defaultExports(entries: string[], work: string): Promise<boolean[]> {
  await Deno.writeTextFile(
    `${work}/exports.js`,
    `console.log(JSON.stringify(await Promise.all([${
      entries.map((entry) => `import(${npmSpecifier(entry)})`).join(", ")
    }].map(async (module) => "default" in await module))));\n`,
  );
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-config", "--no-lock", "--no-prompt", "exports.js"],
    cwd: work,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

async function filesOf(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile) files.push(`${dir}/${entry.name}`);
  }
  return files.sort();
}

/** What a bundle folder holds: the entries it was built for and its files. */
const CONTENTS = "bundle.json";

/**
 * The bundle's files when `dir` holds a whole bundle for `entries`; `"missing"` when there
 * is no bundle list there (no folder yet); `"broken"` when there is one but it is for other
 * entries or a file it lists is gone.
 */
async function complete(dir: string, entries: string[]): Promise<string[] | "missing" | "broken"> {
  let made: { entries?: unknown; files?: unknown };
  try {
    made = JSON.parse(await Deno.readTextFile(`${dir}/${CONTENTS}`));
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? "missing" : "broken";
  }
  if (JSON.stringify(made.entries) !== JSON.stringify(entries)) return "broken";
  if (!Array.isArray(made.files)) return "broken";
  const files = made.files.map((name) => `${dir}/${name}`);
  for (const file of files) {
    if (!(await Deno.stat(file).then((info) => info.isFile, () => false))) return "broken";
  }
  return files;
}

async function build(entries: string[], dir: string, root: string): Promise<void> {
  const work = `${root}/.build-${crypto.randomUUID()}`;
  await Deno.mkdir(`${work}/out`, { recursive: true });
  try {
    const wrappers = entries.map((_, i) => `e${i}.js`);
    const defaults = await defaultExports(entries, work);
    await Promise.all(
      entries.map((entry, i) =>
        Deno.writeTextFile(`${work}/${wrappers[i]}`, wrapperSource(entry, defaults[i]))
      ),
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--no-config",
        "--no-lock",
        "--code-splitting",
        "--platform=deno",
        "--outdir=out",
        ...wrappers,
      ],
      cwd: work,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
    const files = (await filesOf(`${work}/out`)).map((file) =>
      file.slice(file.lastIndexOf("/") + 1)
    );
    await Deno.writeTextFile(`${work}/out/${CONTENTS}`, JSON.stringify({ entries, files }));
    // Whole or not at all: a process reading at the same time sees no folder or all of it
    // (another process may have put the same bundle there first).
    await Deno.rename(`${work}/out`, dir).catch(async (error) => {
      if (!Array.isArray(await complete(dir, entries))) throw error;
    });
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

/**
 * The bundle for `graph`'s TypeBox entry points when it is built (it is reused after); the
 * first start that asks for it starts its build.
 *
 * @param graph The child's whole graph (the plugin's and the runner's).
 * @param denoDir The host's Deno cache folder.
 * @returns The bundle, or `undefined` when the graph may not be bundled, the host may not
 * write `DENO_DIR` or run `deno`, or the build fails (the child then loads TypeBox from npm).
 *
 * @example A graph without TypeBox has no bundle
 * ```ts
 * import { npmBundleFor } from "./npm_bundle.ts";
 * import { equal } from "node:assert/strict";
 *
 * const graph = { root: "file:///p.ts", localFiles: [], dynamicFiles: [], dataFiles: [],
 *   cacheFiles: [], npmPackages: [], remoteHosts: [], importMap: { imports: {}, scopes: {} } };
 * equal(await npmBundleFor(graph, await Deno.makeTempDir()), undefined);
 * ```
 */
export async function npmBundleFor(
  graph: ModuleGraph,
  denoDir: string,
): Promise<NpmBundle | undefined> {
  const entries = bundleableEntries(graph);
  const root = `${denoDir}/tack_bundles`;
  if (entries.length === 0) return undefined;
  if (!hostMayUse(root) || !hostMay({ name: "run", command: Deno.execPath() })) return undefined;
  try {
    const key = await sha256Hex(`${FORMAT}\0${Deno.version.deno}\0${entries.join("\0")}`);
    const dir = `${root}/${key.slice(0, 32)}`;
    const files = await complete(dir, entries);
    if (!Array.isArray(files)) {
      // Building takes ~0.6 s, ten times what the bundle saves a start: this start loads
      // from npm, and the bundle is built meanwhile for the next one.
      buildInBackground(entries, dir, root, files === "broken");
      return undefined;
    }
    const now = new Date();
    await Deno.utime(dir, now, now);
    const targets = new Map(entries.map((entry, i) => [entry, `file://${dir}/e${i}.js`]));
    return { files, targets };
  } catch {
    return undefined;
  }
}

/** The builds this process started, by bundle folder. */
const building = new Map<string, Promise<void>>();

/**
 * Builds a bundle without holding up the caller (once per folder in a process). Broken (a
 * file removed by hand): removed, then built again. Missing: built; if another host puts a
 * whole one there first, `build` loses the rename and uses it. Failures are dropped: the
 * next start tries again.
 */
function buildInBackground(entries: string[], dir: string, root: string, broken: boolean): void {
  if (building.has(dir)) return;
  const done = (async () => {
    if (broken) await Deno.remove(dir, { recursive: true }).catch(() => {});
    await Deno.mkdir(root, { recursive: true });
    await build(entries, dir, root);
    await pruneStore(root, { keep: KEEP, except: dir, only: (name) => !name.startsWith(".") });
    // Build folders an interrupted host left behind (a live build takes a second).
    await pruneStore(root, {
      keep: 0,
      unusedForMs: 60 * 60 * 1000,
      only: (name) => name.startsWith(".build-"),
    });
  })().catch(() => {}).finally(() => building.delete(dir));
  building.set(dir, done);
}

/**
 * Waits until the bundles this process is building are built (or failed). A host need not
 * call it (the process stays up until they are done); tests do, to load a bundle next.
 *
 * @returns When no build of this process is running.
 *
 * @example Before a host ends with `Deno.exit`
 * ```ts
 * import { npmBundlesBuilt } from "@tack/agent/sdk/sandbox";
 *
 * // … the run, then:
 * await npmBundlesBuilt();
 * ```
 */
export async function npmBundlesBuilt(): Promise<void> {
  await Promise.all([...building.values()]);
}

/**
 * `graph` with its TypeBox entry points resolved to the bundle's files, which join the
 * files to mount.
 *
 * @param graph The child's whole graph.
 * @param bundle Its bundle.
 * @returns The graph the child runs with.
 *
 * @example Remapped
 * ```ts
 * import { withNpmBundle } from "./npm_bundle.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const scopes = { "file:///p.ts": { typebox: "npm:/typebox@1.4.3" } };
 * const graph = { root: "file:///p.ts", localFiles: ["/p.ts"], dynamicFiles: [], dataFiles: [],
 *   cacheFiles: [], npmPackages: ["typebox@1.4.3"], remoteHosts: [], importMap: { imports: {}, scopes } };
 * const bundle = { files: ["/b/e0.js"], targets: new Map([["npm:/typebox@1.4.3", "file:///b/e0.js"]]) };
 * const out = withNpmBundle(graph, bundle);
 * deepEqual(out.importMap.scopes, { "file:///p.ts": { typebox: "file:///b/e0.js" } });
 * deepEqual(out.localFiles, ["/p.ts", "/b/e0.js"]);
 * ```
 */
export function withNpmBundle(graph: ModuleGraph, bundle: NpmBundle): ModuleGraph {
  const scopes: Record<string, Record<string, string>> = {};
  for (const [scope, mappings] of Object.entries(graph.importMap.scopes)) {
    scopes[scope] = Object.fromEntries(
      Object.entries(mappings).map((
        [bare, target],
      ) => [bare, bundle.targets.get(target) ?? target]),
    );
  }
  return {
    ...graph,
    localFiles: [...graph.localFiles, ...bundle.files],
    importMap: { imports: graph.importMap.imports, scopes },
  };
}
