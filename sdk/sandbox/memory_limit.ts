/**
 * The memory cap of a sandbox process: V8's heap limit, and an OS limit on the process's
 * data segment where `prlimit` (util-linux) is installed.
 *
 * @module
 */

import { hostMay } from "./host_may.ts";

/**
 * What Deno 2.9 reserves at start that Linux counts against `RLIMIT_DATA` (V8's code
 * range and thread stacks, ~560 MB measured: below that `deno run` does not start), on
 * top of the plugin's own memory limit.
 */
const RESERVED_DATA_MB = 640;

const PRLIMIT = ["/usr/bin/prlimit", "/bin/prlimit"];

function usable(path: string): boolean {
  // Asked first: a host that may not read it gets no permission prompt (and no prlimit).
  if (!hostMay({ name: "read", path })) return false;
  try {
    return Deno.statSync(path).isFile &&
      hostMay({ name: "run", command: path });
  } catch {
    return false;
  }
}

/**
 * The `prlimit` binary, where there is one (Linux with util-linux) and this process may
 * run it (`--allow-run=prlimit`); without it only V8's heap is capped.
 *
 * @returns Its path, or `undefined`.
 *
 * @example Found or not
 * ```ts
 * import { prlimitPath } from "./memory_limit.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(["string", "undefined"].includes(typeof prlimitPath()), true);
 * ```
 */
export function prlimitPath(): string | undefined {
  return Deno.build.os === "linux" ? PRLIMIT.find(usable) : undefined;
}

/**
 * The V8 flag that caps the heap at `memoryMb`.
 *
 * @param memoryMb The cap.
 * @returns A `deno run` flag.
 *
 * @example 512 MB
 * ```ts
 * import { heapLimitFlag } from "./memory_limit.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(heapLimitFlag(512), "--v8-flags=--max-old-space-size=512");
 * ```
 */
export function heapLimitFlag(memoryMb: number): string {
  return `--v8-flags=--max-old-space-size=${memoryMb}`;
}

/**
 * The OS limit around a command: `prlimit --data=<bytes> --` where prlimit exists, so
 * memory outside V8's heap (array buffers, native allocations) is capped too.
 *
 * @param memoryMb The plugin's cap; the data segment gets {@linkcode RESERVED_DATA_MB} more.
 * @param prlimit The prlimit binary (default: found on this machine).
 * @returns The words to put before the command (none without prlimit).
 *
 * @example A wrapper
 * ```ts
 * import { osLimitPrefix } from "./memory_limit.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(osLimitPrefix(512, "/usr/bin/prlimit"), ["/usr/bin/prlimit", "--data=1207959552", "--"]);
 * ```
 */
export function osLimitPrefix(
  memoryMb: number,
  prlimit: string | undefined = prlimitPath(),
): string[] {
  if (prlimit === undefined) return [];
  return [prlimit, `--data=${(memoryMb + RESERVED_DATA_MB) * 1024 * 1024}`, "--"];
}
