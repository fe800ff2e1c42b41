import mcp, {
  describeFailure,
  mapResult,
  McpConnection,
  toolEffects,
  toolName,
  toTackTool,
} from "@tack/agent/plugins/mcp";
import { deepEqual, equal, match, rejects } from "node:assert/strict";
import {
  exited,
  fixtureServer,
  pidsIn,
  STDIO_SERVER,
  stdioServerWithPidFile,
} from "./mcp_fixture.ts";

const FIXTURE_TOOLS =
  "echo, add, pixel, fail, write_note, fetch.page, fetch_page, pid, sleep, cancelled, count, freeze, crash";

Deno.test("mcp rejects malformed options with a clear TypeError", async () => {
  const cases: [unknown, string][] = [
    [null, "options must be an object"],
    [{}, 'server "mcp" needs either a command or a url'],
    [
      { command: "deno", url: "http://127.0.0.1/mcp" },
      'server "mcp" needs either a command or a url',
    ],
    [{ name: "x", command: "" }, 'server "x" has an empty command'],
    [{ url: "ftp://127.0.0.1/mcp" }, 'server "mcp" has an invalid url "ftp://127.0.0.1/mcp"'],
    [{ url: "not a url" }, 'server "mcp" has an invalid url "not a url"'],
    [
      { command: "deno", timeoutMs: 0 },
      'server "mcp" has timeoutMs 0; it must be a positive number',
    ],
    [
      { command: "deno", progressIntervalMs: -1 },
      "progressIntervalMs -1 must be a number of ms, 0 or more",
    ],
    [
      { command: "deno", progressIntervalMs: Number.NaN },
      "progressIntervalMs NaN must be a number of ms, 0 or more",
    ],
    [
      { command: "deno", maxNonAnswersPerSecond: 0 },
      "maxNonAnswersPerSecond 0 must be a number, 1 or more",
    ],
    [
      { command: "deno", maxNonAnswersPerSecond: Number.NaN },
      "maxNonAnswersPerSecond NaN must be a number, 1 or more",
    ],
    [
      { command: "deno", maxNonAnswersPerSecond: "many" },
      "maxNonAnswersPerSecond many must be a number, 1 or more",
    ],
    [
      { command: "deno", connectTimeoutMs: 0 },
      "connectTimeoutMs 0 must be a number of ms, 1 or more",
    ],
    [{ command: "deno", pingTimeoutMs: -5 }, "pingTimeoutMs -5 must be a number of ms, 1 or more"],
    [{ command: "deno", killGraceMs: "2s" }, "killGraceMs 2s must be a number of ms, 0 or more"],
    [{ servers: {} }, "options.servers is empty"],
    [{ servers: { a: { command: "deno" }, b: {} } }, 'server "b" needs either a command or a url'],
  ];
  for (const [options, message] of cases) {
    await rejects(mcp(options as never), {
      name: "TypeError",
      message: `Cannot create MCP plugin: ${message}`,
    });
  }
});

Deno.test("mcp: tools or effects naming a missing tool fail the load and stop the server", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const pidFile = `${dir}/pids`;
    await rejects(mcp({ name: "fixture", ...stdioServerWithPidFile(pidFile), tools: ["nope"] }), {
      message:
        `Cannot create MCP plugin: server "fixture" has no tool "nope" (it has: ${FIXTURE_TOOLS})`,
    });
    const pids = await pidsIn(pidFile);
    equal(pids.length, 1);
    equal(await exited(pids[0]), true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  await rejects(mcp({ name: "fixture", ...STDIO_SERVER, effects: { missing: ["read"] } }), {
    message:
      `Cannot create MCP plugin: server "fixture" has no tool "missing" (it has: ${FIXTURE_TOOLS})`,
  });
});

Deno.test("mcp: a server that cannot start fails the load, naming it", async () => {
  await rejects(
    mcp({ name: "ghost", command: "/nonexistent/mcp-server" }),
    (error: Error) => {
      match(
        error.message,
        /^Cannot connect to MCP server "ghost": .*Failed to spawn .\/nonexistent\/mcp-server.: No such file or directory/,
      );
      return true;
    },
  );
  await rejects(
    mcp({ name: "quitter", command: Deno.execPath(), args: ["eval", "Deno.exit(2)"] }),
    {
      message: 'Cannot connect to MCP server "quitter": MCP error -32000: Connection closed',
    },
  );
  await rejects(
    mcp({
      name: "mute",
      command: Deno.execPath(),
      args: ["eval", "setTimeout(() => {}, 30_000)"],
      connectTimeoutMs: 300,
    }),
    { message: 'Cannot connect to MCP server "mute": MCP error -32001: Request timed out' },
  );
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = listener.addr.port;
  listener.close();
  const url = `http://127.0.0.1:${closedPort}/mcp`;
  await rejects(mcp({ name: "web", url }), (error: Error) => {
    match(error.message, /^Cannot connect to MCP server "web": fetch failed \(.*refused.*\)$/);
    return true;
  });
});

Deno.test("toolName prefixes, sanitizes, cuts to 64 characters and stays unique", () => {
  const taken = new Set<string>();
  equal(toolName("files", "read_file", taken), "files_read_file");
  equal(toolName("files", "read.file", taken), "files_read_file_2");
  equal(toolName("files", "read/file", taken), "files_read_file_3");
  equal(toolName("", "café au lait", taken), "caf__au_lait");
  equal(toolName("", "", taken), "tool");
  equal(toolName("my server", "x", taken), "my_server_x");
  const long = "x".repeat(100);
  equal(toolName("p", long, taken), "p_" + "x".repeat(62));
  equal(toolName("p", long, taken), "p_" + "x".repeat(60) + "_2");
  for (const name of taken) match(name, /^[a-zA-Z0-9_-]{1,64}$/);
});

Deno.test("toolEffects follows the MCP hints and their defaults", () => {
  deepEqual(toolEffects(undefined), ["write", "net"]);
  deepEqual(toolEffects({}), ["write", "net"]);
  deepEqual(toolEffects({ readOnlyHint: true }), ["read", "net"]);
  deepEqual(toolEffects({ readOnlyHint: true, openWorldHint: false }), ["read"]);
  deepEqual(toolEffects({ readOnlyHint: false, destructiveHint: false }), ["write", "net"]);
  deepEqual(toolEffects({ destructiveHint: true, openWorldHint: false }), ["write"]);
});

Deno.test("mapResult maps every MCP content type", () => {
  const mapped = mapResult({
    content: [
      { type: "resource", resource: { uri: "file:///a.png", blob: "AAAA", mimeType: "image/png" } },
      { type: "resource", resource: { uri: "file:///a.bin", blob: "AAAAAA==" } },
      { type: "unknown-kind" } as never,
    ],
  });
  deepEqual(mapped, {
    content: [
      { type: "image", data: "AAAA", mimeType: "image/png" },
      {
        type: "text",
        text: "[resource file:///a.bin (application/octet-stream, 4 bytes) not shown]",
      },
      { type: "text", text: '[content of type "unknown-kind" not shown]' },
    ],
    isError: false,
  });
  deepEqual(mapResult({ content: [], structuredContent: { n: 1 } }), {
    content: [{ type: "text", text: '{"n":1}' }],
    isError: false,
    structuredContent: { n: 1 },
  });
  deepEqual(mapResult({ content: [], isError: true }), { content: [], isError: true });
});

Deno.test("describeFailure names the server and the tool for each kind of failure", () => {
  const coded = (code: number, message: string) => Object.assign(new Error(message), { code });
  equal(
    describeFailure("s", "t", coded(-32001, "MCP error -32001: Request timed out"), 500),
    'MCP server "s" did not answer tool "t" within 500 ms',
  );
  equal(
    describeFailure("s", "t", coded(-32001, "MCP error -32001: Request timed out")),
    'MCP server "s" did not answer tool "t" in time',
  );
  equal(
    describeFailure("s", "t", coded(-32603, "MCP error -32603: boom")),
    'MCP server "s" rejected tool "t": MCP error -32603: boom',
  );
  equal(
    describeFailure("s", "t", new Error('Cannot connect to MCP server "s": spawn x ENOENT')),
    'Cannot connect to MCP server "s": spawn x ENOENT',
  );
  equal(
    describeFailure("s", "t", "weird"),
    'MCP tool "t" on server "s" failed: weird; it is reconnected on the next call',
  );
});

Deno.test("toTackTool falls back to any object when Tack cannot compile the schema", () => {
  const connection = new McpConnection("s", { command: "unused" });
  const inputSchema = {
    type: "object" as const,
    properties: { x: { type: "string", pattern: "(" } },
  };
  const tool = toTackTool(connection, { name: "odd", description: "Odd", inputSchema }, {
    name: "s_odd",
    effects: ["read"],
  });
  deepEqual(tool.parameters, { type: "object" });
  equal(tool.description, `Odd\n\nParameters (JSON Schema): ${JSON.stringify(inputSchema)}`);
  deepEqual(tool.effects, ["read"]);
});

Deno.test("toTackTool falls back to any object for a recursive schema (exponential to check)", () => {
  const connection = new McpConnection("s", { command: "unused" });
  const branch = (key: string) => ({
    type: "object",
    properties: { a: { $ref: "#/$defs/n" } },
    required: ["a", key],
  });
  const inputSchema = {
    type: "object" as const,
    $defs: { n: { anyOf: [branch("x"), branch("y"), branch("z")] } },
    properties: { a: { $ref: "#/$defs/n" } },
  };
  const tool = toTackTool(connection, { name: "deep", description: "Deep", inputSchema }, {
    name: "s_deep",
    effects: ["read"],
  });
  deepEqual(tool.parameters, { type: "object" });
  equal(tool.description, `Deep\n\nParameters (JSON Schema): ${JSON.stringify(inputSchema)}`);
  // The same schema without the recursion is kept.
  const flat = { ...inputSchema, $defs: { n: { type: "object" } } };
  const kept = toTackTool(connection, { name: "flat", description: "Flat", inputSchema: flat }, {
    name: "s_flat",
    effects: ["read"],
  });
  equal(kept.parameters, flat);
});

Deno.test("toTackTool falls back to any object, compiling nothing, for a schema too big to compile quickly", () => {
  const connection = new McpConnection("s", { command: "unused" });
  // $refs doubling at each of 40 levels: compiling it took 3 minutes.
  const $defs: Record<string, unknown> = { a40: { type: "string" } };
  for (let i = 0; i < 40; i++) {
    $defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] };
  }
  const laughs = { type: "object" as const, $defs, properties: { a: { $ref: "#/$defs/a0" } } };
  const tool = toTackTool(connection, { name: "laughs", description: "L", inputSchema: laughs }, {
    name: "s_laughs",
    effects: ["read"],
  });
  deepEqual(tool.parameters, { type: "object" });
  equal(tool.description, `L\n\nParameters (JSON Schema): ${JSON.stringify(laughs)}`);
  // One past the values' limit is not quoted whole in the description either.
  const big = {
    type: "object" as const,
    properties: { a: { enum: Array.from({ length: 25_000 }, (_, i) => i) } },
  };
  const huge = toTackTool(connection, { name: "big", description: "B", inputSchema: big }, {
    name: "s_big",
    effects: ["read"],
  });
  deepEqual(huge.parameters, { type: "object" });
  equal(
    huge.description,
    `B\n\nParameters: a JSON Schema of ${JSON.stringify(big).length} characters, too long to show`,
  );
});

Deno.test("one server's schemas are held to the limits together: past them its tools accept any object", async () => {
  const plugin = await mcp({ name: "wide", ...fixtureServer("wide_schemas_server.ts") });
  try {
    // Each pattern is ~30,000 characters: three fit in the 100,000 of one listing.
    deepEqual(
      plugin.tools.map((tool) => [tool.name, "properties" in tool.parameters]),
      [["wide_w0", true], ["wide_w1", true], ["wide_w2", true], ["wide_w3", false], [
        "wide_w4",
        false,
      ]],
    );
    match(
      plugin.tools[3].description,
      /^Word list 3\n\nParameters: a JSON Schema of \d+ characters, too long to show$/,
    );
    // Checked alone, the same tool is within the limits.
    const [, , , listed] = await plugin.servers.get("wide")!.listTools();
    const alone = toTackTool(plugin.servers.get("wide")!, listed, { name: "w3", effects: [] });
    equal("properties" in alone.parameters, true);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("a server listing tools without end is refused, by count or by pages", async () => {
  const endless = (args: string[]) =>
    new McpConnection("endless", fixtureServer("endless_server.ts", ...args));
  for (
    const [args, message] of [
      [[], 'Cannot list the tools of MCP server "endless": it lists more than 1000'],
      [["--pages"], 'Cannot list the tools of MCP server "endless": it sent more than 1000 pages'],
    ] as const
  ) {
    const connection = endless([...args]);
    try {
      await rejects(connection.listTools(), { message });
    } finally {
      await connection.close();
    }
  }
});
