/**
 * Prints an agent's event stream readably, one line per step, for the examples.
 *
 * @module
 */

import type { Agent, AgentEvent, ToolResult } from "@tack/agent";

const color = !Deno.noColor && Deno.stdout.isTerminal();
const paint = (open: string, close: string) => (s: string) =>
  color ? `\x1b[${open}m${s}\x1b[${close}m` : s;
const dim = paint("2", "22");
const bold = paint("1", "22");
const red = paint("31", "39");
const green = paint("32", "39");

function short(value: unknown, max = 100): string {
  const s = typeof value === "string" ? value : JSON.stringify(value);
  const flat = s.replaceAll("\n", " ⏎ ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function resultText(result: ToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("");
}

/**
 * Formats one event as a line, or `undefined` for events not worth a line.
 *
 * @param event The event.
 * @returns The line.
 */
export function formatEvent(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "agent_start":
      return dim("agent_start");
    case "turn_start":
      return dim("turn_start");
    case "message_end": {
      const m = event.message;
      if (m.role === "user") return `${bold("user     ")} ${short(m.content)}`;
      if (m.role === "toolResult") return undefined;
      const parts = m.content.map((c) =>
        c.type === "text"
          ? c.text
          : c.type === "thinking"
          ? dim(`(thinking) ${c.thinking}`)
          : `→ ${c.name} ${short(c.arguments)}`
      );
      const error = m.errorMessage ? red(` [${m.stopReason}] ${m.errorMessage}`) : "";
      return `${bold("assistant")} ${short(parts.join("  "), 160)}${error} ${
        dim(`(stopReason ${m.stopReason})`)
      }`;
    }
    case "tool_execution_start":
      return `${dim("  tool_execution_start")} ${event.toolName} ${dim(event.toolCallId)}`;
    case "tool_execution_update":
      return `${dim("  tool_execution_update")} ${event.toolName}: ${
        short(resultText(event.partialResult))
      }`;
    case "tool_execution_end": {
      const mark = event.isError ? red("✗ error") : green("✓ ok");
      return `${dim("  tool_execution_end")}   ${event.toolName} ${mark}: ${
        short(resultText(event.result), 140)
      }`;
    }
    case "turn_end":
      return dim(`turn_end (${event.toolResults.length} tool results)`);
    case "agent_end":
      return dim(`agent_end (${event.messages.length} new messages)`);
    default:
      return undefined;
  }
}

/**
 * Prints every event of an agent's runs.
 *
 * @param agent The agent to watch.
 * @param write Where lines go (default: console.log).
 * @returns A function that stops printing.
 */
export function printEvents(agent: Agent, write: (line: string) => void = console.log): () => void {
  return agent.subscribe((event) => {
    const line = formatEvent(event);
    if (line !== undefined) write(`  ${line}`);
  });
}

/**
 * Prints a section title.
 *
 * @param title The title.
 */
export function heading(title: string): void {
  console.log(`\n${bold(`━━ ${title} ━━`)}`);
}
