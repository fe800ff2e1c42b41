/**
 * A sandboxed plugin as the host sees it: ordinary tools and hooks whose work is done
 * over the protocol.
 *
 * @module
 */

import type { AfterToolCallContext, BeforeToolCallContext } from "../../core/hooks.ts";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../../core/loop_config.ts";
import { type AgentTool, ToolError, type ToolResult } from "../../core/tool.ts";
import type { Plugin } from "../define_plugin.ts";
import type { PluginPermissions } from "../permissions.ts";
import { claimOwnTools, markSandboxed } from "../sandboxed_tool.ts";
import { effectiveEffects } from "./granted_effects.ts";
import type { HookScope } from "./hook_grant.ts";
import { ownEvent, ownMessage, ownTurn } from "./own_scope.ts";
import type { PluginManifest } from "./protocol.ts";
import type { SandboxConnection } from "./sandbox_connection.ts";
import { toolSpec } from "./tool_spec.ts";
import { argumentDepthProblem } from "../../core/argument_depth.ts";

// The context's messages and tools stay objects: the connection sends only what its child
// has not seen of them (the tools as specs).
function serialize(
  context: BeforeToolCallContext | AfterToolCallContext,
  own: ReadonlySet<string> | undefined,
): Record<string, unknown> {
  if (own === undefined) {
    const inner = {
      systemPrompt: context.context.systemPrompt,
      messages: context.context.messages,
      tools: context.context.tools,
    };
    return { ...context, tool: toolSpec(context.tool), context: inner };
  }
  // Scoped to its own tools: the call and its result, nothing of the rest of the run (not
  // the model's text nor the other calls of its message).
  const inner = {
    systemPrompt: "",
    messages: [],
    tools: context.context.tools.filter((tool) => own.has(tool.name)),
  };
  return {
    ...context,
    assistantMessage: ownMessage(context.assistantMessage, own),
    tool: toolSpec(context.tool),
    context: inner,
  };
}

/**
 * A result whose details nest too deeply to write (events, `--json` and session files write
 * them whole, and 200,000 levels overflow the stack) keeps its content and a note instead.
 */
function shallowDetails(result: ToolResult): ToolResult {
  const tooDeep = argumentDepthProblem(result.details);
  if (tooDeep === undefined) return result;
  const note = `(its details were left out: ${tooDeep})`;
  return {
    ...result,
    details: undefined,
    content: [...result.content, { type: "text", text: note }],
  };
}

function textOf(result: ToolResult): string {
  // Its text blocks' text: an error result from the child is checked only after this.
  return result.content.flatMap((block) =>
    block?.type === "text" && typeof block.text === "string" ? [block.text] : []
  ).join("\n");
}

/** How the host bounds and scopes a sandboxed plugin. */
export interface SandboxedPluginOptions {
  /** Over which tools its hooks act (default `"own"`). */
  hooks?: HookScope;
  /** How long each of its hook calls may take once its sandbox is ready (default 30 000 ms). */
  hookTimeoutMs?: number;
  /** The most a tool's declared `timeoutMs` may be (default 120 000 ms, the agent's default; not a finite positive number: the default). */
  maxToolTimeoutMs?: number;
}

/**
 * The timeout a sandboxed tool gets from what it declares: a finite positive number, at
 * most `max`; anything else (`0`, `Infinity`, a negative or non-number) is ignored, so the
 * agent's `toolTimeoutMs` applies. A plugin can shorten its own tools' timeout, never
 * turn it off or stretch it past `max`.
 *
 * @param declared What the manifest says.
 * @param max The host's ceiling.
 * @returns The timeout, or `undefined` for the agent's.
 *
 * @example Turning the timeout off is ignored
 * ```ts
 * import { hostTimeout } from "./sandbox_plugin.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(hostTimeout(0, 120_000), undefined);
 * equal(hostTimeout(Infinity, 120_000), undefined);
 * equal(hostTimeout(10_000_000, 120_000), 120_000);
 * equal(hostTimeout(300, 120_000), 300);
 * ```
 */
export function hostTimeout(declared: unknown, max: number): number | undefined {
  if (typeof declared !== "number" || !Number.isFinite(declared) || declared <= 0) {
    return undefined;
  }
  return Math.min(declared, max);
}

/**
 * The most events a sandboxed plugin's `onEvent` may leave unanswered before the host
 * stops sending it `tool_execution_update` events (other events are always sent). A tool
 * reporting progress in a loop would otherwise pile up one waiting hook per update on the
 * host (a million updates: 2.8 GB).
 *
 * @example The bound
 * ```ts
 * import { MAX_EVENTS_WAITING } from "./sandbox_plugin.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(MAX_EVENTS_WAITING, 64);
 * ```
 */
export const MAX_EVENTS_WAITING = 64;

/** How long a sandboxed plugin's hook may take, by default, whatever the agent's `hookTimeoutMs`. */
const DEFAULT_SANDBOX_HOOK_TIMEOUT_MS = 30_000;

/**
 * Builds the host-side plugin of a sandbox from its manifest. The host owns what the
 * plugin could otherwise claim for itself: its tools' effects are at least what its
 * grants allow, their declared `timeoutMs` can shorten their timeout but never turn it
 * off or stretch it past `maxToolTimeoutMs`, and
 * its hooks are bounded by `hookTimeoutMs` and act on its own tools only unless granted
 * `hooks: "all"`.
 *
 * @param manifest What the child reported.
 * @param connection The sandbox the tools and hooks run in.
 * @param permissions The grants the sandbox runs with (what `inspect` shows).
 * @param options The hooks' scope and bound.
 * @returns A plugin whose tools and hooks run in the sandbox; `dispose()` stops it.
 *
 * @example A manifest with one tool
 * ```ts
 * import { sandboxedPlugin } from "./sandbox_plugin.ts";
 * import { SandboxConnection } from "./sandbox_connection.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const connection = new SandboxConnection("demo", () => { throw new Error("not started"); });
 * const plugin = sandboxedPlugin({
 *   name: "demo", hooks: [],
 *   tools: [{ name: "echo", description: "Echoes", parameters: { type: "object" },
 *     effects: ["read"], timeoutMs: 0 }],
 * }, connection, { write: ["/tmp/out"] });
 * equal(plugin.tools?.[0].plugin, "demo");
 * deepEqual(plugin.tools?.[0].effects, ["read", "write"]);
 * equal(plugin.tools?.[0].timeoutMs, undefined);
 * ```
 */
export function sandboxedPlugin(
  manifest: PluginManifest,
  connection: SandboxConnection,
  permissions: PluginPermissions,
  options: SandboxedPluginOptions = {},
): Plugin {
  const scope = options.hooks ?? "own";
  const limit = options.hookTimeoutMs ?? DEFAULT_SANDBOX_HOOK_TIMEOUT_MS;
  // A ceiling that is not a finite positive number is ignored: `Math.min` with 0 would turn
  // the tools' timeout off.
  const max = options.maxToolTimeoutMs;
  const maxTimeout = max !== undefined && max > 0 && Number.isFinite(max)
    ? max
    : DEFAULT_TOOL_TIMEOUT_MS;
  const names = new Set(manifest.tools.map((tool) => tool.name));
  const own = scope === "all" ? undefined : names;
  const mine = (context: BeforeToolCallContext) => own === undefined || own.has(context.tool.name);
  const tools: AgentTool[] = manifest.tools.map((tool) =>
    markSandboxed({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      label: tool.label,
      executionMode: tool.executionMode,
      timeoutMs: hostTimeout(tool.timeoutMs, maxTimeout),
      // Not a number (JSON has no Infinity): the agent's budget; the agent caps the rest.
      maxResultChars: typeof tool.maxResultChars === "number" && tool.maxResultChars >= 0
        ? tool.maxResultChars
        : undefined,
      effects: effectiveEffects(tool.effects, permissions),
      plugin: manifest.name,
      async execute(args, { toolCallId, signal, update }): Promise<ToolResult> {
        const answer = await connection.call(tool.name, toolCallId, args, signal, update);
        const { isError } = answer;
        const result = shallowDetails(answer.result);
        if (isError) {
          throw new ToolError(textOf(result), { details: result.details, content: result.content });
        }
        return result;
      },
    }, manifest.name)
  );
  const hooks = new Set(manifest.hooks);
  /** Events sent to the sandbox's `onEvent` that it has not answered yet. */
  let waiting = 0;
  const plugin: Plugin = {
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    permissions,
    sandboxed: true,
    tools,
    beforeToolCall: hooks.has("beforeToolCall")
      ? async function beforeToolCall(context) {
        if (!mine(context)) return undefined;
        return await connection.hook("beforeToolCall", serialize(context, own), limit) as undefined;
      }
      : undefined,
    // The host's own gate before its tools run: a sandbox restarting after a fault is
    // waited for here, within the hooks' bound, so the restart is never charged to the
    // next call's timeout. Synchronous (free) while the sandbox is up.
    verifyToolCall: hooks.has("verifyToolCall") || names.size > 0
      ? function verifyToolCall(context) {
        const restarting = names.has(context.tool.name) ? connection.readiness() : undefined;
        if (!hooks.has("verifyToolCall") || !mine(context)) {
          return restarting?.then(() => undefined);
        }
        const verify = () =>
          connection.hook("verifyToolCall", serialize(context, own), limit) as Promise<undefined>;
        return restarting === undefined ? verify() : restarting.then(verify);
      }
      : undefined,
    afterToolCall: hooks.has("afterToolCall")
      ? async function afterToolCall(context) {
        if (!mine(context)) return undefined;
        return await connection.hook("afterToolCall", serialize(context, own), limit) as undefined;
      }
      : undefined,
    shouldStopAfterTurn: hooks.has("shouldStopAfterTurn")
      ? async function shouldStopAfterTurn(context) {
        const { message, toolResults, newMessages } = context;
        const inner = context.context;
        const turn = own === undefined
          ? {
            message,
            toolResults,
            newMessages,
            context: {
              systemPrompt: inner.systemPrompt,
              messages: inner.messages,
              tools: inner.tools,
            },
          }
          : ownTurn(context, own);
        if (turn === undefined) return false;
        return await connection.hook("shouldStopAfterTurn", turn, limit) === true;
      }
      : undefined,
    onEvent: hooks.has("onEvent")
      ? function onEvent(event) {
        if (event.type === "message_update") return;
        // Progress is skipped while the child is behind: each update a tool reports would
        // otherwise wait here, in memory, for the child's answer.
        if (event.type === "tool_execution_update" && waiting >= MAX_EVENTS_WAITING) return;
        const seen = own === undefined ? event : ownEvent(event, own);
        if (seen === undefined) return;
        waiting++;
        connection.hook("onEvent", seen as unknown as Record<string, unknown>, limit)
          .catch(() => {})
          .finally(() => waiting--);
      }
      : undefined,
    dispose: () => connection.dispose(),
  };
  // Own-scope hooks know their calls by tool name: the agent registers no other tool of
  // those names next to them (even where the user left some of its tools out).
  return own !== undefined && hooks.size > 0 ? claimOwnTools(plugin, [...names]) : plugin;
}
