/**
 * Timing wrappers for hooks and tools, applied by `createAgent` only when it has a
 * tracer: without one, nothing here runs and the hot path is unchanged.
 *
 * @module
 */

import type {
  AfterToolCallHook,
  BeforeToolCallHook,
  VerifyToolCallHook,
} from "../../core/hooks.ts";
import { isPromiseLike } from "../../core/maybe_promise.ts";
import type { AgentTool, ToolExecuteContext } from "../../core/tool.ts";
import type { TaggedHook } from "../compose_hooks.ts";
import type { AgentTracer, EndStep, HookStage, StepOutcome } from "./agent_tracer.ts";
import { toolWithLayout } from "../tool_layout.ts";

/** The hooks a tracer times, one step per plugin. */
export type ToolHook = BeforeToolCallHook | VerifyToolCallHook | AfterToolCallHook;

function verdictOf(stage: HookStage, value: unknown): StepOutcome {
  if (value === undefined || value === null) return { verdict: "pass" };
  const answer = value as { block?: boolean; defer?: boolean; args?: unknown };
  if (answer.block) return { verdict: "block" };
  if (answer.defer) return { verdict: "defer" };
  if (stage === "afterToolCall") return { verdict: "override" };
  return { verdict: stage === "beforeToolCall" && answer.args ? "rewrite" : "pass" };
}

/** Calls `run`, ending the step when it settles (now, or when its promise does). */
function timed<T>(end: EndStep, run: () => T, outcome: (value: unknown) => StepOutcome): T {
  let value: T;
  try {
    value = run();
  } catch (error) {
    end({ error });
    throw error;
  }
  if (!isPromiseLike(value)) {
    end(outcome(value));
    return value;
  }
  return Promise.resolve(value).then(
    (resolved) => {
      end(outcome(resolved));
      return resolved;
    },
    (error) => {
      end({ error });
      throw error;
    },
  ) as T;
}

/**
 * Wraps tagged tool hooks so each call of each plugin's hook is a step of the tracer.
 * What the hooks return or throw passes through unchanged.
 *
 * @param hooks The tagged hooks of one stage.
 * @param stage Which stage they are.
 * @param tracer The tracer.
 * @returns The same hooks, timed.
 *
 * @example A hook's verdict reaches the tracer
 * ```ts
 * import { traceHooks } from "@tack/agent/sdk/telemetry";
 * import type { BeforeToolCallHook } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const seen: string[] = [];
 * const [traced] = traceHooks<BeforeToolCallHook>(
 *   [{ owner: "policy", hook: () => ({ block: true }) }],
 *   "beforeToolCall",
 *   { onEvent() {}, startStep: (s) => (o) => seen.push(`${s.kind === "hook" && s.owner} ${o.verdict}`) },
 * );
 * // deno-lint-ignore no-explicit-any
 * traced.hook({ toolCall: { id: "c1" }, tool: { name: "t" } } as any, new AbortController().signal);
 * equal(seen[0], "policy block");
 * ```
 */
export function traceHooks<H extends ToolHook>(
  hooks: readonly TaggedHook<H>[],
  stage: HookStage,
  tracer: AgentTracer,
): TaggedHook<H>[] {
  return hooks.map(({ owner, hook, ...bounds }) => {
    const call = hook as (context: Parameters<H>[0], signal: AbortSignal) => unknown;
    const traced = function tracedHook(context: Parameters<H>[0], signal: AbortSignal) {
      const end = tracer.startStep({
        kind: "hook",
        stage,
        owner,
        toolCallId: context.toolCall.id,
        toolName: context.tool.name,
      });
      return timed(end, () => call(context, signal), (value) => verdictOf(stage, value));
    };
    return { ...bounds, owner, hook: traced as unknown as H };
  });
}

/**
 * Wraps a tool so each run of its `execute` is a step of the tracer (for a sandboxed
 * plugin's tool, the round trip to its process). Class instances keep their prototype.
 *
 * @param tool The tool.
 * @param tracer The tracer.
 * @returns A tool that behaves the same, timed.
 *
 * @example Timing a tool
 * ```ts
 * import { traceTool } from "@tack/agent/sdk/telemetry";
 * import { equal } from "node:assert/strict";
 *
 * const steps: string[] = [];
 * const tool = traceTool({
 *   name: "echo", description: "echo", parameters: { type: "object" },
 *   execute: () => ({ content: [] }),
 * }, { onEvent() {}, startStep: (s) => () => steps.push(s.kind) });
 * tool.execute({}, { toolCallId: "c1", signal: new AbortController().signal });
 * equal(steps[0], "execute");
 * ```
 */
export function traceTool(tool: AgentTool, tracer: AgentTracer): AgentTool {
  const execute = tool.execute.bind(tool);
  const traced: AgentTool["execute"] = function tracedExecute(params, context: ToolExecuteContext) {
    const end = tracer.startStep({
      kind: "execute",
      toolCallId: context.toolCallId,
      toolName: tool.name,
      plugin: tool.plugin,
    });
    return timed(end, () => execute(params, context), () => ({}));
  };
  const proto = Object.getPrototypeOf(tool);
  if (proto === Object.prototype || proto === null) {
    return toolWithLayout(tool, { execute: traced });
  }
  const child: PropertyDescriptorMap = { execute: { value: traced, enumerable: true } };
  if (tool.prepareArguments) {
    child.prepareArguments = { value: tool.prepareArguments.bind(tool), enumerable: true };
  }
  return Object.create(tool, child);
}
