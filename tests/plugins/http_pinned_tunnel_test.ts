/**
 * The tunnel fetch_url sends an https request through once its name is checked: the TLS
 * handshake is fetch's own, for the name, over a connection to the address given (the name
 * is never looked up: `.test` names resolve nowhere). Needs `openssl`; skipped without it.
 */

import { openPinnedTunnel, tunnelAddresses } from "../../plugins/http/pinned_tunnel.ts";
import { deepEqual, equal, match, rejects } from "node:assert/strict";
import { hasOpenssl, withTlsServer } from "../support/test_certificates.ts";
import { childEnv } from "../support/child_env.ts";

const ignore = !(await hasOpenssl());
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const PROXY_ENV_CHECKS = new URL("../fixtures/http/proxy_env_checks.ts", import.meta.url).pathname;

Deno.test({
  name: "pinned tunnel: the name's certificate is checked over the address given",
  ignore,
  async fn() {
    await withTlsServer(["tunnel.test"], async (port, ca, asked) => {
      using tunnel = openPinnedTunnel({ caCerts: [ca] });
      tunnel.pin(`tunnel.test:${port}`, ["127.0.0.1"]);
      const response = await fetch(`https://tunnel.test:${port}/p?q`, { client: tunnel.client });
      deepEqual([response.status, await response.text()], [200, "hello"]);
      deepEqual(asked, [`https://tunnel.test:${port}/p?q`]);
    });
  },
});

Deno.test({
  name: "pinned tunnel: a certificate for another name is refused by fetch",
  ignore,
  async fn() {
    await withTlsServer(["other.test"], async (port, ca, asked) => {
      using tunnel = openPinnedTunnel({ caCerts: [ca] });
      tunnel.pin(`tunnel.test:${port}`, ["127.0.0.1"]);
      const error = await fetch(`https://tunnel.test:${port}/`, { client: tunnel.client })
        .then(() => undefined, (error: Error) => error);
      match(
        String((error?.cause as Error)?.message),
        /certificate not valid for name "tunnel\.test"/,
      );
      deepEqual(asked, []);
    });
  },
});

Deno.test({
  name: "pinned tunnel: an authority not pinned is refused; an address that refuses says so",
  ignore,
  async fn() {
    await withTlsServer(["tunnel.test"], async (port, ca, asked) => {
      using tunnel = openPinnedTunnel({ caCerts: [ca] });
      tunnel.pin(`tunnel.test:${port}`, ["127.0.0.1"]);
      await rejects(fetch(`https://tunnel.test:${port + 1}/`, { client: tunnel.client }));
      const dead = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const deadPort = dead.addr.port;
      dead.close();
      tunnel.pin(`dead.test:${deadPort}`, ["127.0.0.1"]);
      await rejects(fetch(`https://dead.test:${deadPort}/`, { client: tunnel.client }));
      match(String(tunnel.failure(`dead.test:${deadPort}`)), /^cannot connect to 127\.0\.0\.1: /);
      // A second address after one that refuses is tried.
      tunnel.pin(`tunnel.test:${port}`, ["127.0.0.2", "127.0.0.1"]);
      equal((await fetch(`https://tunnel.test:${port}/`, { client: tunnel.client })).status, 200);
      equal(asked.length, 1);
    });
  },
});

/** Runs a check of tests/fixtures/http/proxy_env_checks.ts in its own process (it sets proxy variables). */
async function proxyEnvCheck(check: string): Promise<void> {
  const { stdout, stderr, success } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `--config=${CONFIG}`, PROXY_ENV_CHECKS, check],
    env: childEnv({}),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  deepEqual([success, decoder.decode(stdout).trim(), decoder.decode(stderr)], [true, "ok", ""]);
}

Deno.test("tunnelAddresses: http and https, and not when a proxy from the environment for the scheme applies", async () => {
  deepEqual(tunnelAddresses(new URL("ftp://a.test/"), ["93.184.215.14"]), []);
  deepEqual(tunnelAddresses(new URL("https://a.test:8443/"), undefined), []);
  await proxyEnvCheck("addresses");
});

Deno.test("pinned tunnel: a plain-HTTP request goes, once, to the first address that accepts, without the proxy's credential", async () => {
  // 127.0.0.2 is loopback too, and nothing listens there: it refuses.
  const seen: string[] = [];
  const rawHeaders: (string | null)[] = [];
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (r) => {
    rawHeaders.push(r.headers.get("x-raw"));
    seen.push(
      `${r.method} ${r.url} host=${r.headers.get("host")} ` +
        `auth=${r.headers.get("proxy-authorization")} body=${await r.text()}`,
    );
    return new Response("hello");
  });
  const port = server.addr.port;
  using tunnel = openPinnedTunnel();
  tunnel.pin(`127.0.0.1:${port}`, ["127.0.0.2", "127.0.0.1"], Date.now() + 10_000);
  const response = await fetch(`http://127.0.0.1:${port}/p?q`, {
    client: tunnel.client,
    method: "POST",
    headers: { host: `name.test:${port}` },
    body: "once",
  });
  deepEqual([response.status, await response.text()], [200, "hello"]);
  deepEqual(seen, [
    `POST http://name.test:${port}/p?q host=name.test:${port} auth=null body=once`,
  ]);
  equal(tunnel.carried(`127.0.0.1:${port}`), true);
  // A head longer than a CONNECT's (8 KiB, the limit before) goes through too.
  const big = await fetch(`http://127.0.0.1:${port}/big`, {
    client: tunnel.client,
    headers: { host: `name.test:${port}`, "x-big": "a".repeat(20_000) },
  });
  deepEqual([big.status, await big.text()], [200, "hello"]);
  equal(seen.length, 2);
  seen.pop();
  // A header's bytes are forwarded as they came (decoded as windows-1252, 0x80 became 0xAC).
  const bytes = "\x80\x9f\xa0\xff";
  const raw = await fetch(`http://127.0.0.1:${port}/raw`, {
    client: tunnel.client,
    headers: { host: `name.test:${port}`, "x-raw": bytes },
  });
  deepEqual([raw.status, await raw.text()], [200, "hello"]);
  equal(rawHeaders.at(-1), bytes);
  seen.pop();
  // Every address refuses: the request ends unanswered and the tunnel says why.
  tunnel.pin(`127.0.0.1:${port}`, ["127.0.0.2", "127.0.0.3"], Date.now() + 10_000);
  await rejects(fetch(`http://127.0.0.1:${port}/`, { client: tunnel.client }));
  match(
    String(tunnel.failure(`127.0.0.1:${port}`)),
    /^cannot connect to 127\.0\.0\.2: .*refused.*; 127\.0\.0\.3: .*refused/,
  );
  equal(seen.length, 1);
});

Deno.test({
  name: "pinned tunnel: it replaces a proxy from the environment (why it is not used with one)",
  ignore,
  fn: () => proxyEnvCheck("replaces"),
});

Deno.test("tunnelAddresses: a proxy variable this process may not read counts as unset", async () => {
  const module = new URL("../../plugins/http/pinned_tunnel.ts", import.meta.url).href;
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(
      script,
      `import { tunnelAddresses } from "${module}";\n` +
        'console.log(JSON.stringify(tunnelAddresses(new URL("https://a.test/"), ["93.184.215.14"])));',
    );
    const { stdout, success } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-net", "--allow-read", "--deny-env=HTTPS_PROXY", script],
      env: { HTTPS_PROXY: "http://proxy.test:3128" },
    }).output();
    deepEqual([success, new TextDecoder().decode(stdout).trim()], [true, '["93.184.215.14"]']);
  } finally {
    await Deno.remove(script);
  }
});

Deno.test({
  name:
    "pinned tunnel: another local process cannot use it (a CONNECT without its client's credential)",
  ignore,
  async fn() {
    await withTlsServer(["tunnel.test"], async (port, ca) => {
      using tunnel = openPinnedTunnel({ caCerts: [ca] });
      const upstream: string[] = [];
      tunnel.pin(`tunnel.test:${port}`, ["127.0.0.1"]);
      for (const auth of ["", "Proxy-Authorization: Basic dGFjazp4\r\n"]) {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: tunnel.port });
        try {
          // Split across two writes: the head is read whole all the same.
          await conn.write(new TextEncoder().encode(`CONNECT tunnel.test:${port} HTTP/1.1\r\n`));
          await conn.write(new TextEncoder().encode(`Host: tunnel.test:${port}\r\n${auth}\r\n`));
          const buffer = new Uint8Array(1024);
          const read = await conn.read(buffer);
          upstream.push(new TextDecoder().decode(buffer.subarray(0, read ?? 0)).split("\r\n")[0]);
        } finally {
          conn.close();
        }
      }
      deepEqual(upstream, ["HTTP/1.1 403 Forbidden", "HTTP/1.1 403 Forbidden"]);
      equal(tunnel.carried(`tunnel.test:${port}`), false);
      // Its own client still goes through.
      equal((await fetch(`https://tunnel.test:${port}/`, { client: tunnel.client })).status, 200);
      equal(tunnel.carried(`tunnel.test:${port}`), true);
    });
  },
});

Deno.test("pinned tunnel: a plain-HTTP request's target reaches the server as fetch sent it", async () => {
  // Before, the tunnel parsed the target as a URL and wrote it out again: an empty query
  // (`/a?`) reached the server as `/a`.
  const lines: string[] = [];
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  const served = (async () => {
    for await (const conn of listener) {
      const buffer = new Uint8Array(8192);
      const read = await conn.read(buffer);
      lines.push(new TextDecoder().decode(buffer.subarray(0, read ?? 0)).split("\r\n")[0]);
      await conn.write(new TextEncoder().encode("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
      conn.close();
    }
  })();
  using tunnel = openPinnedTunnel();
  try {
    tunnel.pin(`127.0.0.1:${port}`, ["127.0.0.1"], Date.now() + 10_000);
    for (const target of ["/a?", "/b??c", "/c%3F?d=%2e%2e", "/"]) {
      const response = await fetch(`http://127.0.0.1:${port}${target}`, { client: tunnel.client });
      await response.body?.cancel();
    }
    deepEqual(lines, [
      "GET /a? HTTP/1.1",
      "GET /b??c HTTP/1.1",
      "GET /c%3F?d=%2e%2e HTTP/1.1",
      "GET / HTTP/1.1",
    ]);
  } finally {
    listener.close();
    await served.catch(() => {});
  }
});
