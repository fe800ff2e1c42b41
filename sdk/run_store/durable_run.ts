/**
 * Runs whose state lives in a `RunStore`: start one (it stops at deferred calls, saved as
 * pending), and resume it in whichever worker claims it once people decided.
 *
 * @module
 */

import type { Agent, PromptInput } from "../agent.ts";
import { type AgentOptions, createAgent } from "../create_agent.ts";
import { resumeAgent } from "../resume_agent.ts";
import { RunExistsError, RunLostError, type RunStore, type StoredRun } from "./run_store.ts";
import { toUserMessage } from "../agent_init.ts";
import {
  type AgentState,
  type Decision,
  rejectedMessage,
  type StickyDecision,
} from "../agent_state.ts";
import { decisionsProblem } from "../resolve_decisions.ts";
import { createErrorToolResult } from "../../core/create_error_tool_result.ts";
import type { ToolResultMessage } from "../../core/messages.ts";
import { toolCallsOf } from "../../core/messages.ts";

/** Whether a run's transcript ends with the model's last answer (no call to make, nothing to ask). */
function hasFinished(state: AgentState): boolean {
  const last = state.messages.at(-1);
  return last?.role === "assistant" && toolCallsOf(last).length === 0;
}

/**
 * The state of a resumed batch as it starts: the calls `decisions` approve marked as
 * executing, the rejected ones closed with their rejection, the "always" decisions kept. Saved
 * before the batch runs, since approved calls skip the hooks, and so the gate: a worker that
 * takes the run over then reports the approved calls as "may have completed" instead of running
 * them again, and keeps the people's other decisions (the store drops them once the run runs).
 * The state as it was when the decisions do not fit: `agent.resume` refuses them, nothing runs.
 */
function batchUnderWay(state: AgentState, decisions: readonly Decision[]): AgentState {
  if (decisionsProblem(state.pending, decisions) !== undefined) return state;
  const byId = new Map(decisions.map((d) => [d.toolCallId, d]));
  const running: string[] = [];
  const completed: ToolResultMessage[] = [];
  const sticky: StickyDecision[] = [];
  for (const call of state.pending) {
    const decision = byId.get(call.toolCallId)!;
    if (!decision.approve) {
      completed.push({
        role: "toolResult",
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        content: createErrorToolResult(rejectedMessage(call.toolName, decision.reason)).content,
        isError: true,
        timestamp: Date.now(),
      });
      continue;
    }
    if (decision.argsHash !== call.argsHash) return state; // refused by agent.resume
    running.push(call.toolCallId);
    if (decision.always) {
      const entry: StickyDecision = { toolName: call.toolName };
      if (decision.always === "key" && call.key !== undefined) entry.key = call.key;
      sticky.push(entry);
    }
  }
  if (running.length === 0) return state; // nothing runs unseen: the hooks see the rest
  return {
    ...state,
    pending: [],
    completed: [...state.completed, ...completed],
    running: [...state.running, ...running],
    sticky: [...state.sticky, ...sticky],
  };
}

/**
 * A worker's hold on a run while its agent runs: it saves the state at each tool start, end
 * and deferral (a deferred call is not executing: it is asked about again on resume) and at
 * each turn's end, in order, and on a timer (a third of the lease), so a worker
 * busy in one long call keeps its lease. Every save carries the worker's claim: when one is
 * refused (the run was taken over: `RunLostError`), the agent is aborted, and the gate (a
 * `verifyToolCall` after every other hook that saves once more and waits for the saves so far) blocks the calls that had
 * not started executing, so the worker starts no tool after that (approved calls of a resumed batch
 * skip the hooks, and the gate: `resumeStoredRun` saves them as executing before they run).
 */
class Hold {
  #chain: Promise<unknown> = Promise.resolve();
  #failure: unknown;
  #timer: ReturnType<typeof setInterval> | undefined;
  #unsubscribe: (() => void) | undefined;
  #agent: Agent | undefined;
  #claim: number | undefined;
  /** Between `start` and `stop`: the run is this worker's, and the gate saves. */
  #holding = false;

  constructor(
    readonly store: RunStore,
    readonly id: string,
    readonly worker: string,
  ) {}

  /**
   * The options with the gate: before a call executes (after every other hook), a save made
   * then, and every save before it, must have been accepted.
   */
  gated(options: AgentOptions): AgentOptions {
    const verify = options.verifyToolCall;
    return {
      ...options,
      verifyToolCall: async (context, signal) => {
        const answer = await verify?.(context, signal);
        if (answer) return answer; // a block or a defer: the call does not execute
        // Once the run is saved as stopped (an agent prompted again after startRun returned),
        // its calls are no longer the run's: nothing is saved, and none is blocked.
        if (!this.#holding && this.#failure === undefined) return undefined;
        // Saved again now, after every other hook: the start's save may have been accepted
        // before the run was taken over while the hooks ran (a person asked, a slow policy).
        if (this.#holding) this.#save();
        await this.#chain;
        if (this.#failure === undefined) return undefined;
        const why = this.#failure instanceof RunLostError
          ? "the run is no longer this worker's"
          : "the run's checkpoint failed";
        return { block: true, reason: `${why}: ${this.#failure}` };
      },
    };
  }

  /** Starts saving `agent`'s state as `run`'s holder (the claim `run` carries). */
  start(agent: Agent, run: StoredRun): void {
    this.#agent = agent;
    this.#claim = run.claim;
    this.#holding = true;
    this.#unsubscribe = agent.subscribe((event) => {
      if (
        event.type === "tool_execution_start" || event.type === "tool_execution_end" ||
        event.type === "tool_execution_deferred" || event.type === "turn_end"
      ) this.#save();
    });
    if (run.leaseUntil !== undefined) {
      const every = Math.max(50, (run.leaseUntil - Date.now()) / 3);
      this.#timer = setInterval(() => this.#save(), every);
    }
  }

  #save(): void {
    const agent = this.#agent!;
    const fail = (error: unknown) => {
      this.#failure ??= error;
      if (agent.isRunning) agent.abort();
    };
    let state: AgentState;
    try {
      state = agent.state(); // throws for what JSON cannot hold (a BigInt in a result's details)
    } catch (error) {
      // Never out of the timer's callback (it would end the process): the run stops instead.
      this.#chain = this.#chain.then(() => fail(error));
      return;
    }
    const options = { status: "running" as const, worker: this.worker, claim: this.#claim };
    this.#chain = this.#chain.then(async () => {
      if (this.#failure === undefined) await this.store.save(this.id, state, options);
    }).catch(fail);
  }

  /**
   * Stops saving; rejects with the first refused save.
   *
   * @returns The options the worker's last save must carry.
   */
  async stop(): Promise<{ worker: string; claim?: number }> {
    this.#holding = false;
    this.#unsubscribe?.();
    clearInterval(this.#timer);
    await this.#chain;
    if (this.#failure !== undefined) throw this.#failure;
    return { worker: this.worker, claim: this.#claim };
  }
}

/**
 * Writes a new run as `running` by `worker`, only if its id has none: with the store's `create`
 * (atomic), else (a store written before it) with `save`, after the caller's `get`: a run
 * another process starts under the id in between is replaced.
 */
async function createRun(
  store: RunStore,
  id: string,
  state: AgentState,
  worker: string,
): Promise<StoredRun> {
  const options = { status: "running" as const, worker };
  if (!store.create) return await store.save(id, state, options);
  try {
    return await store.create(id, state, options);
  } catch (error) {
    if (!(error instanceof RunExistsError)) throw error;
    throw new RunExistsError(id, error.status, "start", { cause: error });
  }
}

/**
 * Starts a run stored under `id`: checkpoints while it runs (so a crash leaves a state a
 * worker can resume, with calls that were executing reported as "may have completed"),
 * renewing its lease every third of it, then saves it as `pending` (calls wait for
 * people) or `done`.
 *
 * @param store The store.
 * @param id The run's id.
 * @param options The agent's options.
 * @param input The prompt.
 * @param worker Who runs it (default `"starter"`).
 * @returns The agent, after the run stopped.
 * @throws {RunExistsError} (as a rejection) `Cannot start run <id>: a run with this id exists
 * (it is pending)` when the store has a run under `id`, whatever its status: nothing is saved,
 * nothing runs. Of starts of one id at once (in any processes) one runs, the others get this,
 * when the store has `create` (the KV store does); a store without it is asked with `get`
 * first, and a run started by another process between that and the first save is replaced.
 * {RunLostError} (as a rejection) When this worker lost the run: its lease lapsed
 * (the process was stopped longer than the lease) and another worker claimed it. The agent
 * was aborted, no tool ran after the refused save, and nothing since is saved.
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
  // Refused before the agent is made (the usual case); `create` refuses a start at the same time.
  const existing = await store.get(id);
  if (existing) throw new RunExistsError(id, existing.status, "start");
  const hold = new Hold(store, id, worker);
  const agent = createAgent(hold.gated(options));
  // Saved with the prompt: a crash before the first checkpoint resumes by asking the model.
  const prompt = toUserMessage(input);
  const state = agent.state();
  state.messages.push(prompt);
  let run: StoredRun;
  try {
    run = await createRun(store, id, state, worker);
  } catch (error) {
    await agent.dispose(); // the caller never gets it: what its plugins started ends here
    throw error;
  }
  hold.start(agent, run);
  let holder;
  try {
    await agent.prompt(prompt);
  } finally {
    holder = await hold.stop();
  }
  await store.save(id, agent.state(), holder);
  return agent;
}

/**
 * Resumes a stored run in this worker if it can claim it (decided, or its worker's lease
 * expired), with the stored decisions; checkpoints while it runs, then saves it as
 * `pending` or `done`. Of concurrent calls for one run, in any processes, one resumes it.
 * Approved calls are saved as executing before they run: a worker that takes the run over
 * meanwhile reports them as "may have completed", and never runs them again.
 * A run whose worker stopped goes on from its last save: calls that were executing are
 * reported as "may have completed", a transcript that ends with the prompt or with tool
 * results is sent to the model, and one that ends with the model's answer is saved as done.
 *
 * @param store The store.
 * @param id The run's id.
 * @param worker This worker's name.
 * @param options The agent's options (same model and tools as the run's).
 * @returns The agent after the run, or `undefined` when another worker has it (or it is not decided).
 * @throws {Error} (as a rejection) When the decisions do not fit the run (a hash
 * mismatch): the run goes back to `pending` without its decisions, and nothing ran. When
 * this worker cannot resume it (`resumeAgent` refuses: another model, tools missing):
 * nothing is saved, and once the lease lapses another worker can claim it with its
 * decisions. {RunLostError} When this worker lost the run meanwhile (see `startRun`).
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
  const holder = { worker, claim: run.claim };
  const hold = new Hold(store, id, worker);
  // A worker that cannot resume it (other model or tools) leaves it as it was: its claim
  // lapses with the lease and a worker that can takes it, decisions and all.
  const agent = await resumeAgent(run.state, hold.gated(options));
  if (hasFinished(run.state)) {
    // It had finished when its worker stopped, before saving it as done.
    await store.save(id, run.state, holder);
    return agent;
  }
  const decisions = run.decisions ?? [];
  const executing = batchUnderWay(run.state, decisions);
  if (executing !== run.state) {
    // Refused (RunLostError) when another worker took the run meanwhile: nothing runs here.
    await store.save(id, executing, { ...holder, status: "running" });
  }
  hold.start(agent, run);
  try {
    await agent.resume(decisions);
  } catch (error) {
    await hold.stop();
    await store.save(id, run.state, { ...holder, status: "pending" });
    throw error;
  }
  await store.save(id, agent.state(), await hold.stop());
  return agent;
}
