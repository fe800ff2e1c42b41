/**
 * Runs whose state lives in a `RunStore`: start one (it stops at deferred calls, saved as
 * pending), and resume it in whichever worker claims it once people decided.
 *
 * @module
 */

import type { Agent, PromptInput } from "../agent.ts";
import { type AgentOptions, createAgent } from "../create_agent.ts";
import { resumeAgent } from "../resume_agent.ts";
import type { RunStore } from "./run_store.ts";

/** Saves the agent's state at each tool start and end and at each turn's end, in order. */
function checkpoint(agent: Agent, store: RunStore, id: string, worker: string) {
  let chain: Promise<unknown> = Promise.resolve();
  let failure: unknown;
  const unsubscribe = agent.subscribe((event) => {
    if (
      event.type === "tool_execution_start" || event.type === "tool_execution_end" ||
      event.type === "turn_end"
    ) {
      const state = agent.state();
      chain = chain.then(() => store.save(id, state, { status: "running", worker }))
        .catch((error) => (failure ??= error));
    }
  });
  return async () => {
    unsubscribe();
    await chain;
    if (failure) throw failure;
  };
}

/**
 * Starts a run stored under `id`: checkpoints while it runs (so a crash leaves a state a
 * worker can resume, with calls that were executing reported as "may have completed"),
 * then saves it as `pending` (calls wait for people) or `done`.
 *
 * @param store The store.
 * @param id The run's id.
 * @param options The agent's options.
 * @param input The prompt.
 * @param worker Who runs it (default `"starter"`).
 * @returns The agent, after the run stopped.
 *
 * @example
 * ```ts
 * import { openRunStore, scriptedModel, startRun, text } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const store = await openRunStore(":memory:");
 * await startRun(store, "r1", { model: scriptedModel([[text("hi")]]) }, "hello");
 * equal((await store.get("r1"))?.status, "done");
 * store.close();
 * ```
 */
export async function startRun(
  store: RunStore,
  id: string,
  options: AgentOptions,
  input: PromptInput,
  worker = "starter",
): Promise<Agent> {
  const agent = createAgent(options);
  await store.save(id, agent.state(), { status: "running", worker });
  const stop = checkpoint(agent, store, id, worker);
  try {
    await agent.prompt(input);
  } finally {
    await stop();
  }
  await store.save(id, agent.state(), { worker });
  return agent;
}

/**
 * Resumes a stored run in this worker if it can claim it (decided, or its worker's lease
 * expired), with the stored decisions; checkpoints while it runs, then saves it as
 * `pending` or `done`. Of concurrent calls for one run, in any processes, one resumes it.
 *
 * @param store The store.
 * @param id The run's id.
 * @param worker This worker's name.
 * @param options The agent's options (same model and tools as the run's).
 * @returns The agent after the run, or `undefined` when another worker has it (or it is not decided).
 * @throws {Error} (as a rejection) When the decisions do not fit the run (a hash
 * mismatch): the run goes back to `pending` without its decisions, and nothing ran.
 *
 * @example Nothing to resume
 * ```ts
 * import { openRunStore, resumeStoredRun, scriptedModel } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const store = await openRunStore(":memory:");
 * equal(await resumeStoredRun(store, "nope", "w1", { model: scriptedModel([]) }), undefined);
 * store.close();
 * ```
 */
export async function resumeStoredRun(
  store: RunStore,
  id: string,
  worker: string,
  options: AgentOptions,
): Promise<Agent | undefined> {
  const run = await store.claim(id, worker);
  if (!run) return undefined;
  let agent: Agent;
  try {
    agent = await resumeAgent(run.state, options);
  } catch (error) {
    await store.save(id, run.state, { worker });
    throw error;
  }
  const stop = checkpoint(agent, store, id, worker);
  try {
    await agent.resume(run.decisions ?? []);
  } catch (error) {
    await stop();
    await store.save(id, run.state, { worker, status: "pending" });
    throw error;
  }
  await stop();
  await store.save(id, agent.state(), { worker });
  return agent;
}
