/**
 * Telemetry seams: the {@linkcode AgentTracer} interface `createAgent({ trace })` takes,
 * the wrappers that time each plugin's hooks and each tool's `execute`, and the outcome
 * of a call in one word. No OpenTelemetry here: `@tack/agent/plugins/otel` implements a
 * tracer with it.
 *
 * @example Classifying a call
 * ```ts
 * import { toolOutcome } from "@tack/agent/sdk/telemetry";
 * import { equal } from "node:assert/strict";
 *
 * equal(toolOutcome({ result: { content: [] }, isError: true }), "error");
 * ```
 *
 * @module
 */

export type { AgentTracer, EndStep, HookStage, StepOutcome, TraceStep } from "./agent_tracer.ts";
export { type ToolHook, traceHooks, traceTool } from "./trace_steps.ts";
export { type ToolEnd, type ToolOutcome, toolOutcome } from "./tool_outcome.ts";
