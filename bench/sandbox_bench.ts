// Per-call overhead of a sandboxed tool, side by side in one run: in-process, a raw pipe
// round trip of the same bytes (the floor, `pipe_floor.ts`), a warm process sandbox (under
// bubblewrap where available), a warm worker sandbox; a sandboxed hook on an empty
// transcript and on one of 10,000 messages; and the cold start of a process sandbox next to
// a bare `deno run` child answering one line.
//
//   cd bench && deno bench -A --unstable-worker-options --no-prompt sandbox_bench.ts
//
// Rows of `deno bench` run one after another, so load from other jobs lands on some more
// than others: `sandbox_interleaved.ts` measures the warm rows interleaved in one process.
// Without --unstable-worker-options the worker row is skipped (Deno would end the
// process otherwise).
import { loadPlugin } from "@tack/agent/sdk/sandbox";
import type { AgentTool } from "@tack/agent";
import { bareChildAnswer, ECHO_ARGS } from "./pipe_floor.ts";
import { FIXTURE, setUpSandboxRows } from "./sandbox_rows.ts";
import { npmBundlesBuilt } from "../sdk/sandbox/npm_bundle.ts";

const signal = new AbortController().signal;
const rows = await setUpSandboxRows();
let n = 0;
const ROOT_IMPORT_FIXTURE = new URL(
  "../tests/fixtures/sandbox/root_import_plugin.ts",
  import.meta.url,
).pathname;
const GRANTED_FIXTURE = new URL(
  "../tests/fixtures/sandbox/granted_echo_plugin.ts",
  import.meta.url,
).pathname;
// On an empty cache a first load starts the TypeBox bundle's build and does not wait for
// it: the timed loads come after it is built.
await coldStart(FIXTURE);
await coldStart(ROOT_IMPORT_FIXTURE);
await coldStart(GRANTED_FIXTURE);
await npmBundlesBuilt();

Deno.bench(rows.inProcess.name, { group: "per call", baseline: true }, async () => {
  await rows.inProcess.run();
});

Deno.bench(rows.floor.name, { group: "per call" }, async () => {
  await rows.floor.run();
});

Deno.bench(rows.process.name, { group: "per call" }, async () => {
  await rows.process.run();
});

Deno.bench({
  name: "tool call: warm worker sandbox",
  group: "per call",
  ignore: rows.worker === undefined,
  async fn() {
    await rows.worker!.run();
  },
});

Deno.bench(rows.hookEmpty.name, { group: "hook" }, async () => {
  await rows.hookEmpty.run();
});

Deno.bench(rows.hookLarge.name, { group: "hook" }, async () => {
  await rows.hookLarge.run();
});

/** loadPlugin (process sandbox) + the first echo call + dispose. */
async function coldStart(file: string): Promise<void> {
  const plugin = await loadPlugin(file, { sandbox: true, stderr: "capture" });
  const echo = plugin.tools!.find((tool: AgentTool) => tool.name === "echo")!;
  await echo.execute(ECHO_ARGS, { toolCallId: `c${n++}`, signal });
  await plugin.dispose?.();
}

Deno.bench({
  name: "cold start: loadPlugin (process sandbox) + first call + dispose",
  group: "cold start",
  n: 10,
  warmup: 1,
  // An async function: deno bench awaits only those (an arrow returning the promise is timed
  // as synchronous, and its starts pile up).
  async fn() {
    await coldStart(FIXTURE);
  },
});

// The same tool imported from all of `@tack/agent`: what `@tack/agent/plugin` saves.
Deno.bench({
  name: "cold start, the plugin importing all of @tack/agent",
  group: "cold start",
  n: 10,
  warmup: 1,
  async fn() {
    await coldStart(ROOT_IMPORT_FIXTURE);
  },
});

// A plugin declaring a permission: loaded before, so its manifest is known and it starts
// once (its first load starts twice: the manifest read with no permissions, then its grant).
Deno.bench({
  name: "cold start, a plugin declaring a permission",
  group: "cold start",
  n: 10,
  warmup: 1,
  async fn() {
    await coldStart(GRANTED_FIXTURE);
  },
});

Deno.bench({
  name: "bare child: deno run answering one line (cold start floor)",
  group: "cold start",
  n: 10,
  warmup: 1,
  async fn() {
    await bareChildAnswer(rows.pipe.script);
  },
});

globalThis.addEventListener("unload", () => {
  rows.dispose();
});
