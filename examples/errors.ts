/**
 * The error paths, each ending as a result the model reads and corrects from: a
 * hallucinated tool, invalid arguments, a policy block, a throwing tool.
 * `deno run examples/errors.ts`.
 *
 * @module
 */

import {
  createAgent,
  definePlugin,
  type Message,
  type ModelRequest,
  scriptedModel,
  text,
  toolCall,
} from "@tack/agent";
import { heading, printEvents } from "./print_events.ts";
import { weather } from "./weather.ts";

function lastResult(messages: readonly Message[]): string {
  const last = messages.at(-1);
  return last?.role === "toolResult" && last.content[0]?.type === "text"
    ? last.content[0].text
    : "";
}

/** The scripted model's side: read the last result and react to it, as a real model would. */
function reading(react: (result: string) => ReturnType<typeof toolCall> | string) {
  return (request: ModelRequest) => {
    const next = react(lastResult(request.messages));
    return typeof next === "string" ? [text(next)] : [next];
  };
}

/** A policy that keeps the model away from one city. */
const noAtlantisPolicy = definePlugin({
  name: "no-atlantis",
  beforeToolCall: ({ args }) =>
    args.city === "Atlantis"
      ? { block: true, reason: "Looking up Atlantis is not allowed by policy." }
      : undefined,
});

/**
 * Walks the four error paths and returns the results the model read.
 *
 * @returns The text of each error result, in order.
 */
export async function runErrors(): Promise<string[]> {
  heading("errors: every failure is a result the model reads and corrects");
  const seen: string[] = [];
  const model = scriptedModel([
    // 1. A hallucinated tool.
    [toolCall("banana", { city: "Paris" })],
    // 2. It reads "Tool banana not found. Available tools: get_weather" and fixes the name, but not the arguments.
    reading((r) => (seen.push(r), toolCall("get_weather", { town: "Paris" }))),
    // 3. It reads which path failed and what was expected; it now asks for a city the policy blocks.
    reading((r) => (seen.push(r), toolCall("get_weather", { city: "Atlantis" }))),
    // 4. Blocked with the policy's reason; it tries a city the tool does not know, and the tool throws.
    reading((r) => (seen.push(r), toolCall("get_weather", { city: "Springfield" }))),
    // 5. The thrown error lists the known cities; it picks one and succeeds.
    reading((r) => (seen.push(r), toolCall("get_weather", { city: "Oslo" }))),
    reading((r) => `Sorry for the detours. In Oslo: ${r}.`),
  ]);
  const agent = createAgent({ model, tools: [weather], plugins: [noAtlantisPolicy] });
  printEvents(agent);
  await agent.prompt("What's the weather like?");
  return seen;
}

if (import.meta.main) await runErrors();
