/**
 * Grants that defeat the sandbox, found before anything runs. A `run` grant is judged by
 * what it runs, not by how it is spelled: a bare name is resolved through the sandbox's
 * `PATH`, a path through its symlinks, and both the name as written and the real file's
 * name are checked.
 *
 * @module
 */

import { basename, dirname, resolve } from "node:path";
import type { PluginPermissions } from "../permissions.ts";
import { hostMay, hostRealPath, isExecutableFile, pathFolders } from "./host_may.ts";

// The common programs whose job is to run another program (or code) given in their
// arguments or input: not every program that can run another is here (git, find, make,
// editors, … are warned about below; many more exist), and docs/sandbox.md says so.

// Shells and interpreters, also with a version suffix (`python3.11`, `perl5.36.0`,
// `tclsh8.6`, `node18`, `pypy3`, `zsh-5.9`).
const SHELLS = [
  "sh",
  "bash",
  "rbash",
  "dash",
  "ash",
  "hush",
  "zsh",
  "fish",
  "ksh",
  "mksh",
  "yash",
  "posh",
  "csh",
  "tcsh",
  "nu",
  "xonsh",
  "pwsh",
  "powershell",
  "cmd",
  "busybox",
  "toybox",
];
const INTERPRETERS = [
  "deno",
  "node",
  "nodejs",
  "bun",
  "python",
  "pypy",
  "perl",
  "ruby",
  "irb",
  "php",
  "lua",
  "luajit",
  "tclsh",
  "wish",
  "expect",
  "jshell",
  "Rscript",
  "julia",
  "osascript",
  "awk",
  "gawk",
  "mawk",
  "nawk",
];
const VERSIONED = new RegExp(`^(${[...SHELLS, ...INTERPRETERS].join("|")})(-?[0-9][0-9.]*)?$`);

// The dynamic loader runs any program named in its arguments: `ld.so`,
// `ld-linux-x86-64.so.2`, `ld-2.31.so`, `ld64.so.2`, musl's `ld-musl-*.so.1` and the
// libc it links to.
const LOADER =
  /^(ld(-linux[\w.-]*|-musl[\w.-]*|64)?\.so(\.[0-9]+)*|ld-[0-9][0-9.]*\.so|libc\.musl[\w.-]*\.so(\.[0-9]+)*)$/;

// Launchers: each runs the command in its arguments.
const LAUNCHERS = new Set([
  // with other process attributes
  "env",
  "nice",
  "ionice",
  "chrt",
  "taskset",
  "prlimit",
  "numactl",
  "stdbuf",
  "time",
  "timeout",
  "setarch",
  "linux32",
  "linux64",
  "x86_64",
  "i386",
  "uname26",
  "eatmydata",
  "faketime",
  // in another session, terminal or later
  "setsid",
  "nohup",
  "script",
  "tmux",
  "screen",
  "watch",
  "xargs",
  "flock",
  "run-parts",
  "start-stop-daemon",
  "chpst",
  "ssh-agent",
  "dbus-run-session",
  // under a tracer
  "strace",
  "ltrace",
  "gdb",
  "valgrind",
  // as another user, group, root or namespace
  "fakeroot",
  "sg",
  "newgrp",
  "sudo",
  "su",
  "doas",
  "pkexec",
  "runuser",
  "setpriv",
  "capsh",
  "chroot",
  "systemd-run",
  "bwrap",
  "firejail",
  "proot",
  "unshare",
  "nsenter",
]);

// Programs that run other programs on request (an option, a config setting, a command in
// their input): not refused, since many plugins need them, but warned about. The common
// ones, not every such program: many that look harmless take such an option.
const RUN_ON_REQUEST = new Set([
  "find", // -exec
  "fd", // -x, --exec
  "fdfind",
  "rg", // --pre
  "git", // aliases, hooks, core.sshCommand, core.pager
  "sed", // the `e` command
  "m4", // syscmd, esyscmd
  "sort", // --compress-program
  "split", // --filter
  "install", // --strip-program
  "tar", // --to-command, --use-compress-program, --checkpoint-action
  "zip", // -TT
  "wget", // --use-askpass
  "make",
  "ed",
  "emacs",
  "nano",
  "less", // LESSOPEN
  "more",
  "man",
  "ssh", // ProxyCommand
  "scp",
  "sftp",
  "rsync", // -e
  "sqlite3", // .shell, .system
  "npm", // package scripts
  "npx",
  "yarn",
  "pnpm",
  "pip", // setup.py
  "pip3",
  "cargo", // build scripts
  "go", // go run, go generate
  "docker", // docker run
  "podman",
]);
const VI = /^(n?vim?|ex|view)(\.[a-z0-9]+)?$/; // vi, vim, nvi, nvim, vim.basic, vim.tiny…

// Programs that act as the applet their argv[0] names: one of them runs as the name the
// grant gives it (a link `ls` to busybox is `ls`).
const MULTI_CALL = new Set(["busybox", "toybox"]);

// Paths whose meaning depends on the process that opens them (`/proc/self/exe` is the
// sandbox's deno, `/dev/fd/3` whatever it has open as 3).
const PROCESS_PATH = /^\/(proc(\/|$)|dev\/(fd(\/|$)|std(in|out|err)$))/;

/** A `run` grant entry found to escape or to run others, and what it resolved to. */
export interface RunGrantFinding {
  /** The entry as granted. */
  entry: string;
  /** Why, when its name does not say it (`that is /usr/bin/bash`). */
  note?: string;
}

/** What a plugin's `run` grants let it do beyond its flags. */
export interface RunGrantFindings {
  /** Entries that escape every sandbox (`"*"` for `run: true`): refused unless allowed. */
  escaping: RunGrantFinding[];
  /** Entries for programs that can run others on request: warned about. */
  runOnRequest: RunGrantFinding[];
}

const programName = (path: string) => basename(path).replace(/\.exe$/i, "");

const escapes = (name: string) => VERSIONED.test(name) || LAUNCHERS.has(name) || LOADER.test(name);

const runsOthers = (name: string) => RUN_ON_REQUEST.has(name) || VI.test(name);

const mayRead = (path: string) => hostMay({ name: "read", path });

/** The file a bare name runs: the first executable on `PATH`, as Deno finds it. */
function which(name: string): string | undefined {
  for (const folder of pathFolders()) {
    const candidate = resolve(folder, name);
    // One the host may not look at could be the one that runs: judge by the name only.
    if (!mayRead(candidate)) return undefined;
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * What a grant entry runs, as far as the host may look: its real path, and whether it
 * goes through `/proc` or `/dev/fd` (written so, through a symlink, or through a folder).
 */
function resolveEntry(entry: string): { real?: string; throughProcess: boolean } {
  const path = entry.includes("/") ? resolve(entry) : which(entry);
  if (path === undefined) return { throughProcess: false };
  if (PROCESS_PATH.test(path)) return { throughProcess: true };
  let hop = path;
  for (let i = 0; i < 40 && mayRead(hop); i++) {
    try {
      if (!Deno.lstatSync(hop).isSymlink) break;
      hop = resolve(dirname(hop), Deno.readLinkSync(hop));
    } catch {
      break;
    }
    if (PROCESS_PATH.test(hop)) return { throughProcess: true };
  }
  const folder = hostRealPath(dirname(path));
  if (folder !== undefined && PROCESS_PATH.test(`${folder}/`)) return { throughProcess: true };
  return { real: hostRealPath(path), throughProcess: false };
}

/**
 * Judges each `run` grant by what it runs: `run: true`; a shell, an interpreter (also
 * versioned: `python3.11`), the dynamic loader, a launcher (`env`, `setsid`, `prlimit`,
 * `time`, …) or the deno binary, by the name as written or by the real file a name or
 * symlink resolves to (bare names through the sandbox's `PATH`; only where the host may
 * read, without a prompt); any path under `/proc` or `/dev/fd`. Apart: programs that run
 * others on request (`git`, `find`, `sed`, `sort`, `split`, `rg`, `fd`, `m4`, `tar`, `make`,
 * editors, pagers, `ssh`, …).
 *
 * @param grants Resolved grants.
 * @param denoPath The deno binary's path (default `Deno.execPath()`).
 * @returns The escaping entries and the ones that run others on request.
 *
 * @example A versioned interpreter escapes; git runs others
 * ```ts
 * import { runGrantFindings } from "./grant_warnings.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(runGrantFindings({ run: ["git", "python3.11"] }, "/usr/bin/deno"), {
 *   escaping: [{ entry: "python3.11" }],
 *   runOnRequest: [{ entry: "git" }],
 * });
 * ```
 */
export function runGrantFindings(
  grants: PluginPermissions,
  denoPath: string = Deno.execPath(),
): RunGrantFindings {
  const run = grants.run;
  if (run === true) return { escaping: [{ entry: "*" }], runOnRequest: [] };
  const found: RunGrantFindings = { escaping: [], runOnRequest: [] };
  if (!Array.isArray(run)) return found;
  const deno = hostRealPath(denoPath) ?? denoPath;
  for (const entry of run) {
    const { real, throughProcess } = resolveEntry(entry);
    if (throughProcess) {
      found.escaping.push({
        entry,
        note: "under /proc or /dev/fd: what it runs depends on the process",
      });
      continue;
    }
    const written = programName(entry);
    const that = real === undefined ? undefined : `that is ${real}`;
    let realName = real === undefined ? undefined : programName(real);
    // A multi-call binary is the applet its name as written says.
    if (realName !== undefined && MULTI_CALL.has(realName) && realName !== written) {
      realName = undefined;
    }
    if (escapes(written) || entry === denoPath) found.escaping.push({ entry });
    else if (real === deno || realName !== undefined && escapes(realName)) {
      found.escaping.push({ entry, note: that });
    } else if (runsOthers(written)) found.runOnRequest.push({ entry });
    else if (realName !== undefined && runsOthers(realName)) {
      found.runOnRequest.push({ entry, note: that });
    }
  }
  return found;
}

/**
 * The `run` grants that let a plugin escape its sandbox: `run: true`, a shell, an
 * interpreter, the dynamic loader, a launcher (`env`, `setsid`, `xargs`, `timeout`,
 * `prlimit`, …), the deno binary (a child process gets its own, unrestricted flags), or a
 * path under `/proc` or `/dev/fd`; judged by the name as written and by the real file it
 * resolves to (see {@linkcode runGrantFindings}).
 *
 * @param grants Resolved grants.
 * @param denoPath The deno binary's path (default `Deno.execPath()`).
 * @returns The escaping entries (`"*"` for `run: true`), empty when there are none.
 *
 * @example A shell escapes
 * ```ts
 * import { escapingRunGrants } from "./grant_warnings.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(escapingRunGrants({ run: ["git", "sh"] }, "/usr/bin/deno"), ["sh"]);
 * ```
 */
export function escapingRunGrants(
  grants: PluginPermissions,
  denoPath: string = Deno.execPath(),
): string[] {
  return runGrantFindings(grants, denoPath).escaping.map((found) => found.entry);
}

/**
 * The `run` grants for programs that can run other programs on request (`git` aliases,
 * `find -exec`, `fd -x`, `rg --pre`, `sed`'s `e`, `m4`'s `syscmd`,
 * `sort --compress-program`, `split --filter`, `install --strip-program`,
 * `tar --to-command`, `wget --use-askpass`, `make`, editors, pagers, `ssh`, `rsync -e`,
 * `zip -TT`, `npm` scripts, …): not refused, warned about at load and by `inspectPlugin`.
 * The common ones, not every such program: a safety net, not a guarantee.
 *
 * @param grants Resolved grants.
 * @param denoPath The deno binary's path (default `Deno.execPath()`).
 * @returns Those entries, empty when there are none.
 *
 * @example git can run others
 * ```ts
 * import { runOnRequestGrants } from "./grant_warnings.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(runOnRequestGrants({ run: ["git", "stty"] }, "/usr/bin/deno"), ["git"]);
 * ```
 */
export function runOnRequestGrants(
  grants: PluginPermissions,
  denoPath: string = Deno.execPath(),
): string[] {
  return runGrantFindings(grants, denoPath).runOnRequest.map((found) => found.entry);
}

/**
 * Findings as a list for a message: `"/ws/fmt" (that is /usr/bin/bash), "sh"`.
 *
 * @param findings The entries.
 * @param quote Quote each entry (as JSON).
 * @returns The list.
 *
 * @example Quoted, with a note
 * ```ts
 * import { describeRunGrants } from "./grant_warnings.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   describeRunGrants([{ entry: "/ws/fmt", note: "that is /usr/bin/bash" }, { entry: "sh" }], true),
 *   '"/ws/fmt" (that is /usr/bin/bash), "sh"',
 * );
 * ```
 */
export function describeRunGrants(findings: RunGrantFinding[], quote: boolean): string {
  return findings.map(({ entry, note }) =>
    `${quote ? JSON.stringify(entry) : entry}${note === undefined ? "" : ` (${note})`}`
  ).join(", ");
}

/** What a grant of a program that runs others on request means, after its name. */
export const RUN_ON_REQUEST_WARNING =
  "which can run other programs on request: those escape Deno's flags (and, without an OS layer, everything)";
