/**
 * `resumeAgent`: an agent rebuilt from `agent.state()`, in this process or another.
 *
 * @module
 */

import type { Agent } from "./agent.ts";
import type { AgentState, Decision } from "./agent_state.ts";
import { type AgentOptions, assembleAgent } from "./create_agent.ts";
import { toolCallsOf } from "../core/messages.ts";

/** What `resumeAgent` takes: the agent's options (same model and tools), and the decisions. */
export interface ResumeAgentOptions extends AgentOptions {
  /** When given, the run resumes with them before `resumeAgent` resolves. */
  decisions?: readonly Decision[];
}

function checkState(state: AgentState): void {
  const shape = state !== null && typeof state === "object" && state.version === 1 &&
    Array.isArray(state.messages) && Array.isArray(state.pending) &&
    Array.isArray(state.completed) && Array.isArray(state.running) &&
    Array.isArray(state.sticky) && typeof state.config === "object" && state.config !== null &&
    (state.turnTools === undefined ||
      (Array.isArray(state.turnTools) &&
        state.turnTools.every((name) => typeof name === "string")));
  if (!shape) {
    throw new TypeError(
      "Cannot resume agent: the state is not an agent.state() of version 1 " +
        "(messages, pending, completed, running, sticky, config)",
    );
  }
  // A call's decision, result and "running" mark go by its id: two open calls sharing one
  // (never so in a state the agent took) would both run on one approval.
  const seen = new Set<string>();
  for (const call of toolCallsOf(state.messages.at(-1))) {
    if (seen.has(call.id)) {
      throw new TypeError(
        `Cannot resume agent: the state's last message has two tool calls with id ${call.id}`,
      );
    }
    seen.add(call.id);
  }
}

function checkIdentity(state: AgentState, agent: Agent, options: AgentOptions): void {
  const { provider, model, tools } = state.config;
  if (provider !== options.model.provider || model !== options.model.id) {
    throw new Error(
      `Cannot resume agent: the state was taken with model ${provider}/${model}, ` +
        `not ${options.model.provider}/${options.model.id}`,
    );
  }
  const have = new Set(agent.tools.map((tool) => tool.name));
  const missing = tools.filter((name) => !have.has(name));
  if (missing.length > 0) {
    throw new Error(`Cannot resume agent: the state's tools ${missing.join(", ")} are missing`);
  }
}

/**
 * Rebuilds an agent from a state (`agent.state()`, through JSON and a store) with the
 * same model and tools, and resumes it when `decisions` are given: approved calls run with
 * exactly their pending arguments, rejected ones get an error result, calls that were
 * executing are reported as "may have completed", finished ones are not re-run.
 *
 * @param state What `agent.state()` returned (possibly through `JSON.parse`).
 * @param options The agent's options, and the decisions.
 * @returns The agent; after the resumed run when `decisions` were given.
 * @throws {TypeError} When the state is malformed.
 * @throws {Error} When the model or the tools differ from the state's, or (as a
 * rejection) when the decisions do not fit (see `agent.resume`).
 *
 * @example Approve a deferred call in a "new process"
 * ```ts
 * import { approveCall, createAgent, defineTool, resumeAgent, scriptedModel, text, toolCall } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const deploy = defineTool({
 *   name: "deploy", description: "Deploys", parameters: { type: "object" } as const,
 *   execute: () => ({ content: [{ type: "text", text: "deployed" }] }),
 * });
 * const options = {
 *   model: scriptedModel([[toolCall("deploy", {}, "c1")], [text("done")]]),
 *   tools: [deploy],
 *   beforeToolCall: () => ({ defer: true, reason: "deploys need a person" }),
 * };
 * const first = createAgent(options);
 * await first.prompt("ship it");
 * const state = JSON.parse(JSON.stringify(first.state()));
 * const again = await resumeAgent(state, { ...options, decisions: [approveCall(state.pending[0])] });
 * equal(again.messages.at(-1)?.role, "assistant");
 * ```
 */
export async function resumeAgent(
  state: AgentState,
  options: ResumeAgentOptions,
): Promise<Agent> {
  checkState(state);
  const { decisions, ...agentOptions } = options;
  const agent = assembleAgent({ ...agentOptions, messages: state.messages }, {
    pending: state.pending,
    completed: state.completed,
    running: state.running,
    sticky: state.sticky,
    turnTools: state.turnTools,
  });
  checkIdentity(state, agent, agentOptions);
  if (decisions) await agent.resume(decisions);
  return agent;
}
