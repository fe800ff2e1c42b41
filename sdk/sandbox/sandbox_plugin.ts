/**
 * A sandboxed plugin as the host sees it: ordinary tools and hooks whose work is done
 * over the protocol.
 *
 * @module
 */

import type { AfterToolCallContext, BeforeToolCallContext } from "../../core/hooks.ts";
import { type AgentTool, ToolError, type ToolResult } from "../../core/tool.ts";
import type { Plugin } from "../define_plugin.ts";
import type { PluginPermissions } from "../permissions.ts";
import type { PluginManifest } from "./protocol.ts";
import type { SandboxConnection } from "./sandbox_connection.ts";

function spec(tool: AgentTool): Record<string, unknown> {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    label: tool.label,
    executionMode: tool.executionMode,
    effects: tool.effects,
    plugin: tool.plugin,
  };
}

function serialize(context: BeforeToolCallContext | AfterToolCallContext): Record<string, unknown> {
  return {
    ...context,
    tool: spec(context.tool),
    context: {
      systemPrompt: context.context.systemPrompt,
      messages: context.context.messages,
      tools: context.context.tools.map(spec),
    },
  };
}

function textOf(result: ToolResult): string {
  return result.content.map((block) => block.type === "text" ? block.text : "").join("\n");
}

/**
 * Builds the host-side plugin of a sandbox from its manifest.
 *
 * @param manifest What the child reported.
 * @param connection The sandbox the tools and hooks run in.
 * @param permissions The grants the sandbox runs with (what `inspect` shows).
 * @returns A plugin whose tools and hooks run in the sandbox; `dispose()` stops it.
 *
 * @example A manifest with one tool
 * ```ts
 * import { sandboxedPlugin } from "./sandbox_plugin.ts";
 * import { SandboxConnection } from "./sandbox_connection.ts";
 * import { equal } from "node:assert/strict";
 *
 * const connection = new SandboxConnection("demo", () => { throw new Error("not started"); });
 * const plugin = sandboxedPlugin({
 *   name: "demo", hooks: [],
 *   tools: [{ name: "echo", description: "Echoes", parameters: { type: "object" } }],
 * }, connection, {});
 * equal(plugin.tools?.[0].plugin, "demo");
 * ```
 */
export function sandboxedPlugin(
  manifest: PluginManifest,
  connection: SandboxConnection,
  permissions: PluginPermissions,
): Plugin {
  const tools: AgentTool[] = manifest.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    label: tool.label,
    executionMode: tool.executionMode,
    timeoutMs: tool.timeoutMs,
    maxResultChars: tool.maxResultChars,
    effects: tool.effects,
    plugin: manifest.name,
    async execute(args, { toolCallId, signal, update }): Promise<ToolResult> {
      const { result, isError } = await connection.call(
        tool.name,
        toolCallId,
        args,
        signal,
        update,
      );
      if (isError) {
        throw new ToolError(textOf(result), { details: result.details, content: result.content });
      }
      return result;
    },
  }));
  const hooks = new Set(manifest.hooks);
  return {
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    permissions,
    tools,
    beforeToolCall: hooks.has("beforeToolCall")
      ? async function beforeToolCall(context) {
        return await connection.hook("beforeToolCall", serialize(context)) as undefined;
      }
      : undefined,
    verifyToolCall: hooks.has("verifyToolCall")
      ? async function verifyToolCall(context) {
        return await connection.hook("verifyToolCall", serialize(context)) as undefined;
      }
      : undefined,
    afterToolCall: hooks.has("afterToolCall")
      ? async function afterToolCall(context) {
        return await connection.hook("afterToolCall", serialize(context)) as undefined;
      }
      : undefined,
    shouldStopAfterTurn: hooks.has("shouldStopAfterTurn")
      ? async function shouldStopAfterTurn(context) {
        const { message, toolResults, newMessages } = context;
        const inner = context.context;
        return await connection.hook("shouldStopAfterTurn", {
          message,
          toolResults,
          newMessages,
          context: {
            systemPrompt: inner.systemPrompt,
            messages: inner.messages,
            tools: inner.tools.map(spec),
          },
        }) === true;
      }
      : undefined,
    onEvent: hooks.has("onEvent")
      ? function onEvent(event) {
        if (event.type === "message_update") return;
        connection.hook("onEvent", event as unknown as Record<string, unknown>).catch(() => {});
      }
      : undefined,
    dispose: () => connection.dispose(),
  };
}
