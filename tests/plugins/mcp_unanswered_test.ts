import { toolCall } from "@tack/agent";
import mcp from "@tack/agent/plugins/mcp";
import { deepEqual, equal } from "node:assert/strict";
import { startUnansweringServer } from "../fixtures/mcp/unanswering_http_server.ts";
import { answeringFetch } from "../../plugins/mcp/unanswered_stream.ts";
import { firstText, run } from "./mcp_fixture.ts";

/** The text of each `tool_execution_update` event. */
function updatesOf(events: Awaited<ReturnType<typeof run>>["events"]): string[] {
  return events.flatMap((event) =>
    event.type === "tool_execution_update" && event.partialResult.content[0]?.type === "text"
      ? [event.partialResult.content[0].text]
      : []
  );
}

for (const tool of ["silent", "broken"]) {
  const how = tool === "silent" ? "ends" : "breaks";
  Deno.test(`an HTTP event stream that ${how} without answering ends the call with an error result`, async () => {
    // The SDK drops such a stream (it has no event id to resume from): the call waited for its
    // timeout, here the server's (it only bounds how long this test takes without the fix).
    const server = startUnansweringServer();
    const plugin = await mcp({ name: "web", url: server.url, timeoutMs: 20_000 });
    try {
      const { results, events } = await run(plugin, [toolCall(`web_${tool}`, {})]);
      deepEqual([results[0].isError, firstText(results[0])], [
        true,
        `MCP server "web" closed the response stream for tool "${tool}" without answering`,
      ]);
      deepEqual(results[0].details, { server: "web", tool, code: -32000 });
      deepEqual(updatesOf(events), ["progress 1/2"]);
      // The connection stays: the next call is answered without reconnecting.
      const after = await run(plugin, [toolCall("web_echo", {})]);
      equal(firstText(after.results[0]), "echo");
      equal(plugin.servers.get("web")?.starts, 1);
    } finally {
      await plugin.dispose();
      await server.close();
    }
  });
}

Deno.test("an HTTP event stream with an event id is the SDK's to resume: the answer comes after resuming", async () => {
  const server = startUnansweringServer();
  const plugin = await mcp({ name: "web", url: server.url, timeoutMs: 20_000 });
  try {
    const { results, events } = await run(plugin, [toolCall("web_resumable", {})]);
    deepEqual([results[0].isError, firstText(results[0])], [false, "answered after resuming"]);
    deepEqual(server.resumed, ["1"]);
    deepEqual(updatesOf(events), ["progress 1/2"]);
  } finally {
    await plugin.dispose();
    await server.close();
  }
});

Deno.test("a POST's event stream ending without an id line gets an error answer per request; one with an id line, none", async () => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
  const bodies: Record<string, (string | Uint8Array)[]> = {
    "no id": ["data: {}\n\n"],
    "id after a line feed": ["data: {}\n\nid: 4\ndata: {}\n\n"],
    "id after a carriage return": ["data: {}\r\rid: 4\rdata: {}\r\r"],
    "id cut between chunks": ["data: {}\n\ni", "d", ": 4\ndata: {}\n\n"],
    "id after a byte order mark": [bom, "id: 4\ndata: {}\n\n"],
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const pieces = bodies[decodeURIComponent(new URL(request.url).pathname.slice(1))];
    const encoder = new TextEncoder();
    const body = ReadableStream.from(pieces)
      .pipeThrough(
        new TransformStream<string | Uint8Array, Uint8Array>({
          transform: (piece, controller) =>
            controller.enqueue(typeof piece === "string" ? encoder.encode(piece) : piece),
        }),
      );
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  try {
    const fetch = answeringFetch();
    const batch = JSON.stringify([
      { jsonrpc: "2.0", id: 1, method: "tools/call" },
      { jsonrpc: "2.0", method: "notifications/progress" },
      { jsonrpc: "2.0", id: "two", method: "ping" },
    ]);
    const answered: Record<string, unknown[]> = {};
    for (const name of Object.keys(bodies)) {
      const url = `http://127.0.0.1:${server.addr.port}/${encodeURIComponent(name)}`;
      const text = await (await fetch(url, { method: "POST", body: batch })).text();
      answered[name] = [...text.matchAll(/^data: (\{"jsonrpc".*)$/gm)].map(([, data]) => {
        const { id, error } = JSON.parse(data);
        return [id, error.code, error.message];
      });
    }
    const error = [-32000, "the server closed the response stream without answering"];
    deepEqual(answered, {
      "no id": [[1, ...error], ["two", ...error]],
      "id after a line feed": [],
      "id after a carriage return": [],
      "id cut between chunks": [],
      "id after a byte order mark": [],
    });
    // A GET's stream (the SDK resumes those) passes unchanged.
    const get = await fetch(`http://127.0.0.1:${server.addr.port}/no%20id`);
    equal(await get.text(), "data: {}\n\n");
  } finally {
    await server.shutdown();
  }
});
