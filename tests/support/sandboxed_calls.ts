/**
 * Calling a loaded plugin's tools directly in sandbox tests: a tool by name, a call whose
 * error comes back as text, and which sandbox instance answered (the fixtures' `echo`
 * reports it in `details.instance`, so a test can tell a restart).
 *
 * @module
 */

import type { AgentTool, Plugin, ToolResult } from "@tack/agent";

/**
 * A plugin's tool by name.
 *
 * @param plugin The loaded plugin.
 * @param name The tool's name.
 * @returns The tool (the test fails on a missing one when it calls it).
 */
export function toolOf(plugin: Plugin, name: string): AgentTool {
  return plugin.tools!.find((candidate) => candidate.name === name)!;
}

/**
 * Runs a tool; an error result (a rejection) comes back as its text prefixed with "error: ".
 *
 * @param plugin The loaded plugin.
 * @param name The tool's name.
 * @param args Its arguments.
 * @returns The result's text, or `error: <message>`.
 */
export async function callTool(
  plugin: Plugin,
  name: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  try {
    const result: ToolResult = await toolOf(plugin, name).execute(args, {
      toolCallId: name,
      signal: new AbortController().signal,
    });
    return result.content.map((block) => block.type === "text" ? block.text : "").join("");
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

/**
 * Which sandbox instance answers now (from the fixture's `echo` tool).
 *
 * @param plugin A plugin loaded from a fixture whose `echo` reports `details.instance`.
 * @returns The instance's id.
 */
export async function instanceOf(plugin: Plugin): Promise<string> {
  const result = await toolOf(plugin, "echo").execute({ text: "who" }, {
    toolCallId: "who",
    signal: new AbortController().signal,
  });
  return (result.details as { instance: string }).instance;
}
