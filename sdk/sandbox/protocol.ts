/**
 * The JSON-lines protocol between the host and a sandboxed plugin: one JSON object per
 * line, the child's on stdout, the host's on stdin (or `postMessage` for a worker).
 *
 * @module
 */

import type { ToolEffect, ToolExecutionMode, ToolResult } from "../../core/tool.ts";
import type { PluginLimits } from "../plugin_limits.ts";
import type { PluginPermissions } from "../permissions.ts";
import type { TranscriptDelta } from "./transcript_cursor.ts";

/** A tool as the child describes it: everything but `execute`. */
export interface ToolManifest {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  label?: string;
  executionMode?: ToolExecutionMode;
  timeoutMs?: number;
  maxResultChars?: number;
  effects?: ToolEffect[];
}

/**
 * The hooks a sandboxed plugin may register, all proxied over the protocol. `onEvent`
 * gets every event but the `message_update` deltas, and its answer is not awaited.
 */
export type ProxiedHook =
  | "beforeToolCall"
  | "verifyToolCall"
  | "afterToolCall"
  | "shouldStopAfterTurn"
  | "onEvent";

/** Every proxied hook, in the order the manifest lists them. */
export const PROXIED_HOOKS: readonly ProxiedHook[] = [
  "beforeToolCall",
  "verifyToolCall",
  "afterToolCall",
  "shouldStopAfterTurn",
  "onEvent",
];

/** What the child sends first, once the plugin module has loaded. */
export interface PluginManifest {
  name: string;
  version?: string;
  description?: string;
  permissions?: PluginPermissions;
  limits?: PluginLimits;
  tools: ToolManifest[];
  hooks: ProxiedHook[];
}

/** A message from the host to the child. */
export type HostMessage =
  | {
    type: "call";
    id: number;
    tool: string;
    toolCallId: string;
    args: Record<string, unknown>;
  }
  | {
    type: "hook";
    id: number;
    hook: ProxiedHook;
    /** The hook's context; its `context.messages` and `context.tools` are rebuilt from `transcript` and `tools`. */
    context: Record<string, unknown>;
    /** What changed in the transcript since the child last saw it. */
    transcript?: TranscriptDelta;
    /** What changed in the tool list (tool specs) since the child last saw it. */
    tools?: TranscriptDelta;
  }
  | { type: "cancel"; id: number };

/** A message from the child to the host. */
export type ChildMessage =
  | { type: "manifest"; manifest: PluginManifest }
  | { type: "update"; id: number; partial: ToolResult }
  | { type: "result"; id: number; result: ToolResult; isError: boolean }
  | { type: "hook_result"; id: number; value?: unknown; error?: string }
  | { type: "fatal"; message: string }
  /** An allocation failed: the child is out of memory (it is then restarted). */
  | { type: "out_of_memory" };

function hasId(value: object): boolean {
  return typeof (value as { id?: unknown }).id === "number";
}

/** A tool result's shape, as far as every listener of its events relies on it. */
function hasContent(result: unknown): boolean {
  return Array.isArray((result as { content?: unknown } | null | undefined)?.content);
}

/**
 * Parses one line the child printed. Anything that is not a known message is garbage,
 * and so is an update or a result without a `content` array.
 *
 * @param line One line of the child's stdout.
 * @returns The message, or `undefined` for garbage.
 *
 * @example A result and some garbage
 * ```ts
 * import { parseChildMessage } from "./protocol.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(parseChildMessage('{"type":"fatal","message":"boom"}')?.type, "fatal");
 * equal(parseChildMessage("hello"), undefined);
 * ```
 */
export function parseChildMessage(line: string): ChildMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return checkChildMessage(value);
}

/**
 * A value as a child's message, or `undefined` for garbage ({@linkcode parseChildMessage}
 * once parsed; a worker's messages arrive parsed).
 *
 * @param value What the child sent.
 * @returns The message, or `undefined` for garbage.
 *
 * @example
 * ```ts
 * import { checkChildMessage } from "./protocol.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(checkChildMessage({ type: "update", id: 1, partial: null }), undefined);
 * ```
 */
export function checkChildMessage(value: unknown): ChildMessage | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const type = (value as { type?: unknown }).type;
  switch (type) {
    case "manifest":
      return Array.isArray((value as { manifest?: { tools?: unknown } }).manifest?.tools)
        ? value as ChildMessage
        : undefined;
    case "update":
      return hasId(value) && hasContent((value as { partial?: unknown }).partial)
        ? value as ChildMessage
        : undefined;
    case "result":
      return hasId(value) && hasContent((value as { result?: unknown }).result)
        ? value as ChildMessage
        : undefined;
    case "hook_result":
      return hasId(value) ? value as ChildMessage : undefined;
    case "out_of_memory":
      return value as ChildMessage;
    case "fatal":
      return typeof (value as { message?: unknown }).message === "string"
        ? value as ChildMessage
        : undefined;
    default:
      return undefined;
  }
}
