/**
 * Record once, replay in CI: a run against an OpenAI-compatible server (here the fake one
 * the tests use, on 127.0.0.1) is recorded at the provider level (the `fetch` option) and
 * at the model-stream level, with tool results; then it is replayed offline, twice: the
 * model from the cassette (`replayModel`), and the provider itself (`replayFetch`), with
 * the tools answered from the cassette (`replayTools`).
 *
 * Run: `deno run -A examples/replay.ts` (writes `replay.cassette.jsonl` to a temp dir).
 *
 * @module
 */

import {
  createAgent,
  createRecorder,
  defineTool,
  type Message,
  replayFetch,
  replayModel,
  replayTools,
} from "@tack/agent";
import { Type } from "typebox";
import { openai } from "@tack/agent/sdk/providers/openai";
import { startFakeOpenAI } from "../tests/support/fake_openai_server.ts";

const weather = defineTool({
  name: "get_weather",
  description: "Current weather for a city",
  parameters: Type.Object({ city: Type.String() }),
  execute: ({ city }) => ({ content: [{ type: "text", text: `Sunny, 21°C in ${city}` }] }),
});

function answerOf(messages: readonly Message[]): string {
  const last = messages.at(-1);
  if (last?.role !== "assistant") return "";
  return last.errorMessage ??
    last.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** Records a run against the fake server and returns the cassette (JSONL). */
export async function record(prompt = "Weather in Paris?"): Promise<string> {
  await using server = await startFakeOpenAI({
    turns: [
      { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" }, id: "call_1" }] },
      { text: "It is sunny in Paris." },
    ],
  });
  const recorder = createRecorder();
  const model = openai({
    model: "gpt-test",
    baseURL: server.baseURL,
    apiKey: "sk-test-secret-key-123456",
    fetch: recorder.fetch(),
  });
  const agent = createAgent({ model: recorder.model(model), tools: [weather] });
  agent.subscribe(recorder.listener);
  await agent.prompt(prompt);
  return await recorder.toJsonl();
}

/** Replays the model side from the cassette: no server, no network. */
export async function replayModelSide(
  cassette: string,
  prompt = "Weather in Paris?",
): Promise<string> {
  const agent = createAgent({ model: replayModel(cassette), tools: [weather] });
  return answerOf(await agent.prompt(prompt));
}

/** Replays the provider (HTTP) side, tools answered from the cassette: nothing runs. */
export async function replayProviderSide(
  cassette: string,
  prompt = "Weather in Paris?",
): Promise<string> {
  const model = openai({
    model: "gpt-test",
    baseURL: "http://127.0.0.1:9/v1", // never contacted
    apiKey: "sk-other-key-for-replay",
    fetch: replayFetch(cassette),
    maxRetries: 0,
  });
  const agent = createAgent({ model, tools: replayTools(cassette, [weather]) });
  return answerOf(await agent.prompt(prompt));
}

if (import.meta.main) {
  const cassette = await record();
  const path = `${await Deno.makeTempDir()}/replay.cassette.jsonl`;
  await Deno.writeTextFile(path, cassette);
  console.log(`recorded ${cassette.split("\n").filter(Boolean).length} lines to ${path}`);
  console.log("model replay:   ", await replayModelSide(cassette));
  console.log("provider replay:", await replayProviderSide(cassette));
  console.log("changed prompt: ", await replayModelSide(cassette, "Weather in Rome?"));
}
