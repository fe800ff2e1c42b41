/**
 * The tracing seam: what `createAgent({ trace })` tells a tracer. It depends on nothing
 * but the core's event type, so an agent without a tracer loads and pays nothing for it.
 *
 * @module
 */

import type { AgentEvent } from "../../core/agent_event.ts";

/** The hook stages a tracer sees, one step per plugin. */
export type HookStage = "beforeToolCall" | "verifyToolCall" | "afterToolCall";

/** One timed step inside a tool call: one plugin's hook, or the tool's own `execute`. */
export type TraceStep =
  | {
    kind: "hook";
    /** Which hook. */
    stage: HookStage;
    /** The plugin that registered it, or `createAgent`. */
    owner: string;
    /** The call it runs for. */
    toolCallId: string;
    /** The tool called. */
    toolName: string;
  }
  | {
    kind: "execute";
    /** The call. */
    toolCallId: string;
    /** The tool. */
    toolName: string;
    /** The plugin that registered the tool, if any. */
    plugin?: string;
  };

/**
 * How a step ended. `verdict` is what a hook answered: `pass` (nothing), `block`, `defer`
 * (wait for a person), `rewrite` (new arguments) or `override` (a changed result); `error`
 * is what it threw.
 */
export interface StepOutcome {
  /** What the hook answered; absent for `execute`. */
  verdict?: "pass" | "block" | "defer" | "rewrite" | "override";
  /** What the hook or tool threw (or rejected with). */
  error?: unknown;
}

/** Ends a step; called once, when the hook or `execute` settles. */
export type EndStep = (outcome: StepOutcome) => void;

/**
 * Receives a run as it happens. `onEvent` sees every {@linkcode AgentEvent}, synchronously
 * and in order; `startStep` is called as each plugin's hook and each tool's `execute`
 * starts, between the call's `tool_execution_start` and `tool_execution_end`.
 *
 * Contract: neither may throw (a throw from `onEvent` is reported like a listener's; a
 * throw from `startStep` fails the step it was timing). A step whose hook or tool never
 * settles (it timed out, the run was aborted) is never ended: the tracer closes it at the
 * call's `tool_execution_end`. One tracer serves one agent.
 */
export interface AgentTracer {
  /** Sees every event of every run of the agent. */
  onEvent(event: AgentEvent): void;
  /** A step starts; returns the function that ends it. */
  startStep(step: TraceStep): EndStep;
}
