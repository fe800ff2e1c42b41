/**
 * fetch_url does not reach the machine it runs on or its network unless told to: a
 * loopback server is refused through the machine's own host name (resolved with DNS),
 * `localhost`, `127.1`, `[::1]`, `0.0.0.0` and an IPv4-mapped IPv6 address, even when
 * listed, until `allowPrivateAddresses` is set, nor through a redirect from a public address
 * (1.2.3.4 in a network namespace of its own). The server counts the requests it got.
 */

import { createAgent, type Plugin, scriptedModel, text, toolCall } from "@tack/agent";
import { http, nonPublicRange } from "@tack/agent/plugins/http";
import { deepEqual, equal, match } from "node:assert/strict";
import { resultsOf, textOf } from "../support/agent_harness.ts";
import { outputWithin } from "../support/run_script.ts";

const RULE = "fetch_url refuses loopback, private, link-local and unspecified addresses " +
  "unless the http option allowPrivateAddresses is true";

async function fetchAll(plugin: Plugin, urls: string[]): Promise<[string, boolean][]> {
  const agent = createAgent({
    model: scriptedModel([urls.map((url) => toolCall("fetch_url", { url })), [text("done")]]),
    plugins: [plugin],
  });
  return resultsOf(await agent.prompt("go")).map((r) => [textOf(r), r.isError]);
}

Deno.test("fetch_url: the machine's own host name, resolved to loopback, is refused under *", async () => {
  let hits = 0;
  await using server = Deno.serve({ hostname: "0.0.0.0", port: 0, onListen() {} }, () => {
    hits++;
    return new Response("inside");
  });
  const port = server.addr.port;
  const name = Deno.hostname();
  const [[refusal, isError]] = await fetchAll(http(), [`http://${name}:${port}/`]);
  equal(isError, true);
  match(
    refusal,
    new RegExp(
      `^Host ${name}:${port} resolves to \\S+, an? (IPv4-mapped )?(loopback|private|link-local)`,
    ),
  );
  equal(refusal.endsWith(RULE), true);
  equal(hits, 0);
  // Opted in, the same URL is fetched.
  const [[body]] = await fetchAll(http({ allowPrivateAddresses: true }), [
    `http://${name}:${port}/`,
  ]);
  equal(body, "HTTP 200 OK (text/plain;charset=UTF-8)\n\ninside");
  equal(hits, 1);
});

Deno.test("fetch_url: loopback literals and localhost are refused even when listed", async () => {
  let hits = 0;
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    hits++;
    return new Response("inside");
  });
  const port = server.addr.port;
  const hosts = ["localhost", "127.1", "[::1]", "0.0.0.0", "[::ffff:127.0.0.1]"];
  // Listed as the URL parser writes them (it turns 127.1 into 127.0.0.1).
  const listed = http({
    allowedHosts: ["localhost", "127.0.0.1", "[::1]", "0.0.0.0", "[::ffff:7f00:1]"].map((h) =>
      `${h}:${port}`
    ),
  });
  const outcomes = await fetchAll(listed, hosts.map((h) => `http://${h}:${port}/`));
  deepEqual(outcomes, [
    [`Host localhost:${port} is a loopback name; ${RULE}`, true],
    [`Host 127.0.0.1:${port} is a loopback address; ${RULE}`, true],
    [`Host [::1]:${port} is a loopback address; ${RULE}`, true],
    [`Host 0.0.0.0:${port} is an unspecified address; ${RULE}`, true],
    [`Host [::ffff:7f00:1]:${port} is an IPv4-mapped loopback address; ${RULE}`, true],
  ]);
  equal(hits, 0);
  const [[body]] = await fetchAll(
    http({ allowedHosts: [`127.0.0.1:${port}`], allowPrivateAddresses: true }),
    [`http://127.1:${port}/`],
  );
  equal(body, "HTTP 200 OK (text/plain;charset=UTF-8)\n\ninside");
  equal(hits, 1);
});

Deno.test("nonPublicRange: IPv4, IPv6 and the IPv4 inside IPv6", () => {
  deepEqual(
    [
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "::",
      "fd00::1",
      "fe80::1%eth0",
      "::ffff:10.0.0.1",
      "64:ff9b::a9fe:a9fe",
      "8.8.8.8",
      "2606:4700:4700::1111",
      "::ffff:8.8.8.8",
      "192.0.2.2",
      "198.51.100.7",
      "203.0.113.9",
      "::ffff:0:127.0.0.1",
      "::ffff:0:8.8.8.8",
      "64:ff9b:1::7f00:1",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2",
      "100::1",
      "2001:db9::1",
    ].map(nonPublicRange),
    [
      "private",
      "private",
      "private",
      "link-local",
      "shared (carrier-grade NAT)",
      "unspecified",
      "private (unique local)",
      "link-local",
      "IPv4-mapped private",
      "NAT64 link-local",
      undefined,
      undefined,
      undefined,
      "reserved (documentation)",
      "reserved (documentation)",
      "reserved (documentation)",
      "IPv4-translated loopback",
      undefined,
      "NAT64 (local use)",
      "Teredo",
      "reserved (discard)",
      undefined,
    ],
  );
});

const NOT_STAR = (host: string) =>
  `Host ${host} is a local or private address, which "*" does not cover; list it in allowedHosts to allow it`;

Deno.test("fetch_url: a name with no A or AAAA record is refused (fetch asks other resolvers, which may answer privately); localhost. is localhost", async () => {
  let hits = 0;
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    hits++;
    return new Response("inside");
  });
  const port = server.addr.port;
  // A special-use name: answered as absent without a query leaving the machine.
  const outcomes = await fetchAll(http(), [
    `http://nonexistent.invalid:${port}/`,
    `http://localhost.:${port}/`,
  ]);
  deepEqual(outcomes, [
    [
      `Cannot check where nonexistent.invalid leads: it has no A or AAAA record; ${RULE}, so hosts that cannot be resolved are refused`,
      true,
    ],
    [NOT_STAR(`localhost.:${port}`), true],
  ]);
  // With private addresses allowed, "*" still does not cover localhost, trailing dot or not
  // (before, localhost. passed it); listed, it is fetched.
  deepEqual(
    await fetchAll(http({ allowPrivateAddresses: true }), [`http://localhost.:${port}/`]),
    [[NOT_STAR(`localhost.:${port}`), true]],
  );
  equal(hits, 0);
  const [[listed]] = await fetchAll(
    http({ allowPrivateAddresses: true, allowedHosts: [`127.0.0.1:${port}`] }),
    [`http://127.0.0.1:${port}/`],
  );
  equal(listed, "HTTP 200 OK (text/plain;charset=UTF-8)\n\ninside");
});

// A public-looking first hop: 1.2.3.4 on the loopback device of a network namespace of its own
// (`unshare -rn`: nothing leaves it), where a host runs the plugin against a server on 0.0.0.0.
const NETNS_SETUP = "ip link set lo up && ip addr add 1.2.3.4/32 dev lo";
const HAVE_NETNS = await new Deno.Command("unshare", {
  args: ["-rn", "sh", "-c", NETNS_SETUP],
  stdout: "null",
  stderr: "null",
}).output().then((out) => out.success, () => false);

Deno.test({
  name:
    "fetch_url: a redirect from an allowed public address to 127.0.0.1 is refused (checked again on each redirect; needs unshare -rn and ip)",
  ignore: !HAVE_NETNS,
  async fn() {
    const at = (path: string) => new URL(path, import.meta.url).href;
    const source = `
      import { createAgent, scriptedModel, text, toolCall } from ${
      JSON.stringify(at("../../mod.ts"))
    };
      import { http } from ${JSON.stringify(at("../../plugins/http/mod.ts"))};
      const hits = [];
      const server = Deno.serve({ hostname: "0.0.0.0", port: 0, onListen() {} }, (req) => {
        const url = new URL(req.url);
        hits.push(url.host + url.pathname);
        return url.pathname === "/hop"
          ? Response.redirect("http://127.0.0.1:" + url.port + "/inside", 302)
          : new Response("inside");
      });
      const port = server.addr.port;
      const calls = ["/hop", "/inside"].map((path) =>
        toolCall("fetch_url", { url: "http://1.2.3.4:" + port + path })
      );
      const agent = createAgent({
        model: scriptedModel([calls, [text("done")]]),
        plugins: [http({ allowedHosts: ["1.2.3.4:" + port, "127.0.0.1:" + port] })],
      });
      const results = (await agent.prompt("go")).filter((m) => m.role === "toolResult")
        .map((r) => [r.content.map((c) => c.text).join(""), r.isError]);
      console.log(JSON.stringify({ port, results, hits }));
      await server.shutdown();`;
    const { stdout, stderr, code } = await outputWithin(
      new Deno.Command("unshare", {
        args: [
          "-rn",
          "sh",
          "-c",
          `${NETNS_SETUP} && exec "$0" eval --ext=ts "$1"`,
          Deno.execPath(),
          source,
        ],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }),
      20_000,
    );
    equal(code, 0, stderr);
    const { port, results, hits } = JSON.parse(stdout);
    deepEqual(results, [
      [
        `Redirect from http://1.2.3.4:${port}/hop to http://127.0.0.1:${port}/inside refused: ` +
        `Host 127.0.0.1:${port} is a loopback address; ${RULE}`,
        true,
      ],
      // The first hop's address passes: fetched directly, it answers.
      ["HTTP 200 OK (text/plain;charset=UTF-8)\n\ninside", false],
    ]);
    // The server never saw a request on 127.0.0.1.
    deepEqual(hits, [`1.2.3.4:${port}/hop`, `1.2.3.4:${port}/inside`]);
  },
});
