import { toolCall } from "@tack/agent";
import mcp from "@tack/agent/plugins/mcp";
import { deepEqual, equal, match } from "node:assert/strict";
import { startHttpServer } from "../fixtures/mcp/http_server.ts";
import { startOneToolServer } from "../fixtures/mcp/one_tool_http_server.ts";
import { firstText, run, STDIO_SERVER } from "./mcp_fixture.ts";

Deno.test("mcp over streamable HTTP: tools listed and called, headers sent", async () => {
  const server = startHttpServer();
  const plugin = await mcp({
    name: "web",
    url: server.url,
    headers: { Authorization: "Bearer secret" },
    tools: ["echo", "fail", "add"],
  });
  try {
    deepEqual(plugin.tools.map((tool) => tool.name), ["web_echo", "web_add", "web_fail"]);
    deepEqual(plugin.permissions, { net: [new URL(server.url).host] });
    const { results } = await run(plugin, [
      toolCall("web_echo", { text: "over http" }),
      toolCall("web_fail", {}),
      toolCall("web_add", { a: 1, b: 2 }),
    ]);
    equal(firstText(results[0]), "echo: over http");
    deepEqual([results[1].isError, firstText(results[1])], [true, "the server says no"]);
    deepEqual(results[2].details, { server: "web", tool: "add", structuredContent: { sum: 3 } });
    equal(server.authorizations.length > 0, true);
    deepEqual(new Set(server.authorizations), new Set(["Bearer secret"]));
  } finally {
    await plugin.dispose();
    await server.close();
  }
});

Deno.test("mcp over HTTP: a server that went away gives error results, then reconnects", async () => {
  const server = startHttpServer();
  const plugin = await mcp({ name: "web", url: server.url, tools: ["echo"] });
  let again: ReturnType<typeof startHttpServer> | undefined;
  try {
    await server.close();
    const { results } = await run(plugin, [toolCall("web_echo", { text: "anyone?" })]);
    equal(results[0].isError, true);
    match(
      firstText(results[0])!,
      /^MCP tool "echo" on server "web" failed: fetch failed \(.*Connection refused.*\); it is reconnected on the next call$/,
    );
    again = startHttpServer(Number(new URL(server.url).port));
    const after = await run(plugin, [toolCall("web_echo", { text: "back" })]);
    equal(firstText(after.results[0]), "echo: back");
    equal(plugin.servers.get("web")?.starts, 2);
  } finally {
    await plugin.dispose();
    await again?.close();
  }
});

Deno.test("mcp with several servers: one plugin, tools prefixed by server name", async () => {
  const server = startHttpServer();
  const plugin = await mcp({
    name: "tools",
    servers: {
      local: { ...STDIO_SERVER, tools: ["echo", "pid"] },
      remote: { url: server.url, tools: ["echo"] },
      again: { url: server.url, tools: ["echo"], toolPrefix: "local" },
    },
  });
  try {
    equal(plugin.name, "tools");
    equal(plugin.description, "Tools of the MCP servers local, remote, again");
    deepEqual(plugin.tools.map((tool) => tool.name), [
      "local_echo",
      "local_pid",
      "remote_echo",
      "local_echo_2",
    ]);
    deepEqual(plugin.permissions, {
      run: [STDIO_SERVER.command],
      env: ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"],
      net: [new URL(server.url).host],
    });
    const { results } = await run(plugin, [
      toolCall("local_echo", { text: "a" }),
      toolCall("remote_echo", { text: "b" }),
      toolCall("local_echo_2", { text: "c" }),
    ]);
    deepEqual(results.map(firstText), ["echo: a", "echo: b", "echo: c"]);
    deepEqual(results.map((r) => (r.details as { server: string }).server), [
      "local",
      "remote",
      "again",
    ]);
  } finally {
    await plugin.dispose();
    await server.close();
  }
});

Deno.test("mcp over HTTP (SSE): progress notifications become updates too (own tokens, not the SDK's)", async () => {
  const server = startHttpServer(0, false);
  // Every notification is shown (the pacing is the stdio tests' and mcp_progress_test.ts').
  const plugin = await mcp({
    name: "web",
    url: server.url,
    tools: ["count"],
    progressIntervalMs: 0,
  });
  try {
    const { results, events } = await run(plugin, [toolCall("web_count", {})]);
    equal(firstText(results[0]), "counted");
    const updates = events.flatMap((event) =>
      event.type === "tool_execution_update" && event.partialResult.content[0]?.type === "text"
        ? [event.partialResult.content[0].text]
        : []
    );
    deepEqual(updates, ["progress 1/3", "progress 2/3", "done"]);
  } finally {
    await plugin.dispose();
    await server.close();
  }
});

/**
 * A minimal streamable-HTTP MCP server whose one tool, `wait`, answers with an event stream
 * that is resumable (a priming event with an id) and never answers; `die()` breaks that
 * stream and stops the server, as a server killed mid-call.
 */
function startDyingServer() {
  let broken!: () => void;
  const dying = new Promise<void>((resolve) => (broken = resolve));
  const server = startOneToolServer("wait", () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("id: e1\ndata: \n\n"));
        dying.then(() => controller.error(new Error("killed")));
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    async die() {
      broken();
      await server.shutdown();
    },
  };
}

Deno.test("mcp over HTTP: a server that dies mid-call, its stream resumable, ends the call once resuming fails, not at its timeout", async () => {
  const server = startDyingServer();
  const plugin = await mcp({ name: "web", url: server.url, tools: ["wait"], timeoutMs: 60_000 });
  try {
    const { results } = await run(plugin, [toolCall("web_wait", {})], {}, (agent) => {
      agent.subscribe((event) => {
        if (event.type === "tool_execution_start") setTimeout(() => server.die(), 200);
      });
    });
    // Before: `… timed out after 60000 ms`, the SDK having given up resuming ~2.5 s in.
    equal(results[0].isError, true);
    equal(
      firstText(results[0]),
      'MCP tool "wait" on server "web" failed: the server\'s event stream broke and could not be resumed (Maximum reconnection attempts (2) exceeded.); it is reconnected on the next call',
    );
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp over HTTP: a gateway's 502 page is read as its text, one short line naming the status", async () => {
  const page =
    "<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{color:red}</style>" +
    "<script>var x = '<b>';</script></head><body><h1>Bad Gateway</h1>" +
    `<p>${"The upstream server is unavailable. ".repeat(2000)}</p></body></html>`;
  const server = startOneToolServer(
    "echo",
    () => new Response(page, { status: 502, headers: { "content-type": "text/html" } }),
  );
  const plugin = await mcp({ name: "web", url: `http://127.0.0.1:${server.addr.port}/mcp` });
  try {
    const { results } = await run(plugin, [toolCall("web_echo", {})]);
    equal(results[0].isError, true);
    const text = firstText(results[0])!;
    equal(
      text.slice(0, 120),
      'MCP server "web" answered tool "echo" with HTTP 502: 502 Bad Gateway Bad Gateway ' +
        "The upstream server is unavailable. The",
    );
    match(text, /… \(\d+ more characters\)/);
    equal(text.length < 700, true, `${text.length} characters`);
  } finally {
    await plugin.dispose();
    await server.shutdown();
  }
});

Deno.test("mcp over HTTP: a body that is not the call's JSON-RPC answer fails it at once, quoting what came back; the connection stays", async () => {
  const replies: Record<string, (id: number | string) => Response> = {
    plain: () => new Response("hello", { headers: { "content-type": "text/plain" } }),
    object: () => Response.json({ hello: 1 }),
    other: () => Response.json({ jsonrpc: "2.0", id: 999, result: { content: [] } }),
    none: () => Response.json([]),
    accepted: () => new Response(null, { status: 202 }),
    // Labelled an event stream (the SDK drops any 202 before it looks), and one whose body
    // never ends (it is not waited for).
    acceptedStream: () =>
      new Response(null, { status: 202, headers: { "content-type": "text/event-stream" } }),
    acceptedEndless: () =>
      new Response(
        new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("x")) }),
        { status: 202, headers: { "content-type": "text/plain" } },
      ),
    nullresult: (id) => Response.json({ jsonrpc: "2.0", id, result: null }),
    good: (id) =>
      Response.json({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "fine" }] } }),
  };
  const server = startOneToolServer(
    "echo",
    ({ id, params }) => replies[String(params.arguments?.reply)](id),
  );
  const plugin = await mcp({ name: "web", url: `http://127.0.0.1:${server.addr.port}/mcp` });
  try {
    // One call at a time, each alone. Before: "other", "none" and the 202s waited for the call's timeout
    // (`… timed out after 5000 ms`), "plain" and "object" failed without saying what came back
    // (`Unexpected content type: text/plain`, `Invalid input`), and "plain" dropped the
    // connection (the calls in flight with it failed too).
    const results = [];
    for (const reply of Object.keys(replies)) {
      const ran = await run(plugin, [toolCall("web_echo", { reply })], { toolTimeoutMs: 5_000 });
      results.push(...ran.results);
    }
    const answered = 'MCP server "web" answered tool "echo" with HTTP 200';
    deepEqual(results.map((result) => [result.isError, firstText(result)]), [
      [true, `${answered} (text/plain), not a JSON-RPC answer: hello`],
      [true, `${answered} (application/json), not a JSON-RPC answer: {"hello":1}`],
      [
        true,
        `${answered} (application/json), not a JSON-RPC answer: {"jsonrpc":"2.0","id":999,"result":{"content":[]}}`,
      ],
      [true, `${answered} (application/json), not a JSON-RPC answer: []`],
      [
        true,
        'MCP server "web" answered tool "echo" with HTTP 202 (no content type), not a JSON-RPC answer: (no body)',
      ],
      [
        true,
        'MCP server "web" answered tool "echo" with HTTP 202 (text/event-stream), not a JSON-RPC answer: (no body)',
      ],
      [
        true,
        'MCP server "web" answered tool "echo" with HTTP 202 (text/plain), not a JSON-RPC answer: (no body)',
      ],
      [
        true,
        'MCP server "web" sent an invalid response to tool "echo": result: Invalid input: expected object, received null',
      ],
      [false, "fine"],
    ]);
    equal(plugin.servers.get("web")!.starts, 1);
  } finally {
    await plugin.dispose();
    await server.shutdown();
  }
});
