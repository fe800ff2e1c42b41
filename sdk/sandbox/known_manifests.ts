/**
 * The manifests sandboxed plugins reported, kept by plugin version, so that loading a
 * plugin again starts one process, not two. A plugin's manifest is first read in a
 * sandbox with no permissions, and the plugin restarted with the permissions it declares;
 * when the same version (its module graph, Tack's runner, its factory options) reported a
 * manifest before, `loadPlugin` starts it with that manifest's permissions at once, and
 * the manifest it reports must be that one, or it is started the long way.
 *
 * They live in memory and in `DENO_DIR/tack_manifests/`, which a sandbox never sees (a
 * child gets its own cache mounted where `DENO_DIR` is). What is stored decides only what
 * a first start is granted, within what `loadPlugin` would grant after reading the
 * manifest; anything that may write `DENO_DIR` may also change the npm packages a sandbox
 * loads.
 *
 * @module
 */

import { jsonStore } from "./json_store.ts";
import type { PluginManifest } from "./protocol.ts";

function isManifest(value: unknown): value is PluginManifest {
  const manifest = value as Partial<PluginManifest> | null;
  return typeof manifest === "object" && manifest !== null && !Array.isArray(manifest) &&
    typeof manifest.name === "string" && Array.isArray(manifest.tools) &&
    Array.isArray(manifest.hooks);
}

/** Bumped (the second argument) when the stored shape changes. */
const store = jsonStore("tack_manifests", 1, isManifest);
/**
 * How many manifests this process keeps in memory: a host that loads plugins with ever new
 * factory options makes a new version each time. Past it the one remembered longest ago is
 * dropped (it is still in `DENO_DIR`).
 */
export const MANIFESTS_IN_MEMORY = 256;

/** Remembered in this process, oldest first. */
const remembered = new Map<string, PluginManifest>();

/**
 * The manifest remembered for a plugin version, from this process or an earlier one.
 *
 * @param denoDir The host's Deno cache folder (`undefined`: memory only).
 * @param key The plugin version ({@linkcode manifestKey}).
 * @returns The manifest, or `undefined`.
 *
 * @example Nothing known for a new version
 * ```ts
 * import { knownManifest } from "./known_manifests.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(await knownManifest(await Deno.makeTempDir(), "a new version"), undefined);
 * ```
 */
export async function knownManifest(
  denoDir: string | undefined,
  key: string,
): Promise<PluginManifest | undefined> {
  const inMemory = remembered.get(key);
  if (inMemory !== undefined || denoDir === undefined) return inMemory;
  return await store.read(denoDir, key);
}

/**
 * Remembers the manifest a plugin version reported (written whole, then renamed into
 * place). Failures are ignored: the store only saves a process start.
 *
 * @param denoDir The host's Deno cache folder (`undefined`: memory only).
 * @param key The plugin version ({@linkcode manifestKey}).
 * @param manifest What it reported.
 *
 * @example Remembered, then known
 * ```ts
 * import { knownManifest, rememberManifest } from "./known_manifests.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * const manifest = { name: "p", tools: [], hooks: [] };
 * await rememberManifest(dir, "v1", manifest);
 * deepEqual(await knownManifest(dir, "v1"), manifest);
 * ```
 *
 * @example Memory keeps the latest {@linkcode MANIFESTS_IN_MEMORY}
 * ```ts
 * import { knownManifest, MANIFESTS_IN_MEMORY, rememberManifest } from "./known_manifests.ts";
 * import { equal } from "node:assert/strict";
 *
 * for (let i = 0; i <= MANIFESTS_IN_MEMORY; i++) {
 *   await rememberManifest(undefined, `memory ${i}`, { name: `p${i}`, tools: [], hooks: [] });
 * }
 * equal(await knownManifest(undefined, "memory 0"), undefined);
 * equal((await knownManifest(undefined, "memory 1"))?.name, "p1");
 * ```
 */
export async function rememberManifest(
  denoDir: string | undefined,
  key: string,
  manifest: PluginManifest,
): Promise<void> {
  remembered.delete(key);
  remembered.set(key, manifest);
  if (remembered.size > MANIFESTS_IN_MEMORY) remembered.delete(remembered.keys().next().value!);
  if (denoDir !== undefined) await store.write(denoDir, key, manifest);
}

/**
 * The version of a plugin as far as its manifest goes: its module URL, its factory
 * options, and the fingerprints of its module graph and of Tack's runner.
 *
 * @param url The plugin module's URL.
 * @param options What its factory is passed.
 * @param fingerprints The graphs' fingerprints; `undefined` when one is not known.
 * @returns The key, or `undefined` when there is none (a fingerprint or the options'
 * JSON is missing).
 *
 * @example
 * ```ts
 * import { manifestKey } from "./known_manifests.ts";
 * import { equal, notEqual } from "node:assert/strict";
 *
 * const key = manifestKey("file:///p.ts", { a: 1 }, ["f1", "f2"]);
 * notEqual(key, manifestKey("file:///p.ts", { a: 2 }, ["f1", "f2"]));
 * notEqual(manifestKey("file:///p.ts", null, ["f1"]), manifestKey("file:///p.ts", undefined, ["f1"]));
 * equal(manifestKey("file:///p.ts", { a: 1 }, ["f1", undefined]), undefined);
 * ```
 */
export function manifestKey(
  url: string,
  options: unknown,
  fingerprints: readonly (string | undefined)[],
): string | undefined {
  if (fingerprints.some((fingerprint) => fingerprint === undefined)) return undefined;
  // As the child is passed them (in its config's JSON): no options are not `null`, which a
  // factory sees as such.
  let json: string | undefined;
  try {
    json = options === undefined ? "none" : JSON.stringify(options);
  } catch {
    return undefined; // a cycle or a bigint: the child could not be passed it either
  }
  if (json === undefined) return undefined;
  return [url, json, ...fingerprints].join("\0");
}
