// A sandbox's processes end with it: it is one process group (bubblewrap, the sandbox it
// forks, what the plugin starts), killed whole, and what holds its pipes cannot hold up
// dispose, nor outlive a host that exits without it; under bubblewrap, a PID namespace, not
// even a process that leaves the group, nor a host killed by a signal (without bubblewrap
// both are not prevented, and pinned). And a sandbox has no controlling
// terminal, even when its host has one (a granted stty finds none at /dev/tty; the host's
// own file descriptors are another way, not prevented without bubblewrap: docs/sandbox.md).
import { deepEqual, equal } from "node:assert/strict";
import type { Plugin } from "@tack/agent";
import { loadPlugin, NO_GROUP_KILL_WARNING } from "../../sdk/sandbox/mod.ts";
import { callTool } from "../support/sandboxed_calls.ts";
import { skipWithoutBwrap } from "../support/os_layer.ts";
import { processesWith, procStat, running, runningAfter } from "../support/proc_stat.ts";

const LEFTOVER = "./tests/fixtures/sandbox/leftover_plugin.ts";
const LEFTOVER_HOST = "./tests/fixtures/sandbox/leftover_host.ts";

/**
 * The processes matching `text` once there is one (up to 5 s): a spawn may return before the
 * child has exec'd its program (till then its command line is its parent's).
 */
async function appeared(text: string): Promise<{ pid: number; ppid: number }[]> {
  for (let i = 0; i < 50 && processesWith(text).length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return processesWith(text);
}

/** Disposes the plugin; "dispose hung" when it has not returned within 20 s. */
async function disposeOf(plugin: Plugin): Promise<string> {
  let hung: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    Promise.resolve(plugin.dispose!()).then(() => "disposed"),
    new Promise<string>((resolve) => (hung = setTimeout(() => resolve("dispose hung"), 20_000))),
  ]);
  clearTimeout(hung);
  return outcome;
}

for (const confine of [true, false]) {
  Deno.test({
    name: `what a plugin starts ends with its sandbox (${confine ? "bubblewrap" : "no OS layer"})`,
    ignore: confine && skipWithoutBwrap("process lifetime"),
    async fn() {
      const marker = `${1000 + Math.floor(Math.random() * 1000)}.${Date.now() % 1_000_000}`;
      const plugin = await loadPlugin(LEFTOVER, {
        sandbox: true,
        confine,
        stderr: "capture",
        onWarning: () => {},
      });
      try {
        const started = await callTool(plugin, "start", { seconds: marker });
        equal(started.startsWith("started "), true, started);
        equal((await appeared(`sleep ${marker}`)).length, 1);
      } finally {
        // The sleep holds the sandbox's stdout and stderr (it inherited them).
        equal(await disposeOf(plugin), "disposed");
      }
      // Checked at once: dispose returns once the pipes are closed, so whatever held them is
      // gone (a process that has exited has no command line left to match).
      deepEqual(processesWith(`sleep ${marker}`), []);
    },
  });
}

Deno.test({
  name: "a process that leaves the sandbox's group (detached: true) ends with a bubblewrap sandbox",
  ignore: skipWithoutBwrap("process lifetime"),
  async fn() {
    // Out of the group, the group kill misses it: the PID namespace, which ends with its first
    // process, is what takes it down.
    const marker = `${5000 + Math.floor(Math.random() * 1000)}.${Date.now() % 1_000_000}`;
    const plugin = await loadPlugin(LEFTOVER, { sandbox: true, stderr: "capture" });
    try {
      try {
        const started = await callTool(plugin, "start", { seconds: marker, detached: true });
        equal(started.startsWith("started "), true, started);
        const [sleep] = await appeared(`sleep ${marker}`);
        // It did leave: a session and group of its own, not the sandbox's.
        const stat = procStat(sleep.pid)!;
        equal(stat.pgrp, sleep.pid);
        equal(stat.session, sleep.pid);
      } finally {
        equal(await disposeOf(plugin), "disposed");
      }
      deepEqual(await runningAfter(`sleep ${marker}`, 2_000), []);
    } finally {
      for (const { pid } of processesWith(`sleep ${marker}`)) Deno.kill(pid, "SIGKILL");
    }
  },
});

Deno.test("without the OS layer a process that leaves the group (detached: true) outlives dispose() (not prevented)", async () => {
  // docs/sandbox.md, "Not prevented": pinned, so a change in what holds is seen.
  const marker = `${6000 + Math.floor(Math.random() * 1000)}.${Date.now() % 1_000_000}`;
  const plugin = await loadPlugin(LEFTOVER, {
    sandbox: true,
    confine: false,
    stderr: "capture",
    onWarning: () => {},
  });
  try {
    let pid = 0;
    try {
      const started = await callTool(plugin, "start", { seconds: marker, detached: true });
      equal(started.startsWith("started "), true, started);
      pid = Number(started.slice("started ".length));
      deepEqual((await appeared(`sleep ${marker}`)).map((process) => process.pid), [pid]);
    } finally {
      equal(await disposeOf(plugin), "disposed");
    }
    // The sandbox's deno is gone (its group was killed); the sleep, left with no parent there,
    // still runs.
    await new Promise((resolve) => setTimeout(resolve, 300));
    deepEqual(processesWith(`sleep ${marker}`).map((process) => process.pid), [pid]);
    equal(running(pid), true);
  } finally {
    for (const { pid } of processesWith(`sleep ${marker}`)) Deno.kill(pid, "SIGKILL");
  }
});

Deno.test({
  name: "a bubblewrap sandbox is one process group, led by the bubblewrap the host started",
  ignore: skipWithoutBwrap("process lifetime"),
  async fn() {
    // One group is what lets the host kill a sandbox whole at once, even while bubblewrap
    // is still setting it up (before `--die-with-parent` ties the sandbox to it).
    const marker = `${2000 + Math.floor(Math.random() * 1000)}.${Date.now() % 1_000_000}`;
    const plugin = await loadPlugin(LEFTOVER, { sandbox: true, stderr: "capture" });
    try {
      await callTool(plugin, "start", { seconds: marker });
      const sleep = await appeared(`sleep ${marker}`);
      const sandbox = [...processesWith("leftover_plugin.ts"), ...sleep];
      const leaders = sandbox.filter((process) => process.ppid === Deno.pid);
      equal(leaders.length, 1, JSON.stringify(sandbox));
      // bubblewrap, the sandbox's init, deno, and the sleep deno started.
      equal(sandbox.length >= 4, true, JSON.stringify(sandbox));
      deepEqual(sandbox.map(({ pid }) => procStat(pid)?.pgrp), sandbox.map(() => leaders[0].pid));
    } finally {
      equal(await disposeOf(plugin), "disposed");
    }
  },
});

Deno.test({
  name: "a sandbox has no controlling terminal even when the host has one (a granted stty)",
  ignore: skipWithoutBwrap("process lifetime"),
  async fn() {
    // `script` runs the host in a pseudo-terminal of its own, as a terminal would.
    const host = `${Deno.execPath()} run -A tests/fixtures/sandbox/tty_host.ts`;
    const out = await new Deno.Command("script", {
      args: ["-qec", host, "/dev/null"],
      stdin: "null",
    }).output();
    const lines = new TextDecoder().decode(out.stdout).replaceAll("\r", "").trim().split("\n");
    deepEqual(lines, [
      "host: 0",
      "confine true: 1: /usr/bin/stty: /dev/tty: No such device or address",
      "confine false: 1: /usr/bin/stty: /dev/tty: No such device or address",
    ]);
  },
});

Deno.test("a host without unrestricted --allow-run cannot kill groups: what a plugin starts survives, dispose still returns", async () => {
  const marker = `${3000 + Math.floor(Math.random() * 1000)}.${Date.now() % 1_000_000}`;
  const run = `--allow-run=${Deno.execPath()},sleep,stty`;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-env", run, LEFTOVER_HOST, marker],
    stdin: "null",
    // A dispose that hangs shows as a missing "disposed" line, not as a hung test.
    signal: AbortSignal.timeout(20_000),
  }).output();
  try {
    const lines = new TextDecoder().decode(output.stdout).trim().split("\n");
    const pid = Number(lines[1].slice("started ".length));
    // The sleep kept the sandbox's pipes open: dispose stopped reading them after a while.
    deepEqual(lines, [
      `warning: plugin "leftover": ${NO_GROUP_KILL_WARNING}`,
      `started ${pid}`,
      "disposed",
    ]);
    deepEqual(processesWith(`sleep ${marker}`).map((process) => process.pid), [pid]);
  } finally {
    for (const { pid } of processesWith(`sleep ${marker}`)) Deno.kill(pid, "SIGKILL");
  }
});

Deno.test("a host that exits without dispose() (a second Ctrl-C) takes its sandbox's group with it", async () => {
  const marker = `${4000 + Math.floor(Math.random() * 1000)}.${Date.now() % 1_000_000}`;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", LEFTOVER_HOST, marker, "exit"],
    stdin: "null",
    signal: AbortSignal.timeout(20_000),
  }).output();
  try {
    equal(output.code, 130);
    const lines = new TextDecoder().decode(output.stdout).trim().split("\n");
    equal(lines.length, 1);
    equal(lines[0].startsWith("started "), true, lines[0]);
    // The group was killed (SIGKILL) as the host exited: the sleep (of over an hour) is gone
    // within moments (a loaded machine may take a few to deliver the signal).
    deepEqual(await runningAfter(`sleep ${marker}`, 2_000), []);
  } finally {
    for (const { pid } of processesWith(`sleep ${marker}`)) Deno.kill(pid, "SIGKILL");
  }
});

/**
 * Starts the killed host (`flags`: without the OS layer), waits for its plugin's sleep to have
 * started, then kills the host with SIGKILL (no exit handler runs).
 */
async function killHost(marker: string, layer: "bwrap" | "flags"): Promise<string> {
  const host = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "./tests/fixtures/sandbox/killed_host.ts", marker, layer],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const guard = setTimeout(() => host.kill("SIGKILL"), 20_000);
  let line = "";
  const decoder = new TextDecoder();
  for await (const chunk of host.stdout) {
    line += decoder.decode(chunk, { stream: true });
    if (line.includes("\n")) break;
  }
  const sleeps = (await appeared(`sleep ${marker}`)).length;
  host.kill("SIGKILL");
  const status = await host.status;
  clearTimeout(guard);
  equal(status.signal, "SIGKILL");
  equal(sleeps, 1);
  return line.trim();
}

Deno.test({
  name: "a host killed by a signal takes its bubblewrap sandbox with it (--die-with-parent)",
  ignore: skipWithoutBwrap("process lifetime"),
  async fn() {
    const marker = `${7000 + Math.floor(Math.random() * 1000)}.${Date.now() % 1_000_000}`;
    try {
      const line = await killHost(marker, "bwrap");
      equal(line.startsWith("started "), true, line);
      deepEqual(await runningAfter(`sleep ${marker}`, 2_000), []);
    } finally {
      for (const { pid } of processesWith(`sleep ${marker}`)) Deno.kill(pid, "SIGKILL");
    }
  },
});

Deno.test("without the OS layer what a plugin started outlives a host killed by a signal (not prevented)", async () => {
  // docs/sandbox.md, "Not prevented": the sandbox's deno reads the end of its stdin and exits,
  // what the plugin started keeps running.
  const marker = `${8000 + Math.floor(Math.random() * 1000)}.${Date.now() % 1_000_000}`;
  try {
    const line = await killHost(marker, "flags");
    const pid = Number(line.slice("started ".length));
    equal(line, `started ${pid}`);
    deepEqual(await runningAfter("tests/fixtures/sandbox/leftover_plugin.ts", 2_000), []);
    deepEqual(processesWith(`sleep ${marker}`).map((process) => process.pid), [pid]);
    equal(running(pid), true);
  } finally {
    for (const { pid } of processesWith(`sleep ${marker}`)) Deno.kill(pid, "SIGKILL");
  }
});
