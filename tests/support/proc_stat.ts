/**
 * What Linux's /proc says about processes, for tests of process lifetimes: a process's state,
 * parent, group and session, and the processes whose command line holds a text.
 *
 * @module
 */

/** The fields of `/proc/<pid>/stat` the tests read. */
export interface ProcStat {
  /** `R`, `S`, … `Z` for a zombie (exited, waiting for its parent to reap it). */
  state: string;
  ppid: number;
  /** Its process group. */
  pgrp: number;
  session: number;
}

/**
 * A process's stat, or `undefined` once it is gone.
 *
 * @param pid The process.
 * @returns Its state, parent, group and session.
 */
export function procStat(pid: number): ProcStat | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // The command name, in parentheses, may hold spaces: the fields start after its ")".
    const [state, ppid, pgrp, session] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state, ppid: Number(ppid), pgrp: Number(pgrp), session: Number(session) };
  } catch {
    return undefined;
  }
}

/**
 * Whether a process runs: it exists and is not a zombie.
 *
 * @param pid The process.
 * @returns `false` once it has exited.
 */
export function running(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== "Z";
}

/**
 * The processes (but this one) whose command line contains `text`, with their parent pid.
 * An exited process has no command line left, so it never matches.
 *
 * @param text What to look for.
 * @returns Their pids and parents' pids.
 */
export function processesWith(text: string): { pid: number; ppid: number }[] {
  const found: { pid: number; ppid: number }[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name) || Number(entry.name) === Deno.pid) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).replaceAll("\0", " ");
      const stat = cmdline.includes(text) ? procStat(Number(entry.name)) : undefined;
      if (stat) found.push({ pid: Number(entry.name), ppid: stat.ppid });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/**
 * The processes whose command line contains `text` that still run after up to `ms`: waits
 * for them to go (a killed process takes moments to exit on a loaded machine).
 *
 * @param text What to look for.
 * @param ms How long to wait at most.
 * @returns Those still running then (none when all went).
 */
export async function runningAfter(
  text: string,
  ms: number,
): Promise<{ pid: number; ppid: number }[]> {
  const until = Date.now() + ms;
  while (true) {
    const left = processesWith(text).filter((process) => running(process.pid));
    if (left.length === 0 || Date.now() >= until) return left;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Whether process `pid` still runs after up to `ms`: waits for it to go (a killed process
 * takes moments to exit on a loaded machine).
 *
 * @param pid The process.
 * @param ms How long to wait at most.
 * @returns `true` when it still runs then.
 */
export async function stillRunningAfter(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (running(pid) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return running(pid);
}
