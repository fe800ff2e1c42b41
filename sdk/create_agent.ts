/**
 * `createAgent`: plugins, tools and hooks composed into an {@linkcode Agent}.
 *
 * @module
 */

import type {
  AfterToolCallHook,
  BeforeToolCallHook,
  PrepareTurnHook,
  ShouldStopAfterTurnHook,
  VerifyToolCallHook,
} from "../core/hooks.ts";
import {
  DEFAULT_MAX_RESULT_CHARS,
  DEFAULT_TOOL_TIMEOUT_MS,
  type LoopConfig,
  timeoutProblem,
} from "../core/loop_config.ts";
import type { Message } from "../core/messages.ts";
import type { Model } from "../core/model.ts";
import type { AgentTool, ToolExecutionMode } from "../core/tool.ts";
import { Agent, type AgentInit, type AgentListener, type QueueMode } from "./agent.ts";
import {
  composeAfterToolCall,
  composeBeforeToolCall,
  composeVerifyToolCall,
  type TaggedHook,
} from "./compose_hooks.ts";
import { composeShouldStopAfterTurn } from "./compose_stop_after_turn.ts";
import { composePrepareTurn } from "./compose_prepare_turn.ts";
import { type Plugin, pluginNameProblem } from "./define_plugin.ts";
import type { AgentTracer } from "./telemetry/agent_tracer.ts";
import { traceHooks, traceTool } from "./telemetry/trace_steps.ts";
import { isSandboxedTool, ownToolClaims, sandboxOf } from "./sandboxed_tool.ts";
import { type ToolOwner, ToolRegistry } from "./tool_registry.ts";
import { toolWithLayout } from "./tool_layout.ts";

/** What `createAgent` takes. Only `model` is required. */
export interface AgentOptions {
  /** The model to talk to. */
  model: Model;
  /** Sent with every turn. */
  systemPrompt?: string;
  /** Plugins, in hook order. */
  plugins?: readonly Plugin[];
  /** Tools not owned by any plugin. */
  tools?: readonly AgentTool[];
  /** Default `"parallel"`. */
  toolExecution?: ToolExecutionMode;
  /**
   * At most this many calls of a parallel batch run at once (default: no limit); the others
   * wait in call order, and their timeouts count from when they start.
   */
  maxConcurrency?: number;
  /** Default per-call timeout in ms (120 000). */
  toolTimeoutMs?: number;
  /** How long a call's hooks may take (default: the call's timeout; `Infinity` while a person answers). */
  hookTimeoutMs?: number;
  /** Character budget of a result's text (50 000). */
  maxResultChars?: number;
  /** Model turns per run before it ends with a clear message (50). */
  maxTurns?: number;
  /**
   * Runs before each model call, after the plugins' `prepareTurn`: may choose the tools
   * active for that call and its system prompt.
   */
  prepareTurn?: PrepareTurnHook;
  /** Runs after every plugin's `beforeToolCall`. */
  beforeToolCall?: BeforeToolCallHook;
  /** Runs after every plugin's `verifyToolCall`: the last, block-only check. */
  verifyToolCall?: VerifyToolCallHook;
  /** Runs after every plugin's `afterToolCall`. */
  afterToolCall?: AfterToolCallHook;
  /** Asked after each turn, after the plugins' hooks. */
  shouldStopAfterTurn?: ShouldStopAfterTurnHook;
  /** Rewrites what the model is sent each turn, without touching the transcript. */
  transformContext?: LoopConfig["transformContext"];
  /** A transcript to start from (a resumed session). */
  messages?: readonly Message[];
  /** How steering messages are drained (default one per turn). */
  steeringMode?: QueueMode;
  /** How follow-up messages are drained (default one per turn). */
  followUpMode?: QueueMode;
  /**
   * Sees every event and times each plugin's hooks and each tool's `execute` (e.g.
   * `otelTracer()` from `@tack/agent/plugins/otel`). Without it nothing is wrapped.
   */
  trace?: AgentTracer;
}

/**
 * The host's limits on plugins' tools. A sandboxed tool may shorten its timeout and lower its
 * result budget, never stretch them past the agent's `toolTimeoutMs` and `maxResultChars`
 * (nor turn them off): it is known by its mark (see `sandboxed_tool.ts`) or its plugin,
 * however it reached the agent. An in-process plugin's tool may choose a longer timeout (a
 * build), not none: one declaring `0` or `Infinity` gets the agent's `toolTimeoutMs`.
 */
function pluginLimits(
  options: AgentOptions,
): ((tool: AgentTool, owner: ToolOwner) => AgentTool) | undefined {
  const bounded = (limit: number | undefined) =>
    limit !== undefined && limit > 0 && Number.isFinite(limit) ? limit : undefined;
  const cap = bounded(options.toolTimeoutMs);
  const budget = bounded(options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS);
  const plugins = options.plugins ?? [];
  if (plugins.length === 0 && cap === undefined && budget === undefined) return undefined;
  const sandboxed = new Set(
    plugins.filter((plugin) => plugin.sandboxed).map((plugin) => plugin.name),
  );
  const agentTimeout = options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  // Longer or larger than the agent's, or off (a timeout of 0; Infinity): the agent's.
  return (tool, owner) => {
    const { timeoutMs, maxResultChars } = tool;
    if (!isSandboxedTool(tool) && !(owner !== undefined && sandboxed.has(owner))) {
      const off = owner !== undefined && (timeoutMs === 0 || timeoutMs === Infinity);
      return off && agentTimeout !== timeoutMs
        ? toolWithLayout(tool, { timeoutMs: agentTimeout })
        : tool;
    }
    const longer = cap !== undefined && timeoutMs !== undefined &&
      !(timeoutMs > 0 && timeoutMs <= cap);
    const larger = budget !== undefined && maxResultChars !== undefined &&
      !(maxResultChars >= 0 && maxResultChars <= budget);
    if (!longer && !larger) return tool;
    return toolWithLayout(tool, {
      ...(longer ? { timeoutMs: cap } : {}),
      ...(larger ? { maxResultChars: budget } : {}),
    });
  };
}

/**
 * Refuses a tool whose name a sandboxed plugin's own-scope hooks take as theirs, unless it
 * is that plugin's own: its hooks would see (and could rewrite) another owner's calls.
 */
function claimsCheck(options: AgentOptions): ((tool: AgentTool) => void) | undefined {
  const claims = new Map<string, string>();
  for (const plugin of options.plugins ?? []) {
    for (const name of ownToolClaims(plugin)) claims.set(name, plugin.name);
  }
  if (claims.size === 0) return undefined;
  return (tool) => {
    const claimant = claims.get(tool.name);
    if (claimant === undefined || sandboxOf(tool) === claimant) return;
    throw new Error(
      `Cannot register tool "${tool.name}"${
        tool.plugin === undefined ? "" : ` of plugin "${tool.plugin}"`
      }: plugin "${claimant}" has a tool of that name and its hooks act on the calls of their own tools (by name); register its own "${tool.name}" instead, or leave one of them out`,
    );
  };
}

/**
 * What the agent makes of a tool as it is registered (now or by `setTools`): refused when
 * an own-scope plugin claims its name; its timeout and result budget capped when it is
 * sandboxed; with a tracer, each `execute` timed.
 */
function toolPreparer(
  options: AgentOptions,
): ((tool: AgentTool, owner: ToolOwner) => AgentTool) | undefined {
  const check = claimsCheck(options);
  const capped = pluginLimits(options);
  const trace = options.trace;
  if (!check && !capped && !trace) return undefined;
  return (tool, owner) => {
    check?.(tool);
    const prepared = capped ? capped(tool, owner) : tool;
    return trace ? traceTool(prepared, trace) : prepared;
  };
}

/**
 * The composed `prepareTurn`, with the caps applied to the tools it chooses: they need not
 * come from the registry (a plugin may keep a sandboxed plugin's tools itself).
 */
function cappedPrepareTurn(
  prepareTurn: PrepareTurnHook | undefined,
  options: AgentOptions,
): PrepareTurnHook | undefined {
  const capped = pluginLimits(options);
  if (!prepareTurn || !capped) return prepareTurn;
  return async (context, signal) => {
    const chosen = await prepareTurn(context, signal);
    if (!chosen?.tools) return chosen;
    return { ...chosen, tools: chosen.tools.map((tool) => capped(tool, tool.plugin)) };
  };
}

/**
 * Whether hooks are bounded one by one (in the dispatcher) rather than as a chain (in the
 * loop): when a plugin sets its own `hookTimeoutMs`, e.g. `Infinity` while a person is
 * asked, so that a person's time is never charged to another plugin's hook.
 */
function perHookBounds(options: AgentOptions): boolean {
  return (options.plugins ?? []).some((plugin) => plugin.hookTimeoutMs !== undefined);
}

function tagged<
  K extends
    | "beforeToolCall"
    | "verifyToolCall"
    | "afterToolCall"
    | "shouldStopAfterTurn"
    | "prepareTurn",
>(
  options: AgentOptions,
  key: K,
): TaggedHook<NonNullable<AgentOptions[K]>>[] {
  const hooks: TaggedHook<NonNullable<AgentOptions[K]>>[] = [];
  // Per-hook: each hook gets the agent's hookTimeoutMs, else its call's timeout, unless
  // its plugin says otherwise; a prepareTurn or shouldStopAfterTurn has no call, so the
  // loop's bound (the agent's hookTimeoutMs, else toolTimeoutMs), which is off then, moves
  // to each hook.
  const perHook = perHookBounds(options);
  const fallback = (tool: { timeoutMs?: number }) =>
    options.hookTimeoutMs ?? tool.timeoutMs ?? options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const bound = key === "prepareTurn" || key === "shouldStopAfterTurn" ? fallback({}) : fallback;
  const tag = (owner: string, hook: NonNullable<AgentOptions[K]>, timeoutMs?: number) =>
    perHook ? { owner, hook, timeoutMs: timeoutMs ?? bound } : { owner, hook };
  for (const plugin of options.plugins ?? []) {
    const hook = plugin[key] as AgentOptions[K];
    if (hook) hooks.push(tag(plugin.name, hook, plugin.hookTimeoutMs));
  }
  const own = options[key];
  if (own) hooks.push(tag("createAgent", own));
  if (!options.trace || key === "shouldStopAfterTurn" || key === "prepareTurn") return hooks;
  const stage = key as Exclude<K, "shouldStopAfterTurn" | "prepareTurn">;
  return traceHooks(hooks as never, stage, options.trace) as typeof hooks;
}

/**
 * Creates an agent from a model, plugins, tools and hooks. Plugin hooks run in the order
 * the plugins are given, then the agent's own; the first block wins.
 *
 * @param options The model, plugins, tools, limits and hooks.
 * @returns The agent.
 * @throws {Error} When two plugins (or a plugin and `tools`) register the same tool name,
 * or two plugins share a name. {RangeError} When `maxConcurrency` is not a positive integer.
 *
 * @example An agent with a tool, on the scripted model
 * ```ts
 * import { createAgent, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
 * import { Type } from "typebox";
 * import { equal } from "node:assert/strict";
 *
 * const weather = defineTool({
 *   name: "get_weather", description: "Weather for a city",
 *   parameters: Type.Object({ city: Type.String() }),
 *   execute: ({ city }) => ({ content: [{ type: "text", text: `Sunny in ${city}` }] }),
 * });
 * const agent = createAgent({
 *   model: scriptedModel([[toolCall("get_weather", { city: "Paris" })], [text("It is sunny.")]]),
 *   tools: [weather],
 * });
 * const added = await agent.prompt("Weather in Paris?");
 * equal(added.length, 4); // prompt, tool call, result, answer
 * ```
 */
export function createAgent(options: AgentOptions): Agent {
  return assembleAgent(options);
}

/**
 * `createAgent`, with an interrupted run to go on from (what `resumeAgent` uses).
 *
 * @param options As for `createAgent`.
 * @param restore The interrupted run's pending calls, finished results and sticky decisions.
 * @returns The agent.
 */
export function assembleAgent(options: AgentOptions, restore?: AgentInit["restore"]): Agent {
  if (!options?.model || typeof options.model.stream !== "function") {
    throw new TypeError(
      "Cannot create agent: options.model must be a Model with a stream() function",
    );
  }
  const plugins = options.plugins ?? [];
  const names = new Set<string>();
  for (const plugin of plugins) {
    const problem = pluginNameProblem(plugin.name);
    if (problem !== undefined) {
      throw new Error(
        `Cannot create agent: plugin ${JSON.stringify(plugin.name)} is refused: ${problem}`,
      );
    }
    if (names.has(plugin.name)) {
      throw new Error(`Cannot create agent: two plugins are named "${plugin.name}"`);
    }
    names.add(plugin.name);
  }
  for (const key of ["toolTimeoutMs", "hookTimeoutMs"] as const) {
    const problem = timeoutProblem(options[key]);
    if (problem !== undefined) throw new RangeError(`Cannot create agent: ${key} ${problem}`);
  }
  const maxConcurrency = options.maxConcurrency;
  if (maxConcurrency !== undefined && !(Number.isInteger(maxConcurrency) && maxConcurrency >= 1)) {
    throw new RangeError(
      `Cannot create agent: maxConcurrency must be a positive integer (got ${maxConcurrency})`,
    );
  }
  const registry = new ToolRegistry([
    ...plugins.map((plugin) => ({ owner: plugin.name, tools: plugin.tools ?? [] })),
    { owner: undefined, tools: options.tools ?? [] },
  ], toolPreparer(options));
  const trace = options.trace;
  const listeners: AgentListener[] = trace ? [(event) => trace.onEvent(event)] : [];
  for (const plugin of plugins) {
    const onEvent = plugin.onEvent;
    if (onEvent) listeners.push((event) => onEvent(event));
  }
  const agent = new Agent({
    systemPrompt: options.systemPrompt ?? "",
    tools: registry.tools,
    registry,
    messages: options.messages,
    listeners,
    steeringMode: options.steeringMode,
    followUpMode: options.followUpMode,
    restore,
    config: {
      model: options.model,
      toolExecution: options.toolExecution,
      maxConcurrency,
      toolTimeoutMs: options.toolTimeoutMs,
      // Bounded one by one in the dispatcher when a plugin sets its own bound.
      hookTimeoutMs: perHookBounds(options) ? Infinity : options.hookTimeoutMs,
      maxResultChars: options.maxResultChars,
      maxTurns: options.maxTurns,
      transformContext: options.transformContext,
      prepareTurn: cappedPrepareTurn(composePrepareTurn(tagged(options, "prepareTurn")), options),
      beforeToolCall: composeBeforeToolCall(tagged(options, "beforeToolCall")),
      verifyToolCall: composeVerifyToolCall(tagged(options, "verifyToolCall")),
      afterToolCall: composeAfterToolCall(tagged(options, "afterToolCall")),
      shouldStopAfterTurn: composeShouldStopAfterTurn(tagged(options, "shouldStopAfterTurn")),
    },
    dispose: async () => {
      const errors: unknown[] = [];
      for (const plugin of plugins) {
        try {
          await plugin.dispose?.();
        } catch (error) {
          errors.push(error);
        }
      }
      try {
        await options.model.dispose?.();
      } catch (error) {
        errors.push(error);
      }
      if (errors.length > 0) throw new AggregateError(errors, "Cannot dispose agent cleanly");
    },
  });
  for (const plugin of plugins) {
    plugin.attach?.({ setTools: (tools) => registry.set(plugin.name, tools) });
  }
  return agent;
}
