/**
 * The `greet` tool: greets someone by name.
 *
 * @module
 */

import { defineTool, type Tool } from "@tack/agent/sdk";
import { type TObject, type TString, Type } from "typebox";

/** The environment variable the tool reads its greeting from (declared in the permissions). */
export const GREETING_ENV = "HELLO_GREETING";

/** The schema of the tool's arguments: `{ name: string }`. */
export type GreetParameters = TObject<{ name: TString }>;

const parameters: GreetParameters = Type.Object({
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
): Tool<GreetParameters, { greeting: string }> {
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
