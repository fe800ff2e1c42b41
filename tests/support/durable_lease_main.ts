// A worker process of the lease and crash tests, and the agent setup it shares with them.
// `start <kv> <run> <log> <leaseMs> <script> <slowMs>` starts the run; `resume <kv> <run>
// <log> <leaseMs> <script>` resumes it once. Each prints one line: "finished", "skipped",
// or "<error name>: <message>".
//
// Scripts: "chain" asks for slow(a, slowMs), then slow(b, 100), then answers; "batch" asks
// for slow(a, slowMs) and deploy(prod) at once (confirm defers the deploy), then answers;
// "answer" answers after slowMs, naming the roles of the messages it was sent; "approve" asks
// for release(r, slowMs), a slow call with effects that confirm defers, then answers.
// The tools append "start <tag> <pid>" and "end <tag> <pid>" to the log.
import {
  type AgentOptions,
  defineTool,
  openRunStore,
  resumeStoredRun,
  scriptedModel,
  type ScriptStep,
  startRun,
  text,
  toolCall,
} from "@tack/agent";
import { confirm } from "@tack/agent/plugins/confirm";
import { Type } from "typebox";

/** The agent of the lease tests: logging tools, confirm deferring the deploy. */
export function leaseOptions(
  log: string,
  script: "chain" | "batch" | "answer" | "approve",
  slowMs = 100,
): AgentOptions {
  const append = (line: string) =>
    Deno.writeTextFileSync(log, `${line} ${Deno.pid}\n`, { append: true });
  const results = (messages: readonly { role: string }[]) =>
    messages.filter((m) => m.role === "toolResult").length;
  const step: ScriptStep = script === "answer"
    ? async (request) => {
      await new Promise((resolve) => setTimeout(resolve, slowMs));
      return [text(`answer to: ${request.messages.map((m) => m.role).join(", ")}`)];
    }
    : script === "approve"
    ? (request) =>
      results(request.messages) === 0
        ? [toolCall("release", { tag: "r", ms: slowMs }, "c1")]
        : [text(`saw ${results(request.messages)} results`)]
    : script === "chain"
    ? (request) =>
      [
        [toolCall("slow", { tag: "a", ms: slowMs }, "c1")],
        [toolCall("slow", { tag: "b", ms: 100 }, "c2")],
      ][results(request.messages)] ?? [text(`saw ${results(request.messages)} results`)]
    : (request) =>
      results(request.messages) === 0
        ? [
          toolCall("slow", { tag: "a", ms: slowMs }, "c1"),
          toolCall("deploy", { target: "prod" }, "c2"),
        ]
        : [text(`saw ${results(request.messages)} results`)];
  const slow = (name: string, effects?: "exec"[]) =>
    defineTool({
      name,
      description: "Waits",
      ...(effects ? { effects } : {}),
      parameters: Type.Object({ tag: Type.String(), ms: Type.Number() }),
      execute: async ({ tag, ms }) => {
        append(`start ${tag}`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        append(`end ${tag}`);
        return { content: [{ type: "text", text: `waited ${ms}` }] };
      },
    });
  return {
    model: scriptedModel([step, step, step, step]),
    tools: [
      slow("slow"),
      slow("release", ["exec"]),
      defineTool({
        name: "deploy",
        description: "Deploys",
        effects: ["exec"],
        parameters: Type.Object({ target: Type.String() }),
        execute: ({ target }) => {
          append(`deploy ${target}`);
          return { content: [{ type: "text", text: `deployed ${target}` }] };
        },
      }),
    ],
    plugins: [confirm({ whenNonInteractive: "defer" })],
  };
}

if (import.meta.main) {
  const [mode, kvPath, runId, log, leaseMs, script, slowMs] = Deno.args;
  const store = await openRunStore(kvPath, { leaseMs: Number(leaseMs) });
  const options = leaseOptions(log, script as "chain" | "approve", Number(slowMs));
  try {
    if (mode === "start") {
      await startRun(store, runId, options, "go", `starter-${Deno.pid}`);
      console.log("finished");
    } else {
      const agent = await resumeStoredRun(store, runId, `worker-${Deno.pid}`, options);
      console.log(agent ? "finished" : "skipped");
    }
  } catch (error) {
    console.log(`${(error as Error).name}: ${(error as Error).message}`);
  }
  store.close();
  Deno.exit(0);
}
