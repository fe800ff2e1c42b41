/**
 * `@you/tack-plugin-hello`: a Tack plugin with one tool (`greet`), one policy hook (a
 * block list) and declared permissions. Copy it with `deno task new-plugin <name>`.
 *
 * @example Adding the plugin to an agent
 * ```ts
 * import hello from "./mod.ts";
 * import { createAgent } from "@tack/agent/sdk";
 * import { scriptedModel, text, toolCall } from "@tack/agent/sdk/testing";
 * import { equal } from "node:assert/strict";
 *
 * const agent = createAgent({
 *   model: scriptedModel([[toolCall("greet", { name: "Ada" })], [text("Done.")]]),
 *   plugins: [hello({ greeting: "Hi" })],
 * });
 * const added = await agent.prompt("Greet Ada");
 * const result = added[2];
 * equal(result.role === "toolResult" && result.content[0].type === "text" && result.content[0].text, "Hi, Ada!");
 * ```
 *
 * @module
 */

import { definePlugin, type Plugin } from "@tack/agent/plugin";
import { blockNames } from "./block_names.ts";
import { createGreetTool, GREETING_ENV } from "./greet_tool.ts";

export { blockedMessage, blockNames } from "./block_names.ts";
export {
  createGreetTool,
  type GreetArgs,
  type GreetDetails,
  GREETING_ENV,
  type GreetToolOptions,
} from "./greet_tool.ts";

/** What {@linkcode hello} takes (the `options` of its `tack.jsonc` entry). */
export interface HelloOptions {
  /** The greeting when `HELLO_GREETING` is unset (default `"Hello"`). */
  greeting?: string;
  /** Names the plugin refuses to greet. */
  blockedNames?: readonly string[];
}

/**
 * Creates the plugin. Sandboxed, it runs with exactly its declared permissions: it may read
 * the `HELLO_GREETING` environment variable and nothing else.
 *
 * @param options Greeting and block list.
 * @returns The plugin.
 * @throws {TypeError} When `blockedNames` is given and is not an array of strings.
 *
 * @example Declared permissions
 * ```ts
 * import { hello } from "./mod.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(hello().permissions, { env: ["HELLO_GREETING"] });
 * ```
 */
export function hello(options: HelloOptions = {}): Plugin {
  const blocked = options.blockedNames ?? [];
  if (
    !Array.isArray(blocked) || blocked.some((name) => typeof name !== "string")
  ) {
    throw new TypeError(
      "Cannot create plugin hello: blockedNames must be an array of strings",
    );
  }
  return definePlugin({
    name: "hello",
    version: "0.1.0",
    description: "Greets people by name, except those on a block list",
    permissions: { env: [GREETING_ENV] },
    tools: [createGreetTool({ greeting: options.greeting })],
    beforeToolCall: blockNames(blocked),
  });
}

export default hello;
