/**
 * The seed's example: a weather tool, the model calls it, the answer uses the result.
 * Runs on the scripted model (no key needed): `deno run examples/weather.ts`.
 *
 * @module
 */

import { createAgent, defineTool, type Message, scriptedModel, text, toolCall } from "@tack/agent";
import { Type } from "typebox";
import { heading, printEvents } from "./print_events.ts";

/** A weather tool with a fixed table instead of a web service. */
export const weather = defineTool({
  name: "get_weather",
  description: "Current weather for a city",
  parameters: Type.Object({ city: Type.String({ description: "City name, e.g. Paris" }) }),
  execute({ city }) {
    const table: Record<string, { sky: string; tempC: number }> = {
      Paris: { sky: "Sunny", tempC: 21 },
      Oslo: { sky: "Snowing", tempC: -3 },
    };
    const found = table[city];
    if (!found) {
      throw new Error(
        `No weather station in ${city}. Known cities: ${Object.keys(table).join(", ")}`,
      );
    }
    return {
      content: [{ type: "text", text: `${found.sky}, ${found.tempC}°C in ${city}` }],
      details: found,
    };
  },
});

function lastToolText(messages: readonly Message[]): string {
  const last = messages.at(-1);
  return last?.role === "toolResult" && last.content[0]?.type === "text"
    ? last.content[0].text
    : "";
}

/**
 * Runs the weather example and returns the final answer.
 *
 * @returns The model's last text.
 */
export async function runWeather(): Promise<string> {
  heading("weather: the model calls a tool and answers with its result");
  const model = scriptedModel([
    [text("Let me check."), toolCall("get_weather", { city: "Paris" })],
    (request) => [text(`Right now in Paris: ${lastToolText(request.messages)}.`)],
  ]);
  const agent = createAgent({
    model,
    systemPrompt: "You answer weather questions.",
    tools: [weather],
  });
  printEvents(agent);
  const added = await agent.prompt("What's the weather in Paris?");
  const answer = added.at(-1);
  return answer?.role === "assistant" && answer.content[0]?.type === "text"
    ? answer.content[0].text
    : "";
}

if (import.meta.main) await runWeather();
