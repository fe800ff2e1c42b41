// The model reads a permission denial and chooses an allowed path instead.
//
//   deno run -A examples/sandbox.ts
//
// The notes plugin runs in its own Deno process (under bubblewrap where available)
// with `read: ["./notes"]` and nothing else. The scripted model first reaches for the
// user's SSH key, reads the denial (text and `details.permission`), lists the folder it
// may read instead, and reads the note there. Offline: no key, no network.
import {
  createAgent,
  type ModelRequest,
  scriptedModel,
  text,
  toolCall,
  type ToolResultMessage,
} from "@tack/agent";
import { loadPlugin } from "../sdk/sandbox/mod.ts";

/**
 * Runs the example: loads the notes plugin sandboxed and lets the scripted model work.
 *
 * @returns The lines it printed.
 */
export async function runSandbox(): Promise<string[]> {
  const lines: string[] = [];
  const print = (line: string) => {
    lines.push(line);
    console.log(line);
  };
  const root = await Deno.makeTempDir({ prefix: "tack-example-" });
  await Deno.mkdir(`${root}/notes`);
  await Deno.writeTextFile(`${root}/notes/todo.txt`, "Buy milk. Ship the sandbox.");

  const notes = await loadPlugin("./tests/fixtures/sandbox/notes_plugin.ts", {
    sandbox: true,
    root,
  });
  print(
    `plugin "${notes.name}" runs sandboxed with read: ${JSON.stringify(notes.permissions?.read)}`,
  );

  const lastResult = (request: ModelRequest): ToolResultMessage => {
    const result = request.messages.findLast((m) => m.role === "toolResult");
    if (result?.role !== "toolResult") throw new Error("Cannot continue: no tool result yet");
    return result;
  };

  const model = scriptedModel([
    [
      text("Let me look for credentials first."),
      toolCall("read_file", { path: `${Deno.env.get("HOME") ?? "/root"}/.ssh/id_rsa` }),
    ],
    (request) => {
      const denial = lastResult(request);
      const permission = (denial.details as { permission?: { name: string } }).permission;
      if (!denial.isError || permission?.name !== "read") return [text("Unexpected: that worked.")];
      return [
        text("That file is off limits; I may read the notes folder."),
        toolCall("list_dir", { path: `${root}/notes` }),
      ];
    },
    (request) => {
      const listing = lastResult(request).content[0];
      const first = listing.type === "text" ? listing.text.split("\n")[0] : "";
      return [toolCall("read_file", { path: `${root}/notes/${first}` })];
    },
    (request) => {
      const note = lastResult(request).content[0];
      return [text(`Your note says: ${note.type === "text" ? note.text : "?"}`)];
    },
  ]);

  const agent = createAgent({ model, plugins: [notes] });
  agent.subscribe((event) => {
    if (event.type === "tool_execution_start") {
      print(`→ ${event.toolName}(${JSON.stringify(event.args)})`);
    } else if (event.type === "tool_execution_end") {
      const first = event.result.content[0];
      print(`  ${event.isError ? "✗" : "✓"} ${first?.type === "text" ? first.text : ""}`);
    }
  });
  try {
    await agent.prompt("What do my notes say?");
    const answer = agent.messages.at(-1);
    if (answer?.role === "assistant") {
      print(answer.content.map((block) => block.type === "text" ? block.text : "").join(""));
    }
  } finally {
    await agent.dispose();
    await Deno.remove(root, { recursive: true });
  }
  return lines;
}

if (import.meta.main) await runSandbox();
