// The README's sandbox section, walked from a fresh project: its example host (with a scripted
// model for `openai`, offline) and the README's notes plugin, run on a terminal with exactly
// the host flags the README documents. A flag too few is a prompt (or a load error); the
// plugin's note must land in the project's folder.
import { equal, match } from "node:assert/strict";
import { join } from "node:path";
import { commandOnTerminal } from "../support/on_terminal.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const README = await Deno.readTextFile(join(REPO, "README.md"));

/** The first fenced block of `language` after `heading` in the README. */
function blockAfter(heading: string, language: string): string {
  const section = README.indexOf(`\n${heading}\n`);
  equal(section >= 0, true, `README has no ${heading}`);
  const block = new RegExp("```" + language + "\\n([\\s\\S]*?)```").exec(README.slice(section));
  equal(block !== null, true, `README has no ${language} block after ${heading}`);
  return block![1];
}

function replaceOnce(text: string, from: string, to: string): string {
  equal(text.split(from).length, 2, `the README's example holds ${from} once`);
  return text.replace(from, () => to);
}

const SANDBOX = "## Sandbox: Deno permissions around plugins";

/** The sandbox section's example with a scripted model that saves a note, then prints it. */
function host(): string {
  let source = blockAfter(SANDBOX, "ts");
  source = replaceOnce(
    source,
    'import { createAgent, loadPlugin, openai } from "@tack/agent";',
    'import { createAgent, loadPlugin } from "@tack/agent";\n' +
      'import { scriptedModel, text, toolCall } from "@tack/agent/sdk/testing";',
  );
  source = replaceOnce(
    source,
    'openai({ model: "gpt-4.1-mini" })',
    'scriptedModel([[toolCall("save_note", { title: "todo", text: "Buy milk." })], [text("ok")]])',
  );
  return replaceOnce(
    source,
    "// …",
    `const messages = await agent.prompt("note: buy milk");
const result = messages.find((message) => message.role === "toolResult");
console.log(result?.role === "toolResult" && result.content[0].type === "text" && result.content[0].text);
console.log(await Deno.readTextFile("./notes/todo.md"));`,
  );
}

Deno.test("the README's host flags run its sandbox example with its notes plugin from a fresh project, no prompt", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tack-user-project-" });
  try {
    await Deno.writeTextFile(
      join(dir, "deno.json"),
      JSON.stringify({ links: [REPO], imports: { "@tack/agent": "jsr:@tack/agent@^0.1" } }),
    );
    await Deno.writeTextFile(join(dir, "notes_plugin.ts"), blockAfter("## Write a plugin", "ts"));
    await Deno.writeTextFile(join(dir, "main.ts"), host());
    // Its lines joined where they end in a backslash, as a shell does.
    const command = blockAfter(SANDBOX, "sh").replace(/\\\n/g, " ").trim().split(/\s+/);
    equal(command[0], "deno");
    const { prompt, output } = await commandOnTerminal([Deno.execPath(), ...command.slice(1)], dir);
    equal(prompt, undefined, `${command.join(" ")}: ${prompt}`);
    match(output, /^saved todo\r?\nBuy milk\.\r?\n/m, output);
    equal(await Deno.readTextFile(join(dir, "notes", "todo.md")), "Buy milk.");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
