import { mcp, McpConnection } from "@tack/agent/plugins/mcp";
import { equal, rejects } from "node:assert/strict";
import { fixtureServer } from "./mcp_fixture.ts";

const WORDY = fixtureServer("wordy_server.ts");
const HUGE = fixtureServer("wordy_server.ts", "--huge");
const signal = new AbortController().signal;
const DESCRIPTION = `${"d".repeat(4000)} […96000 more characters cut]`;
const TITLE = `${"t".repeat(200)} […800 more characters cut]`;

function firstText(content: readonly { type: string; text?: string }[]): string | undefined {
  return content[0]?.text;
}

Deno.test("a tool's description and title are cut to 4,000 and 200 characters, with a note; so are a resource's and a prompt's", async () => {
  const plugin = await mcp({ name: "wordy", ...WORDY });
  try {
    const [tool, listResources, , listPrompts] = plugin.tools;
    equal(tool.name, "wordy_long");
    equal(tool.description, DESCRIPTION);
    equal(tool.label, TITLE);
    const resources = await listResources.execute({}, { toolCallId: "1", signal });
    equal(
      firstText(resources.content),
      `Resources of MCP server "wordy":\n- wordy://long: ${TITLE} — ${DESCRIPTION}`,
    );
    const prompts = await listPrompts.execute({}, { toolCallId: "2", signal });
    equal(firstText(prompts.content), `Prompts of MCP server "wordy":\n- long(): ${DESCRIPTION}`);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("a server whose tools listing passes 16,000,000 characters is refused at load", async () => {
  // Before: its 3 pages of 6 MB were all taken, and sent to the model with every call.
  await rejects(mcp({ name: "wordy", ...HUGE }), {
    message: 'Cannot list the tools of MCP server "wordy": it lists more than 16000000 characters',
  });
});

Deno.test("a resources listing past 16,000,000 characters is refused too", async () => {
  const connection = new McpConnection("wordy", HUGE);
  try {
    await rejects(connection.listResources(), {
      message:
        'Cannot list the resources of MCP server "wordy": it lists more than 16000000 characters',
    });
  } finally {
    await connection.close();
  }
});
