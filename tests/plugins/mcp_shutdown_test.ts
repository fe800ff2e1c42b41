import { toolCall } from "@tack/agent";
import mcp, { StdioTransport } from "@tack/agent/plugins/mcp";
import { equal, match, notEqual } from "node:assert/strict";
import { firstText, fixtureServer, run } from "./mcp_fixture.ts";
import { procStat, running, stillRunningAfter } from "../support/proc_stat.ts";

/** The fixture server that ignores SIGTERM and outlives its stdin. */
const STUBBORN = fixtureServer("stubborn_server.ts");

/** Whether `kill -0 pid` succeeds: the process exists (a zombie counts). */
async function alive(pid: number): Promise<boolean> {
  const { code } = await new Deno.Command("kill", {
    args: ["-0", String(pid)],
    stderr: "null",
  }).output();
  return code === 0;
}

Deno.test("mcp: dispose() ends a server that ignores SIGTERM and stdin closing", async () => {
  const plugin = await mcp({ name: "stubborn", ...STUBBORN, killGraceMs: 100 });
  const pid = Number(firstText((await run(plugin, [toolCall("stubborn_pid", {})])).results[0]));
  // The server really survives SIGTERM, so only the SIGKILL step can end it.
  Deno.kill(pid, "SIGTERM");
  await new Promise((resolve) => setTimeout(resolve, 200));
  equal(await alive(pid), true);
  await plugin.dispose();
  equal(await alive(pid), false);
});

Deno.test("mcp: a hung server that ignores SIGTERM is killed before its restart", async () => {
  const plugin = await mcp({
    name: "stubborn",
    ...STUBBORN,
    killGraceMs: 100,
    pingTimeoutMs: 100,
  });
  try {
    const before = Number(
      firstText((await run(plugin, [toolCall("stubborn_pid", {})])).results[0]),
    );
    const { results } = await run(plugin, [toolCall("stubborn_freeze", {})], {
      toolTimeoutMs: 200,
    });
    match(firstText(results[0])!, /^Tool stubborn_freeze timed out after 200 ms/);
    const after = await run(plugin, [toolCall("stubborn_pid", {})]);
    notEqual(Number(firstText(after.results[0])), before);
    equal(plugin.servers.get("stubborn")?.starts, 2);
    equal(await alive(before), false);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("StdioTransport: close() escalates to SIGKILL; onclose fires once", async () => {
  const transport = new StdioTransport({ ...STUBBORN, killGraceMs: 50 });
  let closed = 0;
  transport.onclose = () => closed++;
  await transport.start();
  const pid = transport.pid!;
  equal(await alive(pid), true);
  await Promise.all([transport.close(), transport.close(), transport.terminate()]);
  equal(await alive(pid), false);
  equal(closed, 1);
  equal(transport.pid, undefined);
});

Deno.test("StdioTransport: send() after the process exited fails with Not connected", async () => {
  const transport = new StdioTransport({ command: Deno.execPath(), args: ["eval", ""] });
  const closed = new Promise<void>((resolve) => transport.onclose = resolve);
  await transport.start();
  await closed;
  let error: Error | undefined;
  await transport.send({ jsonrpc: "2.0", method: "ping", id: 1 }).catch((e) => error = e);
  equal(error?.message, "Not connected");
  await transport.close();
});

/** A transport whose shell starts `sleep 60` (through `prefix`), then becomes the stubborn server. */
async function withSleeper(prefix: string) {
  const dir = await Deno.makeTempDir();
  const pidFile = `${dir}/sleeper`;
  // The sleeper inherits stdout.
  const transport = new StdioTransport({
    command: "sh",
    args: ["-c", `${prefix}sleep 60 & echo $! > ${pidFile}; exec "$0" "$@"`, ...[
      STUBBORN.command,
      ...STUBBORN.args!,
    ]],
    killGraceMs: 50,
  });
  let closed = 0;
  transport.onclose = () => closed++;
  await transport.start();
  let sleeper = 0;
  while (!(sleeper = Number(await Deno.readTextFile(pidFile).catch(() => "")))) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const cleanup = async () => {
    try {
      Deno.kill(sleeper, "SIGKILL");
    } catch { /* gone */ }
    await Deno.remove(dir, { recursive: true });
  };
  return { transport, sleeper, closed: () => closed, cleanup };
}

Deno.test("StdioTransport: the server runs in a session of its own, so a Ctrl-C in the host's terminal does not reach it", async () => {
  const transport = new StdioTransport({ ...STUBBORN, killGraceMs: 50 });
  await transport.start();
  try {
    const pid = transport.pid!;
    equal(procStat(pid)?.session, pid);
    notEqual(procStat(pid)?.session, procStat(Deno.pid)?.session);
  } finally {
    await transport.close();
  }
});

Deno.test("StdioTransport: what the server started in its process group ends with it", async () => {
  const { transport, sleeper, closed, cleanup } = await withSleeper("");
  try {
    const pid = transport.pid!;
    await transport.close();
    equal(await alive(pid), false);
    // Killed with its group (a loaded machine may take moments to deliver the signal).
    equal(await stillRunningAfter(sleeper, 2_000), false);
    equal(closed(), 1);
  } finally {
    await cleanup();
  }
});

Deno.test("StdioTransport: a child that left the group and holds stdout does not keep close() waiting", async () => {
  const { transport, sleeper, closed, cleanup } = await withSleeper("setsid ");
  try {
    const pid = transport.pid!;
    await transport.close();
    equal(await alive(pid), false);
    equal(closed(), 1);
    // close() returned while the sleeper, out of reach, still held the pipe.
    equal(running(sleeper), true);
  } finally {
    await cleanup();
  }
});

Deno.test("StdioTransport: a host that exits without closing it takes the server's group with it", async () => {
  // The stubborn server ignores its stdin closing and SIGTERM: only the group kill ends it.
  const host = new URL("../fixtures/mcp/exit_host.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    // Its stderr not inherited: a server left running must not hold this test's pipe.
    args: ["run", "-A", host, JSON.stringify({ ...STUBBORN, stderr: "ignore" })],
    stdin: "null",
    signal: AbortSignal.timeout(20_000),
  }).output();
  const pid = Number(new TextDecoder().decode(output.stdout).trim());
  try {
    equal(output.code, 130);
    equal(pid > 0, true);
    // SIGKILLed as the host exited; it may take a moment to be gone.
    equal(await stillRunningAfter(pid, 2_000), false);
  } finally {
    if (running(pid)) Deno.kill(pid, "SIGKILL");
  }
});
