/**
 * The manifest is fixed at inspection: its canonical hash names what `inspect` showed
 * (tools, schemas, hooks, declared permissions), and every later start of the plugin's
 * sandbox (the granted one, each restart) must report the same manifest.
 *
 * @module
 */

import { canonicalJson } from "../canonical_json.ts";
import type { PluginManifest } from "./protocol.ts";
import type { SpawnChild } from "./sandbox_connection.ts";

/**
 * The canonical text of a manifest: its JSON with keys sorted at every level.
 *
 * @param manifest What a sandbox reported.
 * @returns The text two equal manifests share.
 *
 * @example Key order does not matter
 * ```ts
 * import { canonicalManifest } from "./manifest_pin.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   canonicalManifest({ name: "p", tools: [], hooks: [] }),
 *   canonicalManifest({ hooks: [], tools: [], name: "p" }),
 * );
 * ```
 */
export function canonicalManifest(manifest: PluginManifest): string {
  return canonicalJson(manifest);
}

/**
 * The hash of a manifest, `sha256-<hex>` of its canonical text: what `inspect` reports
 * and `loadPlugin({ manifestHash })` (or `"manifestHash"` in `tack.jsonc`) pins.
 *
 * @param manifest What a sandbox reported.
 * @returns `sha256-` and 64 hex digits.
 *
 * @example A hash
 * ```ts
 * import { manifestHash } from "./manifest_pin.ts";
 * import { match } from "node:assert/strict";
 *
 * match(await manifestHash({ name: "p", tools: [], hooks: [] }), /^sha256-[0-9a-f]{64}$/);
 * ```
 */
export async function manifestHash(manifest: PluginManifest): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalManifest(manifest));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `sha256-${Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** The reason a sandbox whose manifest changed after it was first read is refused. */
const CHANGED_MANIFEST_REASON =
  "its manifest (tools, schemas, hooks, permissions) differs from the one it reported when it was first read (inspected); it is refused";

/**
 * Wraps a spawner so that a child reporting a manifest other than the pinned one is
 * treated as a child that failed to load (it is killed; its calls fail naming the plugin).
 *
 * @param spawn The spawner.
 * @param pinned The canonical manifest every start must report (`undefined`: not pinned yet).
 * @returns The checking spawner.
 *
 * @example A child that changes its manifest
 * ```ts
 * import { canonicalManifest, pinManifest } from "./manifest_pin.ts";
 * import { equal } from "node:assert/strict";
 *
 * const seen: string[] = [];
 * const spawn = pinManifest((handlers) => {
 *   handlers.onMessage({ type: "manifest", manifest: { name: "p", tools: [], hooks: ["onEvent"] } });
 *   return { send() {}, kill() {}, closed: Promise.resolve(), stderrTail: () => "" };
 * }, () => canonicalManifest({ name: "p", tools: [], hooks: [] }));
 * spawn({ onMessage: (m) => seen.push(m.type), onGarbage() {}, onFault() {}, onExit() {} });
 * equal(seen[0], "fatal");
 * ```
 */
export function pinManifest(spawn: SpawnChild, pinned: () => string | undefined): SpawnChild {
  return (handlers) =>
    spawn({
      ...handlers,
      onMessage(message) {
        const expected = pinned();
        if (
          message.type === "manifest" && expected !== undefined &&
          canonicalManifest(message.manifest) !== expected
        ) {
          handlers.onMessage({ type: "fatal", message: CHANGED_MANIFEST_REASON });
          return;
        }
        handlers.onMessage(message);
      },
    });
}
