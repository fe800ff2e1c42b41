// A worker process of the run-store tests. `race <kv> <run> <log> <go-file>`: waits for the
// go file, then tries once to resume the run; prints "resumed" or "skipped".
// `listen <kv> <log> <count>`: listens for decided runs and exits after resuming <count>.
import { openRunStore, resumeStoredRun, text } from "@tack/agent";
import { durableOptions } from "./durable_fixture.ts";

const [mode, kvPath, ...rest] = Deno.args;
const store = await openRunStore(kvPath);
const worker = `worker-${Deno.pid}`;
const options = (log: string) =>
  durableOptions(log, [
    (request) => [
      text(`saw ${request.messages.filter((m) => m.role === "toolResult").length} results`),
    ],
  ]);

if (mode === "race") {
  const [runId, log, goFile] = rest;
  console.log("ready");
  while (true) {
    try {
      Deno.statSync(goFile);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
  const agent = await resumeStoredRun(store, runId, worker, options(log));
  console.log(agent ? "resumed" : "skipped");
} else {
  const [log, count] = rest;
  const controller = new AbortController();
  let resumed = 0;
  console.log("ready");
  await store.listen(async (id) => {
    const agent = await resumeStoredRun(store, id, worker, options(log));
    if (agent) console.log(`resumed ${id}`);
    if (agent && ++resumed >= Number(count)) controller.abort();
  }, { signal: controller.signal, pollMs: 20 });
}
store.close();
Deno.exit(0);
