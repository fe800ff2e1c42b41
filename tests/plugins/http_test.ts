/**
 * The http plugin against a real server on 127.0.0.1: rendering, the allowlist (also
 * on redirects), the size cap, timeouts, HTTP errors and bad arguments.
 */

import {
  createAgent,
  type Plugin,
  scriptedModel,
  text,
  type ToolCall,
  toolCall,
  type ToolResultMessage,
} from "@tack/agent";
import { compileHostAllowlist, htmlToText, http, type HttpOptions } from "@tack/agent/plugins/http";
import { deepEqual, equal, match, throws } from "node:assert/strict";
import { resultsOf, textOf } from "../support/agent_harness.ts";
import { loadPlugin } from "../../sdk/sandbox/load_plugin.ts";

const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

interface TestServer {
  base: string;
  host: string;
  port: number;
}

const DEEP_JSON = `[${Array(10).fill("[".repeat(5000) + "]".repeat(5000)).join(",")}]`;

async function withServer(body: (server: TestServer) => Promise<void>): Promise<void> {
  const gates: (() => void)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const here = `http://127.0.0.1:${url.port}`;
    switch (url.pathname) {
      case "/json":
        return new Response('{"name":"tack","tools":["fs","shell"]}', {
          headers: { "content-type": "application/json; charset=utf-8" },
        });
      case "/deep-json":
        // 100 KB that JSON.stringify(…, null, 2) would print as 500 million characters.
        return new Response(DEEP_JSON, { headers: { "content-type": "application/json" } });
      case "/html":
        return new Response(
          "<!DOCTYPE html><html><head><title>Tack &amp; friends</title>" +
            "<script>var x = '<p>not text</p>';</script></head><body><nav>Home</nav>" +
            '<h2>Plugins</h2><p>See <a href="/fs">the fs plugin</a>.</p><pre>  a\n  b</pre></body></html>',
          { headers: { "content-type": "text/html" } },
        );
      case "/latin1":
        return new Response(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), {
          headers: { "content-type": "text/plain; charset=iso-8859-1" },
        });
      case "/big":
        return new Response("y".repeat(5000), { headers: { "content-type": "text/plain" } });
      case "/endless": {
        let sent = 0;
        const stream = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent++ > 10_000) controller.close();
            else controller.enqueue(new TextEncoder().encode("z".repeat(1000)));
          },
        });
        return new Response(stream, { headers: { "content-type": "text/plain" } });
      }
      case "/slow":
        await new Promise<void>((resolve) => gates.push(resolve));
        return new Response("late");
      case "/missing":
        return new Response("no such page", { status: 404, statusText: "Not Found" });
      case "/png":
        return new Response(PNG, { headers: { "content-type": "image/png" } });
      case "/bin":
        return new Response(new Uint8Array([0, 1, 2, 3]), {
          headers: { "content-type": "application/octet-stream" },
        });
      case "/echo":
        return Response.json({
          method: req.method,
          body: await req.text(),
          authorization: req.headers.get("authorization"),
          custom: req.headers.get("x-custom"),
        });
      case "/to-json":
        return Response.redirect(`${here}/json`, 302);
      case "/loop":
        return Response.redirect(`${here}/loop`, 302);
      case "/to-evil":
        return Response.redirect("http://evil.test/steal", 302);
      case "/to-file":
        return new Response(null, { status: 302, headers: { location: "file:///etc/passwd" } });
      case "/post-303":
        return Response.redirect(`${here}/echo`, 303);
      case "/to-other-origin":
        return Response.redirect(`http://localhost:${url.port}/echo`, 307);
      case "/credentials":
        return Response.json({
          authorization: req.headers.get("authorization"),
          cookie: req.headers.get("cookie"),
          proxyAuthorization: req.headers.get("proxy-authorization"),
          custom: req.headers.get("x-custom"),
        });
      case "/hop":
        // A redirect to ?to= (another origin, or this one).
        return Response.redirect(url.searchParams.get("to")!, 302);
      case "/trickle": {
        // Headers at once, then a byte every 200 ms for 10 s.
        let sent = 0;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const stream = new ReadableStream<Uint8Array>({
          pull: (controller) =>
            new Promise<void>((resolve) => {
              timer = setTimeout(() => {
                if (sent++ >= 50) controller.close();
                else controller.enqueue(new TextEncoder().encode("t"));
                resolve();
              }, 200);
            }),
          cancel: () => clearTimeout(timer),
        });
        return new Response(stream, { headers: { "content-type": "text/plain" } });
      }
      default:
        return new Response("?", { status: 500 });
    }
  });
  const port = server.addr.port;
  try {
    await body({ base: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}`, port });
  } finally {
    for (const open of gates) open();
    await server.shutdown();
  }
}

async function run(plugin: Plugin, calls: ToolCall[]): Promise<ToolResultMessage[]> {
  const agent = createAgent({ model: scriptedModel([calls, [text("done")]]), plugins: [plugin] });
  return resultsOf(await agent.prompt("go"));
}

function plugin(server: TestServer, options: HttpOptions = {}): Plugin {
  return http({ allowedHosts: [server.host], allowPrivateAddresses: true, ...options });
}

const outcome = (r: ToolResultMessage) => [textOf(r), r.isError];

Deno.test("fetch_url: deeply nested JSON is shown as it came, not pretty-printed to hundreds of times its size", async () => {
  await withServer(async (server) => {
    const [result] = await run(plugin(server, { maxResponseBytes: 200_000 }), [
      toolCall("fetch_url", { url: `${server.base}/deep-json` }),
    ]);
    equal(result.isError, false);
    equal(
      result.truncation?.originalChars,
      `HTTP 200 OK (application/json)\n\n${DEEP_JSON}`.length,
    );
  });
});

Deno.test("fetch_url: JSON is pretty-printed, HTML becomes text, charsets are honoured", async () => {
  await withServer(async (server) => {
    const results = await run(plugin(server), [
      toolCall("fetch_url", { url: `${server.base}/json` }),
      toolCall("fetch_url", { url: `${server.base}/html` }),
      toolCall("fetch_url", { url: `${server.base}/latin1` }),
    ]);
    deepEqual(results.map(outcome), [
      [
        'HTTP 200 OK (application/json; charset=utf-8)\n\n{\n  "name": "tack",\n  "tools": [\n' +
        '    "fs",\n    "shell"\n  ]\n}',
        false,
      ],
      [
        "HTTP 200 OK (text/html)\n\nTack & friends\n\nHome\n\n## Plugins\n\nSee the fs plugin.\n\n  a\n  b",
        false,
      ],
      ["HTTP 200 OK (text/plain; charset=iso-8859-1)\n\ncafé", false],
    ]);
    deepEqual(results[0].details, {
      url: `${server.base}/json`,
      finalUrl: `${server.base}/json`,
      status: 200,
      contentType: "application/json; charset=utf-8",
      bytes: 38,
      truncated: false,
      kind: "json",
      redirects: 0,
    });
  });
});

Deno.test("fetch_url: images come back as image content, other binaries as a note", async () => {
  await withServer(async (server) => {
    const results = await run(plugin(server), [
      toolCall("fetch_url", { url: `${server.base}/png` }),
      toolCall("fetch_url", { url: `${server.base}/bin` }),
    ]);
    deepEqual(results[0].content, [
      { type: "text", text: `HTTP 200 OK (image/png)\n\n[image/png image, ${PNG.length} bytes]` },
      { type: "image", mimeType: "image/png", data: btoa(String.fromCharCode(...PNG)) },
    ]);
    deepEqual(outcome(results[1]), [
      "HTTP 200 OK (application/octet-stream)\n\n[application/octet-stream content, 4 bytes, not shown]",
      false,
    ]);
  });
});

Deno.test("fetch_url: bodies over the cap are cut and not downloaded further", async () => {
  await withServer(async (server) => {
    const results = await run(plugin(server, { maxResponseBytes: 100 }), [
      toolCall("fetch_url", { url: `${server.base}/big` }),
      toolCall("fetch_url", { url: `${server.base}/endless` }),
    ]);
    deepEqual(results.map(outcome), [
      [
        `HTTP 200 OK (text/plain)\n\n${"y".repeat(100)}\n\n` +
        "[Response cut at 100 of 5000 bytes; the rest was not downloaded.]",
        false,
      ],
      [
        `HTTP 200 OK (text/plain)\n\n${"z".repeat(100)}\n\n` +
        "[Response cut at 100 bytes; the rest was not downloaded.]",
        false,
      ],
    ]);
  });
});

Deno.test("fetch_url: hosts outside the allowlist are refused, also on redirects", async () => {
  await withServer(async (server) => {
    const results = await run(plugin(server), [
      toolCall("fetch_url", { url: "http://evil.test/" }),
      toolCall("fetch_url", { url: `http://127.0.0.1:${server.port + 1}/` }),
      toolCall("fetch_url", { url: `${server.base}/to-evil` }),
      toolCall("fetch_url", { url: `${server.base}/to-file` }),
    ]);
    deepEqual(results.map(outcome), [
      [`Host evil.test is not in the allowlist (allowed: ${server.host})`, true],
      [`Host 127.0.0.1:${server.port + 1} is not in the allowlist (allowed: ${server.host})`, true],
      [
        `Redirect from ${server.base}/to-evil to http://evil.test/steal refused: Host evil.test ` +
        `is not in the allowlist (allowed: ${server.host})`,
        true,
      ],
      [
        `Redirect from ${server.base}/to-file refused: Only http and https URLs can be fetched, not file:`,
        true,
      ],
    ]);
  });
});

Deno.test('fetch_url: "*" does not reach loopback unless it is listed', async () => {
  await withServer(async (server) => {
    const results = await run(http(), [toolCall("fetch_url", { url: `${server.base}/json` })]);
    deepEqual(results.map(outcome), [[
      `Host ${server.host} is a local or private address, which "*" does not cover; list it ` +
      "in allowedHosts to allow it",
      true,
    ]]);
  });
});

Deno.test("fetch_url: redirects are followed, counted and bounded", async () => {
  await withServer(async (server) => {
    const results = await run(plugin(server, { maxRedirects: 3 }), [
      toolCall("fetch_url", { url: `${server.base}/to-json` }),
      toolCall("fetch_url", { url: `${server.base}/loop` }),
      toolCall("fetch_url", { url: `${server.base}/post-303`, method: "POST", body: "hi" }),
    ]);
    equal(
      textOf(results[0]).split("\n").slice(0, 2).join("\n"),
      [
        "HTTP 200 OK (application/json; charset=utf-8)",
        `URL: ${server.base}/json`,
      ].join("\n"),
    );
    equal((results[0].details as { redirects: number }).redirects, 1);
    deepEqual(outcome(results[1]), [
      `Too many redirects fetching ${server.base}/loop (more than 3)`,
      true,
    ]);
    const echoed = JSON.parse(textOf(results[2]).split("\n\n").slice(1).join("\n\n"));
    deepEqual([echoed.method, echoed.body], ["GET", ""]);
  });
});

Deno.test("fetch_url: credentials are dropped when a redirect changes origin", async () => {
  await withServer(async (server) => {
    const results = await run(
      http({
        allowedHosts: [server.host, `localhost:${server.port}`],
        allowPrivateAddresses: true,
      }),
      [
        toolCall("fetch_url", {
          url: `${server.base}/to-other-origin`,
          method: "POST",
          body: "data",
          headers: { authorization: "Bearer secret", "x-custom": "kept" },
        }),
        toolCall("fetch_url", {
          url: `${server.base}/echo`,
          method: "put",
          body: "data",
          headers: { authorization: "Bearer secret" },
        }),
      ],
    );
    const echoed = (r: ToolResultMessage) =>
      JSON.parse(textOf(r).split("\n\n").slice(1).join("\n\n"));
    deepEqual(echoed(results[0]), {
      method: "POST",
      body: "data",
      authorization: null,
      custom: "kept",
    });
    deepEqual(echoed(results[1]), {
      method: "PUT",
      body: "data",
      authorization: "Bearer secret",
      custom: null,
    });
  });
});

Deno.test("fetch_url: Authorization, Cookie and Proxy-Authorization are dropped on a redirect to another origin, kept on one to the same", async () => {
  await withServer(async (server) => {
    const credentials = {
      authorization: "Bearer secret",
      cookie: "session=secret",
      "proxy-authorization": "Basic c2VjcmV0",
      "x-custom": "kept",
    };
    const hop = (to: string) =>
      toolCall("fetch_url", {
        url: `${server.base}/hop?to=${encodeURIComponent(to)}`,
        headers: credentials,
      });
    const results = await run(
      http({
        allowedHosts: [server.host, `localhost:${server.port}`],
        allowPrivateAddresses: true,
      }),
      [
        hop(`http://localhost:${server.port}/credentials`),
        hop(`${server.base}/credentials`),
      ],
    );
    const echoed = (r: ToolResultMessage) =>
      JSON.parse(textOf(r).split("\n\n").slice(1).join("\n\n"));
    deepEqual(results.map((r) => [(r.details as { redirects: number }).redirects, r.isError]), [
      [1, false],
      [1, false],
    ]);
    deepEqual(echoed(results[0]), {
      authorization: null,
      cookie: null,
      proxyAuthorization: null,
      custom: "kept",
    });
    deepEqual(echoed(results[1]), {
      authorization: "Bearer secret",
      cookie: "session=secret",
      proxyAuthorization: "Basic c2VjcmV0",
      custom: "kept",
    });
  });
});

Deno.test("fetch_url: the timeout bounds the body too (a server trickling one byte every 200 ms)", async () => {
  await withServer(async (server) => {
    const started = Date.now();
    const [result] = await run(plugin(server, { timeoutSeconds: 1 }), [
      toolCall("fetch_url", { url: `${server.base}/trickle` }),
    ]);
    const took = Date.now() - started;
    deepEqual(outcome(result), [
      `Request to ${server.base}/trickle timed out after 1 seconds`,
      true,
    ]);
    // The body would take 10 s.
    equal(took < 2_500, true, `took ${took} ms`);
  });
});

Deno.test("fetch_url: an HTTP error status is an error result that shows the body", async () => {
  await withServer(async (server) => {
    const [result] = await run(plugin(server), [
      toolCall("fetch_url", { url: `${server.base}/missing` }),
    ]);
    deepEqual(outcome(result), [
      "HTTP 404 Not Found (text/plain;charset=UTF-8)\n\nno such page",
      true,
    ]);
    equal((result.details as { status: number }).status, 404);
  });
});

Deno.test("fetch_url: a slow server ends in a timeout error result", async () => {
  await withServer(async (server) => {
    const [result] = await run(plugin(server, { timeoutSeconds: 0.3 }), [
      toolCall("fetch_url", { url: `${server.base}/slow` }),
    ]);
    deepEqual(outcome(result), [
      `Request to ${server.base}/slow timed out after 0.3 seconds`,
      true,
    ]);
  });
});

Deno.test("fetch_url: HEAD shows the response headers", async () => {
  await withServer(async (server) => {
    const [result] = await run(plugin(server), [
      toolCall("fetch_url", { url: `${server.base}/big`, method: "HEAD" }),
    ]);
    equal(result.isError, false);
    equal(textOf(result).split("\n")[0], "HTTP 200 OK (text/plain)");
    equal(textOf(result).includes("content-type: text/plain"), true);
  });
});

Deno.test("fetch_url: bad arguments and unreachable servers are exact error results", async () => {
  await withServer(async (server) => {
    const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const deadPort = (closed.addr as Deno.NetAddr).port;
    closed.close();
    const results = await run(
      http({ allowedHosts: [server.host, `127.0.0.1:${deadPort}`], allowPrivateAddresses: true }),
      [
        toolCall("fetch_url", { url: "not a url" }),
        toolCall("fetch_url", { url: "ftp://example.com/x" }),
        toolCall("fetch_url", { url: `${server.base}/echo`, body: "x" }),
        toolCall("fetch_url", { url: `${server.base}/echo`, method: "FETCH" }),
        toolCall("fetch_url", {}),
      ],
    );
    deepEqual(results.map(outcome).slice(0, 3), [
      ["Invalid URL: not a url", true],
      ["Only http and https URLs can be fetched, not ftp:", true],
      ["A GET request cannot have a body", true],
    ]);
    deepEqual(outcome(results[3]), [
      "Unsupported method FETCH; use one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
      true,
    ]);
    deepEqual(outcome(results[4]), [
      'Invalid arguments for tool "fetch_url":\n  - url: is required\nReceived arguments: {}',
      true,
    ]);
    const [refused] = await run(
      http({ allowedHosts: [`127.0.0.1:${deadPort}`], allowPrivateAddresses: true }),
      [toolCall("fetch_url", { url: `http://127.0.0.1:${deadPort}/` })],
    );
    equal(refused.isError, true);
    // Before, the cause was dropped: "Cannot fetch …: fetch failed", and no reason.
    match(
      textOf(refused),
      new RegExp(
        `^Cannot fetch http://127\\.0\\.0\\.1:${deadPort}/: fetch failed \\(.*Connection refused.*\\)$`,
      ),
    );
  });
});

Deno.test("http: options and permissions", () => {
  throws(() => http({ allowedHosts: ["https://example.com/"] }), {
    name: "TypeError",
    message: 'Cannot create http plugin: "https://example.com/" is not a host pattern ' +
      '(use "example.com", "*.example.com", "host:port" or "*")',
  });
  throws(() => http({ timeoutSeconds: 0 }), {
    message: "Cannot create http plugin: timeoutSeconds must be a positive number, got 0",
  });
  deepEqual(http({ allowedHosts: ["API.example.com", "127.0.0.1:8080"] }).permissions, {
    net: ["api.example.com", "127.0.0.1:8080"],
  });
  deepEqual(http({ allowedHosts: ["*.example.com"] }).permissions, { net: true });
  deepEqual(http().tools?.map((t) => [t.name, t.effects]), [["fetch_url", ["net"]]]);
  const list = compileHostAllowlist(["example.com:8443", "*.internal.test", "[::1]"]);
  deepEqual(
    [
      "https://example.com:8443/",
      "https://example.com/",
      "http://a.b.internal.test/",
      "http://internal.test/",
      "http://[::1]:9/",
    ].map((u) => list.allows(new URL(u))),
    [true, false, true, false, true],
  );
});

Deno.test("htmlToText: entities, lists, tables, comments and scripts", () => {
  equal(
    htmlToText(
      "<!-- note --><div>A&nbsp;&lt;b&gt; &#233;&#x2014;ok</div><ul><li>one<li>two</ul>" +
        "<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>" +
        "<style>.x{}</style><p>end<br>line</p>",
    ),
    "A <b> é—ok\n\n- one\n- two\n\nk v\na 1\n\nend\nline",
  );
});

Deno.test("htmlToText takes time linear in the page: unclosed comments, tags and elements", () => {
  // Each of these 64 KB pages took 0.5–7.2 s before (regexes rescanning the rest of the page
  // from every `<`: `<a b` 7.2 s, `<a b="` 4.8 s, `<pre` 1.0 s, `<!--` 0.67 s); at the 1 MB
  // default cap, 16² times that. Now each takes a few ms.
  for (
    const piece of ["<a b", '<a b="', "<pre", "<title", "<!DOCTYPE", "<!--", "<script>", "<head>"]
  ) {
    const page = piece.repeat(Math.ceil(65_536 / piece.length));
    const started = performance.now();
    htmlToText(page);
    const ms = performance.now() - started;
    equal(ms < 300, true, `${JSON.stringify(piece)} × ${page.length / piece.length}: ${ms} ms`);
  }
  equal(
    htmlToText("a<!-- b<script>c</script>d<title>T</title>e<pre>x<b>y</b></pre>"),
    "T\n\na<!-- bdTe xy",
  );
  equal(
    htmlToText("<html><head><title>Docs</title></head><SCRIPT x=1>s</script ><p>hi</p><!-- c -->"),
    "Docs\n\nhi",
  );
});

Deno.test("htmlToText: a tag of quoted attributes that never closes is read once, not in 2^n ways", () => {
  // Each `x="y"` also matched as an unquoted value: 27 of them in a 202-byte page took 4.6 s,
  // 29 took 19 s, the host's timers standing still (found by an attack). Now a few ms.
  for (const attribute of [' x="y"', " x='y'", ' x = "y"']) {
    const page = "<p>hello</p><a" + attribute.repeat(28) + "</body>";
    const started = performance.now();
    equal(htmlToText(page), "hello\n\n<a" + attribute.repeat(28));
    const ms = performance.now() - started;
    equal(ms < 300, true, `${JSON.stringify(attribute)} × 28: ${ms} ms`);
  }
});

Deno.test("htmlToText: unquoted values with = or a backtick after their first character are one value", () => {
  // The review's case: the first fix refused "=" anywhere in an unquoted value, and minified
  // pages' <a href=/search?q=tack&hl=en> leaked their tags into the text.
  equal(htmlToText("<p><a href=/search?q=tack&hl=en>x</a> <img alt=a=b> y</p>"), "x y");
});

Deno.test("htmlToText: a page's own placeholder marks copy no <pre> body and fail nothing", () => {
  // A 312 KB page repeating U+E000 0 U+E000 made a 510-million-character text (2 GB of host
  // memory); a mark with no <pre> threw "Cannot read properties of undefined".
  const page = `<pre>${"A".repeat(1000)}</pre>${
    "\uE0000\uE000".repeat(1000)
  }<p>x \uE0007\uE000</p>`;
  equal(htmlToText(page), `${"A".repeat(1000)} ${"0".repeat(1000)}\n\nx 7`);
});

Deno.test("fetch_url: sandboxed, Deno's net grant is enforced beneath the allowlist", async () => {
  await withServer(async (server) => {
    for (
      const [permissions, expected] of [
        [undefined, [`HTTP 200 OK (text/plain)\n\n${"y".repeat(10)}`, false]],
        [
          { net: ["127.0.0.1:1"] },
          [
            `Permission denied: net access to "${server.host}" is not granted to plugin "http"`,
            true,
          ],
        ],
      ] as const
    ) {
      const loaded = await loadPlugin("./plugins/http/mod.ts", {
        sandbox: true,
        options: { allowedHosts: [server.host], maxResponseBytes: 10, allowPrivateAddresses: true },
        permissions: permissions && { net: [...permissions.net] },
        stderr: "capture",
      });
      try {
        const [result] = await run(loaded, [toolCall("fetch_url", { url: `${server.base}/big` })]);
        const [text, isError] = outcome(result);
        deepEqual([String(text).split("\n\n[Response cut")[0], isError], expected);
      } finally {
        await loaded.dispose?.();
      }
    }
  });
});
