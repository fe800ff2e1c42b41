// Per-call overhead of a sandboxed tool, side by side in one run: in-process, a warm
// process sandbox (under bubblewrap where available), a warm worker sandbox, and the
// cold start of a process sandbox (load: cache check, manifest, first process).
//
//   deno bench -A --unstable-worker-options bench/sandbox_bench.ts
//
// Without --unstable-worker-options the worker row is skipped (Deno would end the
// process otherwise).
import { loadPlugin } from "../sdk/sandbox/mod.ts";
import { workerOptionsEnabled } from "../sdk/sandbox/worker_isolation.ts";
import type { AgentTool } from "@tack/agent";

const FIXTURE = "./tests/fixtures/sandbox/faulty_plugin.ts";
const signal = new AbortController().signal;
const echo = (plugin: { tools?: readonly AgentTool[] }): AgentTool =>
  plugin.tools!.find((tool) => tool.name === "echo")!;

const inProcess = await loadPlugin(FIXTURE);
const sandboxed = await loadPlugin(FIXTURE, { sandbox: true, stderr: "capture" });
const hasWorkers = workerOptionsEnabled();
const worker = hasWorkers
  ? await loadPlugin(FIXTURE, {
    sandbox: true,
    isolation: "worker",
    stderr: "capture",
    onWarning: () => {},
  })
  : undefined;
if (!hasWorkers) console.error("worker row skipped: run with --unstable-worker-options");

const args = { text: "ping" };
let n = 0;

Deno.bench("tool call: in-process", { group: "per call", baseline: true }, async () => {
  await echo(inProcess).execute(args, { toolCallId: `i${n++}`, signal });
});

Deno.bench("tool call: warm process sandbox", { group: "per call" }, async () => {
  await echo(sandboxed).execute(args, { toolCallId: `s${n++}`, signal });
});

Deno.bench({
  name: "tool call: warm worker sandbox",
  group: "per call",
  ignore: worker === undefined,
  async fn() {
    await echo(worker!).execute(args, { toolCallId: `w${n++}`, signal });
  },
});

Deno.bench({
  name: "cold start: loadPlugin (process sandbox) + first call + dispose",
  group: "cold start",
  n: 10,
  warmup: 1,
  async fn() {
    const plugin = await loadPlugin(FIXTURE, { sandbox: true, stderr: "capture" });
    await echo(plugin).execute(args, { toolCallId: `c${n++}`, signal });
    await plugin.dispose?.();
  },
});

globalThis.addEventListener("unload", () => {
  sandboxed.dispose?.();
  worker?.dispose?.();
});
