/**
 * Runs a test fixture in a network namespace of its own (`unshare -mn`, root on Linux only):
 * its own loopback, set up by a shell script, and an /etc/resolv.conf naming 127.0.0.1, where
 * the fixture serves DNS itself (tests/fixtures/http/test_dns.ts). What the http plugin's
 * rebinding and lookup tests share.
 *
 * @module
 */

import { deepEqual } from "node:assert/strict";
import { childEnv } from "./child_env.ts";

const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/**
 * Whether this machine can run {@linkcode runInOwnNetwork}: Linux, root, and `unshare -mn`.
 *
 * @returns `true` when it can.
 */
export async function canIsolate(): Promise<boolean> {
  if (Deno.build.os !== "linux" || Deno.uid() !== 0) return false;
  const probe = new Deno.Command("unshare", { args: ["-mn", "true"], stderr: "null" });
  return (await probe.output().catch(() => ({ success: false }))).success;
}

/** What {@linkcode runInOwnNetwork} runs. */
export interface OwnNetworkRun {
  /** Shell commands run in the namespace first (addresses, routes), after `ip link set lo up`. */
  setup: string;
  /** The fixture module's path. */
  child: string;
  /** Its arguments. */
  args?: string[];
  /** `deno run` flags beyond `-A --unstable-net` and the repository's config. */
  flags?: string[];
  /** Its environment beyond what a child needs (PATH, HOME, DENO_DIR): nothing else is passed. */
  env?: Record<string, string>;
}

/**
 * Runs the fixture in its own network namespace; it must exit with 0, writing nothing to
 * stderr.
 *
 * @param run The setup, the fixture and what it is given.
 * @returns What it printed, parsed as JSON.
 */
export async function runInOwnNetwork(run: OwnNetworkRun): Promise<unknown> {
  const resolvConf = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(resolvConf, "nameserver 127.0.0.1\n");
    const command = [
      Deno.execPath(),
      "run",
      "-A",
      "--unstable-net",
      ...(run.flags ?? []),
      "--config",
      CONFIG,
      run.child,
      ...(run.args ?? []),
    ].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
    const script = `set -e; ip link set lo up; ${run.setup}; ` +
      `mount --bind '${resolvConf}' /etc/resolv.conf; exec ${command}`;
    // Only what a child needs: a proxy from this machine's environment would take the requests
    // around what the test checks.
    const { stdout, stderr, success } = await new Deno.Command("unshare", {
      args: ["-mn", "bash", "-c", script],
      env: childEnv(run.env ?? {}),
      clearEnv: true,
    }).output();
    deepEqual([success, new TextDecoder().decode(stderr).trim()], [true, ""]);
    return JSON.parse(new TextDecoder().decode(stdout));
  } finally {
    await Deno.remove(resolvConf);
  }
}
