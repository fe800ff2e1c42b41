// The "new process" of the interrupt-and-resume tests: reads a stored state and decisions,
// resumes with the same tools on a script that echoes what the model received, and prints
// the transcript as JSON.
import { resumeAgent, text } from "@tack/agent";
import { durableOptions } from "./durable_fixture.ts";

const [statePath, decisionsPath, logPath] = Deno.args;
const state = JSON.parse(await Deno.readTextFile(statePath));
const decisions = JSON.parse(await Deno.readTextFile(decisionsPath));
const options = durableOptions(logPath, [
  (request) => {
    const results = request.messages.filter((m) => m.role === "toolResult");
    return [text(`saw ${results.length} results`)];
  },
]);
const agent = await resumeAgent(state, { ...options, decisions });
console.log(JSON.stringify({ messages: agent.messages, state: agent.state() }));
