/**
 * What the benchmarks ran on: CPU, cores, memory, Deno and V8 versions, load.
 *
 * @module
 */

/** The machine a benchmark ran on. */
export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  deno: string;
  v8: string;
  /** 1-minute load average when read (other processes compete on a shared box). */
  load: number;
}

function readOr(path: string, fallback: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return fallback;
  }
}

/**
 * Reads the machine's description from `/proc` and `Deno`.
 *
 * @returns The machine (fields fall back to `"unknown"`/0 off Linux).
 */
export function describeMachine(): Machine {
  const cpuinfo = readOr("/proc/cpuinfo", "");
  const cpu = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? "unknown";
  const memKb = Number(/^MemTotal:\s*(\d+)/m.exec(readOr("/proc/meminfo", ""))?.[1] ?? 0);
  return {
    cpu,
    cores: navigator.hardwareConcurrency,
    memoryGiB: Math.round(memKb / 1024 / 1024 * 10) / 10,
    os: `${Deno.build.os} ${Deno.build.arch}`,
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    load: currentLoad(),
  };
}

/**
 * The 1-minute load average.
 *
 * @returns It, or 0 when `/proc/loadavg` cannot be read.
 */
export function currentLoad(): number {
  return Number(readOr("/proc/loadavg", "0").split(" ")[0]) || 0;
}
