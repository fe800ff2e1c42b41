/**
 * Module graph descriptions kept on disk between processes, so a new process loading a
 * plugin it loaded before runs no `deno info` (~20–60 ms): the
 * description is reused while its fingerprint (the graph's files, config and lock) holds.
 *
 * They live in `DENO_DIR/tack_graphs/`, which a sandbox never sees (a child gets its own
 * cache mounted where `DENO_DIR` is): what a description lists is what gets mounted, so a
 * plugin must never be able to write one.
 *
 * @module
 */

import { jsonStore } from "./json_store.ts";
import type { ModuleGraph } from "./module_graph.ts";

/** A graph description and the fingerprint of what it was made from. */
export interface StoredGraph {
  graph: ModuleGraph;
  fingerprint: string;
}

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function isStoredGraph(value: unknown): value is StoredGraph {
  if (!isRecord(value) || typeof value.fingerprint !== "string") return false;
  const graph = value.graph;
  return isRecord(graph) && typeof graph.root === "string" &&
    isStrings(graph.localFiles) && isStrings(graph.dynamicFiles) &&
    isStrings(graph.dataFiles) && isStrings(graph.cacheFiles) &&
    isStrings(graph.npmPackages) && isStrings(graph.remoteHosts) &&
    (graph.lockFile === undefined || typeof graph.lockFile === "string") &&
    (graph.directNpmImports === undefined || isStrings(graph.directNpmImports)) &&
    (graph.npmDependedOn === undefined || isStrings(graph.npmDependedOn)) &&
    isRecord(graph.importMap) && isRecord(graph.importMap.imports) &&
    isRecord(graph.importMap.scopes);
}

/** Bumped (the second argument) when the stored shape or the way a graph is described changes. */
const store = jsonStore("tack_graphs", 4, isStoredGraph);

/**
 * The description stored for `key`, if there is one the host may read, of the right shape
 * (the caller still compares its fingerprint).
 *
 * @param denoDir The host's Deno cache folder.
 * @param key What was described (the specifier and the folder resolving it).
 * @returns The stored description, or `undefined`.
 *
 * @example Nothing stored under a new key
 * ```ts
 * import { readStoredGraph } from "./graph_store.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * equal(await readStoredGraph(dir, "file:///nowhere.ts"), undefined);
 * ```
 */
export function readStoredGraph(
  denoDir: string,
  key: string,
): Promise<StoredGraph | undefined> {
  return store.read(denoDir, key);
}

/**
 * Stores a description for `key` (written whole, then renamed into place, so a process
 * reading at the same time sees the old one or the new one), and keeps the folder to the
 * 256 newest. Failures are ignored: the store only saves time.
 *
 * @param denoDir The host's Deno cache folder.
 * @param key What was described.
 * @param stored The description and its fingerprint.
 *
 * @example Stored, then read back
 * ```ts
 * import { readStoredGraph, writeStoredGraph } from "./graph_store.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * const graph = { root: "file:///p.ts", localFiles: ["/p.ts"], dynamicFiles: [], dataFiles: [],
 *   cacheFiles: [], npmPackages: [], remoteHosts: [], importMap: { imports: {}, scopes: {} } };
 * await writeStoredGraph(dir, "file:///p.ts", { graph, fingerprint: "f" });
 * deepEqual(await readStoredGraph(dir, "file:///p.ts"), { graph, fingerprint: "f" });
 * ```
 */
export function writeStoredGraph(
  denoDir: string,
  key: string,
  stored: StoredGraph,
): Promise<void> {
  return store.write(denoDir, key, stored);
}
