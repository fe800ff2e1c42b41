// One MCP result once held 150,000 tiny images (8 MB), and every one of them was sent again with
// each later model call: the result budget counts text only. A result shows at most 20.
import { toolCall } from "@tack/agent";
import { mcp } from "@tack/agent/plugins/mcp";
import { deepEqual } from "node:assert/strict";
import { fixtureServer, run } from "./mcp_fixture.ts";

const PICTURES = fixtureServer("pictures_server.ts");
const signal = new AbortController().signal;
const image = { type: "image", data: "AAAA", mimeType: "image/png" };
const images = (n: number) => Array.from({ length: n }, () => image);

Deno.test("an MCP tool result of 150,000 images shows the first 20 and says how many were left out", async () => {
  const plugin = await mcp({ name: "pictures", ...PICTURES });
  try {
    const { results } = await run(plugin, [
      toolCall("pictures_pixels", { count: 150_000 }, "1"),
      toolCall("pictures_pixels", { count: 20 }, "2"),
    ]);
    deepEqual(results[0].content, [
      { type: "text", text: "pixels:" },
      ...images(20),
      { type: "text", text: "[149980 more images left out: a result shows at most 20]" },
    ]);
    // 20 are all shown.
    deepEqual(results[1].content, [{ type: "text", text: "pixels:" }, ...images(20)]);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("a resource of 30 image blobs and a prompt of 21 image messages show 20 images too", async () => {
  const plugin = await mcp({ name: "pictures", ...PICTURES });
  try {
    const byName = new Map(plugin.tools.map((tool) => [tool.name, tool]));
    const read = await byName.get("pictures_read_resource")!.execute({ uri: "pixels://30" }, {
      toolCallId: "1",
      signal,
    });
    deepEqual(read.content, [
      ...images(20),
      { type: "text", text: "[10 more images left out: a result shows at most 20]" },
    ]);
    const got = await byName.get("pictures_get_prompt")!.execute({
      name: "pixels",
      arguments: { count: "21" },
    }, { toolCallId: "2", signal });
    const user = { type: "text", text: "[user]" };
    deepEqual(got.content, [
      ...images(20).flatMap((part) => [user, part]),
      user, // the 21st message, its image left out
      { type: "text", text: "[1 more image left out: a result shows at most 20]" },
    ]);
  } finally {
    await plugin.dispose();
  }
});
