/**
 * The user's record of the `tack.jsonc` files they trust: one JSON file outside every
 * workspace (`$XDG_STATE_HOME/tack/trusted.json`, else `$HOME/.local/state/tack/trusted.json`),
 * so a cloned repository cannot vouch for itself. It is replaced atomically (a new file, then a
 * rename) and never read or written through a symlink; a corrupt one trusts nothing.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { makePrivateDir, PRIVATE_FILE_MODE } from "../sdk/private_files.ts";
import { writeAllSync } from "../sdk/write_all_sync.ts";
import type { ConfigFingerprint } from "./config_fingerprint.ts";

/** One trusted file: its fingerprint when the user trusted it, and when that was. */
export interface TrustEntry extends ConfigFingerprint {
  /** When it was trusted (ISO 8601). */
  trustedAt: string;
}

/** What {@linkcode readTrustStore} found: the entries, and why it found none, if it is broken. */
export interface TrustStoreContents {
  /** The trusted files (none when the store is missing, corrupt or a symlink). */
  entries: TrustEntry[];
  /** Why an existing store was ignored (corrupt, a symlink, unreadable). */
  warning?: string;
}

/** Deno refused the store's folder to this process: nothing can be trusted. */
export class TrustStoreDenied extends Error {}

/**
 * Where the trust store lives: `$XDG_STATE_HOME/tack/trusted.json`, else
 * `$HOME/.local/state/tack/trusted.json`; `undefined` when neither variable is set.
 *
 * @param env Reads an environment variable (`undefined` when unset or not permitted).
 * @returns The store's path, or `undefined`.
 *
 * @example
 * ```ts
 * import { trustStorePath } from "./trust_store.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(trustStorePath((name) => name === "HOME" ? "/home/ada" : undefined),
 *   "/home/ada/.local/state/tack/trusted.json");
 * equal(trustStorePath((name) => ({ XDG_STATE_HOME: "/s", HOME: "/h" })[name]),
 *   "/s/tack/trusted.json");
 * ```
 */
export function trustStorePath(env: (name: string) => string | undefined): string | undefined {
  const state = env("XDG_STATE_HOME");
  // The XDG spec: a relative value is invalid and is ignored.
  if (state && state.startsWith("/")) return join(state, "tack", "trusted.json");
  const home = env("HOME");
  if (home && home.startsWith("/")) return join(home, ".local", "state", "tack", "trusted.json");
  return undefined;
}

const isHashes = (value: unknown): value is Record<string, string> =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  Object.values(value).every((hash) => typeof hash === "string");

function isImports(value: unknown): boolean {
  if (value === undefined) return true;
  const imports = value as Record<string, unknown> | null;
  return typeof imports === "object" && imports !== null && isHashes(imports.modules) &&
    isHashes(imports.configs) &&
    (imports.problem === undefined || typeof imports.problem === "string");
}

function isEntry(value: unknown): value is TrustEntry {
  if (typeof value !== "object" || value === null) return false;
  const entry = value as Record<string, unknown>;
  return typeof entry.path === "string" && typeof entry.sha256 === "string" &&
    typeof entry.trustedAt === "string" && isHashes(entry.plugins) && isImports(entry.imports);
}

function denied(error: unknown, file: string, access: "read" | "write"): never | void {
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    const folder = dirname(file);
    throw new TrustStoreDenied(
      error instanceof Deno.errors.NotCapable
        ? `Deno does not grant ${access} access to the trust store ${file} ` +
          `(run tack with --allow-read=${folder} --allow-write=${folder})`
        : `the system denies ${access} access to the trust store ${file}: ${error.message}`,
    );
  }
}

/**
 * Reads the trust store. A missing store is empty; a corrupt one, or a symlink, is empty with a
 * warning (nothing is trusted through it).
 *
 * @param file The store's path ({@linkcode trustStorePath}).
 * @returns The entries, and a warning when an existing store was ignored.
 * @throws {TrustStoreDenied} When Deno's permissions (or the system) refuse the store.
 *
 * @example A missing store trusts nothing
 * ```ts
 * import { readTrustStore } from "./trust_store.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(await readTrustStore(`${await Deno.makeTempDir()}/trusted.json`), { entries: [] });
 * ```
 */
export async function readTrustStore(file: string): Promise<TrustStoreContents> {
  let text: string;
  try {
    if ((await Deno.lstat(file)).isSymlink) {
      return {
        entries: [],
        warning: `The trust store ${file} is a symlink: it is not followed, nothing is trusted ` +
          "through it (remove it to record trust again)",
      };
    }
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { entries: [] };
    denied(error, file, "read");
    return {
      entries: [],
      warning: `Cannot read the trust store ${file}: ${(error as Error).message}`,
    };
  }
  try {
    const parsed = JSON.parse(text) as { trusted?: unknown };
    if (!Array.isArray(parsed?.trusted) || !parsed.trusted.every(isEntry)) throw new Error("");
    return { entries: parsed.trusted };
  } catch {
    return {
      entries: [],
      warning: `The trust store ${file} is not valid: nothing in it is trusted`,
    };
  }
}

/**
 * Replaces the trust store with `entries`: written to a new file beside it (created, never
 * opened through a link), then renamed over it, so a reader never sees half of it. A store that
 * is a symlink is refused, not written through; the folder is made open to its owner only.
 *
 * @param file The store's path.
 * @param entries What it will hold.
 * @throws {TrustStoreDenied} When Deno's permissions (or the system) refuse the store.
 * @throws {Error} When the store is a symlink, or the write fails.
 *
 * @example
 * ```ts
 * import { readTrustStore, writeTrustStore } from "./trust_store.ts";
 * import { equal } from "node:assert/strict";
 *
 * const file = `${await Deno.makeTempDir()}/tack/trusted.json`;
 * const entry = { path: "/p/tack.jsonc", sha256: "ab", plugins: {}, trustedAt: "2026-01-01" };
 * await writeTrustStore(file, [entry]);
 * equal((await readTrustStore(file)).entries[0].path, "/p/tack.jsonc");
 * ```
 */
export async function writeTrustStore(file: string, entries: readonly TrustEntry[]): Promise<void> {
  const temporary = `${file}.${crypto.randomUUID()}.tmp`;
  try {
    makePrivateDir(dirname(file));
    const existing = await Deno.lstat(file).catch((error) => {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    });
    if (existing?.isSymlink) {
      throw new Error(`The trust store ${file} is a symlink: it is not written through`);
    }
    const text = JSON.stringify({ version: 1, trusted: entries }, null, 2) + "\n";
    {
      using opened = Deno.openSync(temporary, {
        write: true,
        createNew: true,
        mode: PRIVATE_FILE_MODE,
      });
      writeAllSync(opened, text);
      opened.syncSync();
    }
    await Deno.rename(temporary, file);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    denied(error, file, "write");
    throw error;
  }
}

/**
 * Records a fingerprint as trusted: the store is read again, the file's earlier entry (if any)
 * replaced, and the store written back ({@linkcode writeTrustStore}). A corrupt store is
 * replaced by one holding this entry.
 *
 * @param file The store's path.
 * @param fingerprint What the user trusts.
 * @param at When (default now).
 * @throws {TrustStoreDenied} When Deno's permissions (or the system) refuse the store.
 * @throws {Error} When the store is a symlink, or the write fails.
 *
 * @example
 * ```ts
 * import { readTrustStore, recordTrust } from "./trust_store.ts";
 * import { equal } from "node:assert/strict";
 *
 * const file = `${await Deno.makeTempDir()}/trusted.json`;
 * await recordTrust(file, { path: "/p/tack.jsonc", sha256: "a", plugins: {} });
 * await recordTrust(file, { path: "/p/tack.jsonc", sha256: "b", plugins: {} });
 * const { entries } = await readTrustStore(file);
 * equal(entries.length, 1);
 * equal(entries[0].sha256, "b");
 * ```
 */
export async function recordTrust(
  file: string,
  fingerprint: ConfigFingerprint,
  at: Date = new Date(),
): Promise<void> {
  const { entries } = await readTrustStore(file);
  const { path, sha256, plugins, imports } = fingerprint;
  await writeTrustStore(file, [
    ...entries.filter((entry) => entry.path !== path),
    { path, sha256, plugins, ...imports && { imports }, trustedAt: at.toISOString() },
  ]);
}
