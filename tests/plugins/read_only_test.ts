import {
  createAgent,
  definePlugin,
  defineTool,
  scriptedModel,
  text,
  type Tool,
  toolCall,
  type ToolEffect,
  type ToolResultMessage,
} from "@tack/agent";
import readOnlyDefault, { readOnly, readOnlyMessage } from "@tack/agent/plugins/read_only";
import { Type } from "typebox";
import { deepEqual, equal, throws } from "node:assert/strict";

function fileTool(root: string, name: string, effects?: ToolEffect[]): Tool {
  return defineTool({
    name,
    description: name,
    effects,
    parameters: Type.Object({}),
    async execute() {
      await Deno.writeTextFile(`${root}/${name}`, "ran");
      return { content: [{ type: "text", text: `${name} ran` }] };
    },
  });
}

async function run(
  root: string,
  plugin = readOnly(),
): Promise<{ results: string[]; ran: string[] }> {
  const tools = [
    fileTool(root, "read", ["read"]),
    fileTool(root, "write", ["write"]),
    fileTool(root, "bash", ["exec"]),
    fileTool(root, "fetch_url", ["net"]),
    fileTool(root, "sync", ["read", "write", "net"]),
    fileTool(root, "mystery"),
  ];
  const agent = createAgent({
    model: scriptedModel([tools.map((tool) => toolCall(tool.name, {})), [text("done")]]),
    tools,
    plugins: [plugin],
  });
  const results = (await agent.prompt("go"))
    .filter((m): m is ToolResultMessage => m.role === "toolResult")
    .map((m) =>
      `${m.toolName}: ${m.content.map((c) => (c.type === "text" ? c.text : "")).join("")}`
    );
  const ran = (await Array.fromAsync(Deno.readDir(root))).map((e) => e.name).sort();
  return { results, ran };
}

async function withRoot(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "tack_read_only_" });
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("write and exec effects are blocked with the exact text; read, net and undeclared run", () =>
  withRoot(async (root) => {
    const { results, ran } = await run(root);
    deepEqual(results, [
      "read: read ran",
      'write: Blocked by plugin "read-only": write has effect write, and read-only mode blocks write and exec',
      'bash: Blocked by plugin "read-only": bash has effect exec, and read-only mode blocks write and exec',
      "fetch_url: fetch_url ran",
      'sync: Blocked by plugin "read-only": sync has effect write, and read-only mode blocks write and exec',
      "mystery: mystery ran",
    ]);
    deepEqual(ran, ["fetch_url", "mystery", "read"]);
  }));

Deno.test('undeclared: "block" also blocks tools that declare no effects', () =>
  withRoot(async (root) => {
    const { results, ran } = await run(root, readOnlyDefault({ undeclared: "block" }));
    equal(
      results[5],
      'mystery: Blocked by plugin "read-only": mystery declares no effects, and read-only mode blocks tools with undeclared effects',
    );
    equal(results[5], `mystery: ${readOnlyMessage("mystery", [])}`);
    deepEqual(ran, ["fetch_url", "read"]);
  }));

Deno.test("a bad option is a load error", () => {
  throws(() => readOnly({ undeclared: "warn" as "block" }), {
    name: "TypeError",
    message: 'Cannot create read-only plugin: undeclared must be "allow" or "block", got "warn"',
  });
});

Deno.test('the loop names "read-only" as the blocker on tool_execution_end', async () => {
  const root = await Deno.makeTempDir({ prefix: "tack_read_only_" });
  try {
    const tools = [fileTool(root, "read", ["read"]), fileTool(root, "write", ["write"])];
    const agent = createAgent({
      model: scriptedModel([[toolCall("read", {}, "r"), toolCall("write", {}, "w")], [
        text("done"),
      ]]),
      tools,
      plugins: [readOnly()],
    });
    const blockedBy: Record<string, string | undefined> = {};
    agent.subscribe((event) => {
      if (event.type === "tool_execution_end") blockedBy[event.toolCallId] = event.blockedBy;
    });
    await agent.prompt("go");
    deepEqual(blockedBy, { r: undefined, w: "read-only" });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a tool a prepareTurn hook offers with misspelt effects does not slip past read-only", async () => {
  await withRoot(async (root) => {
    // Registration refuses effects that are not read, write, exec or net; a tool only a
    // prepareTurn hook offers was not checked, and "Write" is neither blocked nor undeclared.
    const wipe = { ...fileTool(root, "wipe"), effects: ["Write"] } as unknown as Tool;
    const model = scriptedModel([[toolCall("wipe", {}, "w1")], [text("done")]]);
    const agent = createAgent({
      model,
      plugins: [
        readOnly({ undeclared: "block" }),
        definePlugin({ name: "turns", prepareTurn: () => ({ tools: [wipe] }) }),
      ],
    });
    const added = await agent.prompt("go");
    deepEqual(await Array.fromAsync(Deno.readDir(root)), []);
    equal(model.requests.length, 0);
    const last = added.at(-1)!;
    equal(
      last.role === "assistant" && last.errorMessage,
      'Cannot start turn 1: prepareTurn failed: plugin "turns": it chose tool "wipe", whose ' +
        'effects are invalid: "Write" is not one of read, write, exec, net',
    );
  });
});
