/**
 * `createAgent`: plugins, tools and hooks composed into an {@linkcode Agent}.
 *
 * @module
 */

import type {
  AfterToolCallHook,
  BeforeToolCallHook,
  ShouldStopAfterTurnHook,
  VerifyToolCallHook,
} from "../core/hooks.ts";
import { indexTools, type LoopConfig } from "../core/loop_config.ts";
import { invalidSchemaReason } from "../core/validate_tool_arguments.ts";
import type { Message } from "../core/messages.ts";
import type { Model } from "../core/model.ts";
import type { AgentTool, ToolExecutionMode } from "../core/tool.ts";
import { Agent, type AgentInit, type AgentListener, type QueueMode } from "./agent.ts";
import {
  composeAfterToolCall,
  composeBeforeToolCall,
  composeShouldStopAfterTurn,
  composeVerifyToolCall,
  type TaggedHook,
} from "./compose_hooks.ts";
import type { Plugin } from "./define_plugin.ts";

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
  /** Default per-call timeout in ms (120 000). */
  toolTimeoutMs?: number;
  /** How long a call's hooks may take (default: the call's timeout; `Infinity` while a person answers). */
  hookTimeoutMs?: number;
  /** Character budget of a result's text (50 000). */
  maxResultChars?: number;
  /** Model turns per run before it ends with a clear message (50). */
  maxTurns?: number;
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
}

/** The tool tagged with its plugin: a copy for plain objects, a child object for class instances (their methods stay reachable). */
function ownedBy(tool: AgentTool, owner: string): AgentTool {
  const proto = Object.getPrototypeOf(tool);
  if (proto === Object.prototype || proto === null) return { ...tool, plugin: owner };
  // A child of the instance, with the methods the loop calls bound to the instance itself
  // (so private fields and `this` keep working).
  const owned: PropertyDescriptorMap = {
    plugin: { value: owner, enumerable: true },
    execute: { value: tool.execute.bind(tool), enumerable: true },
  };
  if (tool.prepareArguments) {
    owned.prepareArguments = { value: tool.prepareArguments.bind(tool), enumerable: true };
  }
  return Object.create(tool, owned);
}

function collectTools(options: AgentOptions): AgentTool[] {
  const owners = new Map<string, string>();
  const tools: AgentTool[] = [];
  const add = (tool: AgentTool, owner: string | undefined) => {
    const previous = owners.get(tool.name);
    const label = owner ? `plugin "${owner}"` : "createAgent({ tools })";
    if (previous !== undefined) {
      throw new Error(
        `Cannot create agent: tool "${tool.name}" is registered twice, by ${previous} and by ${label}`,
      );
    }
    const problem = invalidSchemaReason(tool.parameters);
    if (problem !== undefined) {
      throw new Error(
        `Cannot create agent: tool "${tool.name}" (from ${label}) has an invalid parameter schema: ${problem}`,
      );
    }
    owners.set(tool.name, label);
    tools.push(owner && tool.plugin !== owner ? ownedBy(tool, owner) : tool);
  };
  for (const plugin of options.plugins ?? []) {
    for (const tool of plugin.tools ?? []) add(tool, plugin.name);
  }
  for (const tool of options.tools ?? []) add(tool, undefined);
  return tools;
}

function tagged<
  K extends "beforeToolCall" | "verifyToolCall" | "afterToolCall" | "shouldStopAfterTurn",
>(
  options: AgentOptions,
  key: K,
): TaggedHook<NonNullable<AgentOptions[K]>>[] {
  const hooks: TaggedHook<NonNullable<AgentOptions[K]>>[] = [];
  for (const plugin of options.plugins ?? []) {
    const hook = plugin[key] as AgentOptions[K];
    if (hook) hooks.push({ owner: plugin.name, hook });
  }
  const own = options[key];
  if (own) hooks.push({ owner: "createAgent", hook: own });
  return hooks;
}

/**
 * Creates an agent from a model, plugins, tools and hooks. Plugin hooks run in the order
 * the plugins are given, then the agent's own; the first block wins.
 *
 * @param options The model, plugins, tools, limits and hooks.
 * @returns The agent.
 * @throws {Error} When two plugins (or a plugin and `tools`) register the same tool name,
 * or two plugins share a name.
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
    if (names.has(plugin.name)) {
      throw new Error(`Cannot create agent: two plugins are named "${plugin.name}"`);
    }
    names.add(plugin.name);
  }
  const tools = collectTools(options);
  const listeners: AgentListener[] = [];
  for (const plugin of plugins) {
    const onEvent = plugin.onEvent;
    if (onEvent) listeners.push((event) => onEvent(event));
  }
  return new Agent({
    systemPrompt: options.systemPrompt ?? "",
    tools,
    toolIndex: indexTools(tools),
    messages: options.messages,
    listeners,
    steeringMode: options.steeringMode,
    followUpMode: options.followUpMode,
    restore,
    config: {
      model: options.model,
      toolExecution: options.toolExecution,
      toolTimeoutMs: options.toolTimeoutMs,
      hookTimeoutMs: options.hookTimeoutMs,
      maxResultChars: options.maxResultChars,
      maxTurns: options.maxTurns,
      transformContext: options.transformContext,
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
}
