/**
 * Small helpers for core and SDK tests: record events, build tools, defer promises.
 *
 * @module
 */

import {
  type Agent,
  type AgentEvent,
  defineTool,
  type Message,
  type Tool,
  type ToolResultMessage,
} from "@tack/agent";
import { Type } from "typebox";

/** Collects every event an agent emits. */
export function recordEvents(agent: Agent): AgentEvent[] {
  const events: AgentEvent[] = [];
  agent.subscribe((event) => events.push(event));
  return events;
}

/** The tool results among messages. */
export function resultsOf(messages: readonly Message[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}

/** The text of a result's first text block. */
export function textOf(message: { content: readonly { type: string; text?: string }[] }): string {
  return message.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("");
}

/** A promise with its resolve function outside. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A tool that answers with fixed text. */
export function echoTool(name = "echo"): Tool {
  return defineTool({
    name,
    description: "Echoes its text",
    parameters: Type.Object({ text: Type.Optional(Type.String()) }),
    execute: ({ text }) => ({ content: [{ type: "text", text: text ?? name }] }),
  });
}

/** A tool that sleeps `ms` and says so ("slept <ms>"). */
export const sleepTool: Tool = defineTool({
  name: "sleep",
  description: "Sleeps",
  parameters: Type.Object({ ms: Type.Number() }),
  async execute({ ms }) {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { content: [{ type: "text", text: `slept ${ms}` }] };
  },
});

/** A tool whose calls wait on a gate the test opens, recording start and end order. */
export function gatedTool(
  name: string,
  log: string[],
  gates: Map<string, Promise<void>>,
  options: { executionMode?: "parallel" | "sequential"; timeoutMs?: number } = {},
): Tool {
  return defineTool({
    name,
    description: "Waits for the test",
    parameters: Type.Object({ key: Type.String() }),
    ...options,
    async execute({ key }) {
      log.push(`start ${key}`);
      await gates.get(key);
      log.push(`end ${key}`);
      return { content: [{ type: "text", text: `done ${key}` }] };
    },
  });
}
