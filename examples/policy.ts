/**
 * One agent under three policies: CI allows everything, interactive asks the user,
 * read-only blocks writes. The loop offers the hook; each policy is a small plugin.
 * `deno run examples/policy.ts`.
 *
 * @module
 */

import {
  createAgent,
  definePlugin,
  defineTool,
  type Plugin,
  scriptedModel,
  text,
  toolCall,
  type ToolResultMessage,
} from "@tack/agent";
import { Type } from "typebox";
import { heading, printEvents } from "./print_events.ts";

/** An in-memory notebook with a read and a write tool, so the example touches no disk. */
function notebook() {
  const notes = new Map<string, string>([["todo", "buy milk"]]);
  return [
    defineTool({
      name: "read_note",
      description: "Reads a note",
      parameters: Type.Object({ name: Type.String() }),
      effects: ["read"],
      execute: ({ name }) => ({
        content: [{ type: "text", text: notes.get(name) ?? `(no note "${name}")` }],
      }),
    }),
    defineTool({
      name: "write_note",
      description: "Writes a note",
      parameters: Type.Object({ name: Type.String(), text: Type.String() }),
      effects: ["write"],
      execute: ({ name, text }) => {
        notes.set(name, text);
        return { content: [{ type: "text", text: `saved "${name}"` }] };
      },
    }),
  ];
}

/** CI: no policy plugin at all; every call runs. */
const allowAll: Plugin[] = [];

/** Interactive: ask before anything with a write effect; the "user" here is a function. */
function askFirst(answer: (tool: string, args: unknown) => boolean): Plugin {
  return definePlugin({
    name: "ask-first",
    beforeToolCall: ({ tool, args }) => {
      if (!tool.effects?.includes("write")) return undefined;
      const yes = answer(tool.name, args);
      console.log(`  ? allow ${tool.name} ${JSON.stringify(args)}? ${yes ? "yes" : "no"}`);
      return yes ? undefined : { block: true, reason: `The user declined to run ${tool.name}.` };
    },
  });
}

/** Read-only: block every tool that writes or executes. */
const readOnly: Plugin = definePlugin({
  name: "read-only",
  beforeToolCall: ({ tool }) =>
    tool.effects?.some((e) => e === "write" || e === "exec")
      ? { block: true, reason: `Read-only mode: ${tool.name} would write, so it was not run.` }
      : undefined,
});

/**
 * Runs the same agent under each policy and returns the outcome of its write.
 *
 * @returns For each policy, whether the write ran.
 */
export async function runPolicies(): Promise<Record<string, boolean>> {
  const outcomes: Record<string, boolean> = {};
  const policies: [string, Plugin[]][] = [
    ["CI: allow all", allowAll],
    ["interactive: ask (the user says no to writes)", [askFirst(() => false)]],
    ["read-only: block writes", [readOnly]],
  ];
  for (const [name, plugins] of policies) {
    heading(`policy ${name}`);
    const agent = createAgent({
      model: scriptedModel([
        [
          toolCall("read_note", { name: "todo" }),
          toolCall("write_note", { name: "todo", text: "buy oat milk" }),
        ],
        [text("Done what I was allowed to do.")],
      ]),
      tools: notebook(),
      plugins,
    });
    printEvents(agent);
    const added = await agent.prompt("Change my todo to oat milk.");
    const write = added.find((m): m is ToolResultMessage =>
      m.role === "toolResult" && m.toolName === "write_note"
    );
    outcomes[name] = write?.isError === false;
  }
  return outcomes;
}

if (import.meta.main) await runPolicies();
