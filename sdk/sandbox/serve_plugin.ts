/**
 * The child side of a sandbox, independent of the transport: loads the plugin module,
 * sends its manifest, runs calls and hooks, reports updates and results.
 *
 * @module
 */

import type { AgentTool, ToolResult } from "../../core/tool.ts";
import type { Plugin } from "../define_plugin.ts";
import { sandboxErrorResult, type SandboxFacts } from "./permission_denied.ts";
import {
  type ChildMessage,
  type HostMessage,
  type PluginManifest,
  PROXIED_HOOKS,
  type ProxiedHook,
  type ToolManifest,
} from "./protocol.ts";
import { TranscriptMirror } from "./transcript_cursor.ts";
import { thrownText } from "../../core/thrown_text.ts";

/** What the host tells the child at start. */
export interface RunnerConfig {
  /** The plugin module's URL (for messages: the entry imports it). */
  specifier: string;
  /** Passed to the module's default export when it is a factory. */
  options?: unknown;
  /** Absolute paths the plugin may read (`true`: everything). */
  read: boolean | string[];
  /** Whether an OS layer hides everything outside the grants. */
  confined: boolean;
}

/** A plugin module's namespace (the entry imports it statically, so loading is not gated). */
export type PluginModule = { default?: unknown };

/** How the child talks to the host. */
export interface ChildTransport {
  send(message: ChildMessage): void;
  /** Hands each message from the host to `onMessage`, in order; resolves when the host is gone. */
  listen(onMessage: (message: HostMessage) => void): Promise<void>;
}

function messageOf(error: unknown): string {
  return thrownText(error);
}

async function loadPlugin(config: RunnerConfig, module: PluginModule): Promise<Plugin> {
  // deno-lint-ignore no-explicit-any
  let exported = module.default as any;
  if (typeof exported === "function") exported = await exported(config.options);
  if (typeof exported?.name !== "string" || exported.name === "") {
    throw new TypeError(
      `the default export of ${config.specifier} is not a plugin (an object with a name) nor a factory of one`,
    );
  }
  return exported as Plugin;
}

function manifestOf(plugin: Plugin): PluginManifest {
  const tools: ToolManifest[] = (plugin.tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: JSON.parse(JSON.stringify(tool.parameters)),
    label: tool.label,
    executionMode: tool.executionMode,
    timeoutMs: tool.timeoutMs,
    maxResultChars: tool.maxResultChars,
    effects: tool.effects ? [...tool.effects] : undefined,
  }));
  const hooks: ProxiedHook[] = PROXIED_HOOKS.filter((hook) => typeof plugin[hook] === "function");
  return {
    name: plugin.name,
    version: plugin.version,
    description: plugin.description,
    permissions: plugin.permissions,
    limits: plugin.limits,
    tools,
    hooks,
  };
}

/** An allocation the OS limit refused: the sandbox is out of memory, not the tool wrong. */
function outOfMemory(error: unknown): boolean {
  return error instanceof RangeError && /allocation failed|out of memory/i.test(error.message);
}

function notHere(): never {
  throw new Error("Cannot execute: this tool runs outside the sandbox");
}

/**
 * Serves a plugin over a transport until the host goes away.
 *
 * @param config What the child knows of the module and its grants.
 * @param module The plugin module's namespace.
 * @param transport Messages from the host, and a way to answer.
 * @returns When the host closes the transport.
 *
 * @example Served in memory
 * ```ts
 * import { servePlugin } from "./serve_plugin.ts";
 * import { equal } from "node:assert/strict";
 *
 * const sent: { type: string }[] = [];
 * await servePlugin(
 *   { specifier: "hi.ts", read: [], confined: false },
 *   { default: { name: "hi", tools: [] } },
 *   { send: (message) => sent.push(message), listen: () => Promise.resolve() },
 * );
 * equal(sent[0].type, "manifest");
 * ```
 */
export async function servePlugin(
  config: RunnerConfig,
  module: PluginModule,
  transport: ChildTransport,
): Promise<void> {
  let plugin: Plugin;
  try {
    plugin = await loadPlugin(config, module);
  } catch (error) {
    transport.send({ type: "fatal", message: messageOf(error) });
    return;
  }
  const facts: SandboxFacts = { plugin: plugin.name, read: config.read, confined: config.confined };
  const tools = new Map<string, AgentTool>((plugin.tools ?? []).map((tool) => [tool.name, tool]));
  const running = new Map<number, AbortController>();
  const transcript = new TranscriptMirror();
  const toolSpecs = new TranscriptMirror();
  transport.send({ type: "manifest", manifest: manifestOf(plugin) });

  const toolFor = (spec: Record<string, unknown>): AgentTool =>
    tools.get(spec.name as string) ?? { ...(spec as unknown as AgentTool), execute: notHere };

  const call = async (message: Extract<HostMessage, { type: "call" }>) => {
    const controller = new AbortController();
    running.set(message.id, controller);
    let result: ToolResult;
    let isError = false;
    try {
      const tool = tools.get(message.tool);
      if (tool === undefined) throw new Error(`Tool ${message.tool} not found`);
      result = await tool.execute(message.args, {
        toolCallId: message.toolCallId,
        signal: controller.signal,
        update: (partial) => {
          if (running.has(message.id)) transport.send({ type: "update", id: message.id, partial });
        },
      });
      if (!Array.isArray(result?.content)) {
        result = {
          content: [{
            type: "text",
            text: `Tool ${message.tool} returned an invalid result: expected { content: [...] }`,
          }],
          details: {},
        };
        isError = true;
      }
    } catch (error) {
      if (outOfMemory(error)) {
        running.delete(message.id);
        return transport.send({ type: "out_of_memory" });
      }
      result = sandboxErrorResult(error, facts);
      isError = true;
    }
    running.delete(message.id);
    transport.send({ type: "result", id: message.id, result, isError });
  };

  const hook = async (
    message: Extract<HostMessage, { type: "hook" }>,
    messages: readonly unknown[] | undefined,
    specs: readonly unknown[] | undefined,
  ) => {
    const context = message.context as Record<string, unknown>;
    const given = context.context as Record<string, unknown> | undefined;
    const inner = given && (messages || specs)
      ? { ...given, ...(messages && { messages }), ...(specs && { tools: specs }) }
      : given;
    const full = message.hook === "onEvent" ? context : {
      ...context,
      ...(context.tool ? { tool: toolFor(context.tool as Record<string, unknown>) } : {}),
      ...(inner
        ? { context: { ...inner, tools: (inner.tools as Record<string, unknown>[]).map(toolFor) } }
        : {}),
    };
    try {
      const run = plugin[message.hook] as (c: unknown, s: AbortSignal) => unknown;
      const value = await run(full, new AbortController().signal);
      transport.send({ type: "hook_result", id: message.id, value: value ?? undefined });
    } catch (error) {
      if (outOfMemory(error)) return transport.send({ type: "out_of_memory" });
      transport.send({ type: "hook_result", id: message.id, error: messageOf(error) });
    }
  };

  await transport.listen((message) => {
    if (message.type === "call") call(message);
    // The transcript and tools are brought up to date here, in message order, before the
    // hook runs.
    else if (message.type === "hook") {
      hook(
        message,
        message.transcript && transcript.apply(message.transcript),
        message.tools && toolSpecs.apply(message.tools),
      );
    } else if (message.type === "cancel") {
      running.get(message.id)?.abort(new DOMException("The call was cancelled", "AbortError"));
    }
  });
}
