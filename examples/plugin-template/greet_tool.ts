/**
 * The `greet` tool: greets someone by name.
 *
 * @module
 */

import { type AgentTool, defineTool } from "@tack/agent/plugin";
import { Type } from "typebox";

/** The environment variable the tool reads its greeting from (declared in the permissions). */
export const GREETING_ENV = "HELLO_GREETING";

/** The tool's arguments, as its schema validates them. */
export type GreetArgs = {
  /** Who to greet (1 to 100 characters). */
  name: string;
};

/** What the tool's results carry besides their text. */
export interface GreetDetails {
  /** The greeting used. */
  greeting: string;
}

const parameters = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: 100,
    description: "Who to greet",
  }),
}, { additionalProperties: false });

/** What {@linkcode createGreetTool} takes. */
export interface GreetToolOptions {
  /** The greeting when `HELLO_GREETING` is unset or unreadable (default `"Hello"`). */
  greeting?: string;
}

function greetingFrom(fallback: string): string {
  try {
    return Deno.env.get(GREETING_ENV) || fallback;
  } catch {
    // Sandboxed without `env` permission: the declared fallback applies.
    return fallback;
  }
}

/**
 * Creates the `greet` tool. Its text result is `"<greeting>, <name>!"`; its details carry
 * the greeting used.
 *
 * @param options The fallback greeting.
 * @returns The tool.
 *
 * @example Greeting directly
 * ```ts
 * import { createGreetTool } from "./greet_tool.ts";
 * import { equal } from "node:assert/strict";
 *
 * const greet = createGreetTool({ greeting: "Hi" });
 * equal(greet.name, "greet");
 * ```
 */
export function createGreetTool(
  options: GreetToolOptions = {},
): AgentTool<GreetArgs, GreetDetails> {
  const fallback = options.greeting ?? "Hello";
  return defineTool({
    name: "greet",
    description: "Greets a person by name",
    parameters,
    execute: ({ name }) => {
      const greeting = greetingFrom(fallback);
      return {
        content: [{ type: "text", text: `${greeting}, ${name}!` }],
        details: { greeting },
      };
    },
  });
}
