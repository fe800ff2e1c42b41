/**
 * Where `fetch_url` connects for a URL whose name it resolved and checked: `fetch` is given a
 * proxy of the tool's own, on loopback, that connects to the addresses the check found, in
 * order, each attempt bounded, until one accepts. For `https:` it opens a CONNECT tunnel:
 * `fetch` still does the TLS handshake itself, with the name in SNI and the certificate
 * checked for the name. For `http:` it forwards the request (sent for the first address,
 * with the name in `Host`) to the address that accepted, and to no other. `fetch` never
 * resolves the name, so a DNS server that answers differently the second time (DNS
 * rebinding) is never asked.
 *
 * @module
 */

import { hostMay } from "../../sdk/sandbox/host_may.ts";
import { connectInOrder } from "./connect_in_order.ts";

/** The variables `fetch` takes a proxy from, by the URL's scheme. */
const PROXY_VARIABLES: Record<string, string[]> = {
  "http:": ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"],
  "https:": ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"],
};
/**
 * The most a request's head may take: a plain-HTTP request's carries its headers (Node's
 * servers take 16 KiB of them, nginx up to 32 KiB by default).
 */
const HEAD_LIMIT = 65536;
const encoder = new TextEncoder();

/**
 * Which of `addresses` a tunnel for `url` may go to: those this process may connect to on
 * the URL's port without a prompt, and none when the tunnel does not apply. It does not for
 * a URL other than `http:` and `https:`, when this process may not listen on loopback, or
 * when a proxy from the environment for the URL's scheme (`HTTP_PROXY` or `HTTPS_PROXY`,
 * `ALL_PROXY`) is set: an explicit proxy replaces it, so the tunnel would go around it, and
 * the proxy resolves the name itself anyway (a plain-HTTP URL is then pinned to the first
 * address by `pinnedUrl`). A variable this process may not read (a sandbox denies them)
 * counts as not set.
 *
 * @param url The URL asked for, whose name was checked.
 * @param addresses The addresses the check found, in order (none for an IP literal).
 * @returns The addresses to try, in order; none to fetch `url` by name.
 *
 * @example
 * ```ts
 * import { tunnelAddresses } from "./pinned_tunnel.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(tunnelAddresses(new URL("ftp://a.test/"), ["93.184.215.14"]), []);
 * ```
 */
export function tunnelAddresses(url: URL, addresses: readonly string[] | undefined): string[] {
  const variables = PROXY_VARIABLES[url.protocol];
  if (!variables || !addresses?.length) return [];
  if (!hostMay({ name: "net", host: "127.0.0.1:0" })) return [];
  const proxied = variables.some((variable) =>
    hostMay({ name: "env", variable }) && Deno.env.get(variable)
  );
  if (proxied) return [];
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return addresses.filter((address) =>
    hostMay({ name: "net", host: `${address.includes(":") ? `[${address}]` : address}:${port}` })
  );
}

/**
 * Whether `NO_PROXY` (or `no_proxy`) may name `hostname`, so that `fetch` would go around the
 * tunnel (Deno's client skips even an explicit proxy for such a host) and look the name up
 * again. Read wide: `*`, the name itself, or any entry the name ends with (`.test`,
 * `rebind.test`, `test`), its port and a leading `*.` or `.` aside; a name so named is refused
 * rather than fetched unpinned. A variable this process may not read counts as not set
 * (`fetch_url` still refuses an answer the tunnel did not carry).
 *
 * @param hostname The URL's host name (lower case, as `URL` gives it).
 * @returns Whether a readable `NO_PROXY` may name it.
 *
 * @example
 * ```ts
 * import { noProxyMayName } from "./pinned_tunnel.ts";
 * import { equal } from "node:assert/strict";
 *
 * const before = Deno.env.get("NO_PROXY");
 * Deno.env.set("NO_PROXY", "localhost, .internal.test:443");
 * try {
 *   equal(noProxyMayName("api.internal.test"), true);
 *   equal(noProxyMayName("localhost"), true);
 *   equal(noProxyMayName("example.org"), false);
 * } finally {
 *   if (before === undefined) Deno.env.delete("NO_PROXY");
 *   else Deno.env.set("NO_PROXY", before);
 * }
 * ```
 */
export function noProxyMayName(hostname: string): boolean {
  const name = hostname.replace(/\.$/, "");
  return ["NO_PROXY", "no_proxy"].some((variable) => {
    if (!hostMay({ name: "env", variable })) return false;
    return (Deno.env.get(variable) ?? "").split(",").some((raw) => {
      const entry = raw.trim().toLowerCase().replace(/:\d+$/, "").replace(/^\*?\./, "")
        .replace(/\.$/, "");
      return entry === "*" || (entry !== "" && name.endsWith(entry));
    });
  });
}

/** A CONNECT proxy on loopback for one `fetch_url` call, and the client that sends through it. */
export interface PinnedTunnel {
  /**
   * The client to give `fetch`: every request it sends goes through the tunnel, but for a
   * host `NO_PROXY` names (see {@linkcode PinnedTunnel.carried}).
   */
  readonly client: Deno.HttpClient;
  /** The loopback port the tunnel listens on (it answers only its own client). */
  readonly port: number;
  /**
   * Sets where a CONNECT to `authority`, or a plain request for an `http:` URL with that
   * authority, goes from now on; a request for any other is refused. Each address is tried in
   * turn until one accepts, each attempt but the last bounded (`attemptTimeoutMs`) within what
   * is left before `deadline` (the last ends when the tunnel closes); a request is sent to the
   * one that accepted only.
   *
   * @param authority `hostname:port`, as `netHostOf` gives it (the port always written).
   * @param addresses The checked addresses to try, in order.
   * @param deadline When the call's time ends (epoch milliseconds); none: attempts unbounded.
   */
  pin(authority: string, addresses: readonly string[], deadline?: number): void;
  /**
   * Whether a tunnel to `authority` was opened: `false` after `fetch` answered means it went
   * around the tunnel, by name (`NO_PROXY` naming the host does that to any proxy).
   */
  carried(authority: string): boolean;
  /**
   * Why the last tunnel to `authority` could not be opened (each address tried and why it
   * failed), or, while one is still being opened, the addresses that failed so far and the
   * one tried (for a call that ran out of time); `undefined` when none failed.
   */
  failure(authority: string): string | undefined;
  /** Closes the client, the listener and every tunnel. */
  close(): void;
  /** Closes it, as `close` (for `using`). */
  [Symbol.dispose](): void;
}

/**
 * Opens a {@linkcode PinnedTunnel}: a listener on 127.0.0.1 (a port of the system's choosing)
 * that answers `CONNECT host:port`, or a plain request for `http://host:port/…`, for a pinned
 * authority by connecting to its addresses in order (`connectInOrder`) and relaying bytes
 * both ways, and a `Deno.HttpClient` whose proxy it is (one connection a request). Another
 * local process can reach the port: a request without the client's random credential
 * (`Proxy-Authorization`) is refused.
 *
 * @param options For the client, but its proxy, `allowHost` and `poolMaxIdlePerHost`
 *   (`caCerts`, say).
 * @returns The tunnel; close it when the call ends.
 *
 * @example A CONNECT nobody pinned is refused
 * ```ts
 * import { openPinnedTunnel } from "./pinned_tunnel.ts";
 * import { rejects } from "node:assert/strict";
 *
 * const tunnel = openPinnedTunnel();
 * try {
 *   await rejects(fetch("https://a.test/", { client: tunnel.client }));
 * } finally {
 *   tunnel.close();
 * }
 * ```
 */
export function openPinnedTunnel(
  options: Omit<Deno.CreateHttpClientOptions, "proxy"> = {},
): PinnedTunnel {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const password = Array.from(
    crypto.getRandomValues(new Uint8Array(16)),
    (byte) => byte.toString(16).padStart(2, "0"),
  ).join("");
  const client = Deno.createHttpClient({
    ...options,
    // `fetch_url` sets `Host` for a plain-HTTP URL sent for an address.
    allowHost: true,
    // A connection for each request: the relay reads the head of a forwarded request only
    // (one kept alive would send the next one's head, proxy credential and all, as it is).
    poolMaxIdlePerHost: 0,
    proxy: {
      url: `http://127.0.0.1:${listener.addr.port}`,
      basicAuth: { username: "tack", password },
    },
  });
  const credential = `Basic ${btoa(`tack:${password}`)}`;
  const pins = new Map<string, { addresses: readonly string[]; deadline?: number }>();
  const carried = new Set<string>();
  const failures = new Map<string, string>();
  /** While a tunnel is being opened: the addresses that failed (`address: why`), then the one tried. */
  const attempts = new Map<string, string[]>();
  const open = new Set<Deno.Conn>();
  const closing = new AbortController();
  const closeQuietly = (conn: Deno.Conn) => {
    open.delete(conn);
    try {
      conn.close();
    } catch {
      // closed already (by the relay ending)
    }
  };

  async function relay(conn: Deno.Conn): Promise<void> {
    open.add(conn);
    let upstream: Deno.Conn | undefined;
    try {
      const head = await readHead(conn);
      const request = head && parseProxyRequest(head.text);
      const pinned = request ? pins.get(request.authority) : undefined;
      const authorized = head?.text.split("\r\n").some((line) =>
        /^proxy-authorization:/i.test(line) && line.slice(20).trim() === credential
      );
      // Too long, or cut: ended unanswered (an answer would read as the server's).
      if (!head) return;
      if (!authorized || !request || !pinned) {
        await conn.write(encoder.encode("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n"));
        return;
      }
      const { authority } = request;
      const port = Number(authority.slice(authority.lastIndexOf(":") + 1));
      const outcome = await connectInOrder(pinned.addresses, port, {
        deadline: pinned.deadline,
        signal: closing.signal,
        onAttempt: (failed, trying) => attempts.set(authority, [...failed, trying]),
      });
      attempts.delete(authority);
      if (outcome.kind === "failed") {
        failures.set(authority, outcome.failure);
        // A forwarded request ends unanswered: a 502 would read as the server's answer.
        if (request.forward === undefined) {
          await conn.write(
            encoder.encode("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n"),
          );
        }
        return;
      }
      upstream = outcome.conn;
      open.add(upstream);
      if (closing.signal.aborted) return;
      carried.add(authority);
      // Nothing was sent before: the request goes to this address only.
      if (request.forward === undefined) {
        await conn.write(encoder.encode("HTTP/1.1 200 Connection established\r\n\r\n"));
      } else {
        await upstream.write(request.forward);
      }
      if (head.rest.length > 0) await upstream.write(head.rest);
      await Promise.allSettled([
        conn.readable.pipeTo(upstream.writable),
        upstream.readable.pipeTo(conn.writable),
      ]);
    } catch {
      // the other end went away, or the tunnel closed: nothing to tell (fetch reports its own)
    } finally {
      if (upstream) closeQuietly(upstream);
      closeQuietly(conn);
    }
  }

  (async () => {
    try {
      for await (const conn of listener) relay(conn);
    } catch {
      // the listener was closed
    }
  })();

  return {
    client,
    port: listener.addr.port,
    pin(authority, addresses, deadline) {
      pins.set(authority.toLowerCase(), { addresses: [...addresses], deadline });
      failures.delete(authority.toLowerCase());
    },
    carried: (authority) => carried.has(authority.toLowerCase()),
    failure(authority) {
      const key = authority.toLowerCase();
      const tried = attempts.get(key);
      if (failures.has(key) || !tried) return failures.get(key);
      // Still connecting (the call ran out of time): the failures so far, and the one tried.
      const trying = `${tried.at(-1)}: no answer before the call's timeout`;
      return `cannot connect to ${[...tried.slice(0, -1), trying].join("; ")}`;
    },
    close() {
      closing.abort();
      client.close();
      try {
        listener.close();
      } catch {
        // closed already
      }
      for (const conn of [...open]) closeQuietly(conn);
    },
    [Symbol.dispose]() {
      this.close();
    },
  };
}

/** Reads a request head (up to the blank line), or `undefined` past the limit or at the end. */
async function readHead(conn: Deno.Conn): Promise<{ text: string; rest: Uint8Array } | undefined> {
  const buffer = new Uint8Array(HEAD_LIMIT);
  let size = 0;
  while (size < HEAD_LIMIT) {
    const read = await conn.read(buffer.subarray(size));
    if (read === null) return undefined;
    size += read;
    const text = byteText(buffer.subarray(0, size));
    const end = text.indexOf("\r\n\r\n");
    if (end >= 0) return { text: text.slice(0, end + 4), rest: buffer.slice(end + 4, size) };
  }
  return undefined;
}

/**
 * Bytes as text, one character a byte, so that the text encodes back to the same bytes
 * (`TextDecoder("latin1")` is windows-1252: a header's 0x80 came back as 0xAC).
 */
function byteText(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return text;
}

/**
 * What a request to the tunnel asks for: `CONNECT host:port` (an https tunnel), or a plain
 * HTTP request in absolute form (`GET http://host/path HTTP/1.1`), forwarded in origin form
 * without the proxy's own headers.
 */
function parseProxyRequest(
  text: string,
): { authority: string; forward?: Uint8Array } | undefined {
  const [first, ...lines] = text.split("\r\n");
  const connect = /^CONNECT (\S+) HTTP\/1\.[01]$/.exec(first);
  if (connect) return { authority: connect[1].toLowerCase() };
  // The authority a name, an address or `[address]`, and a port: nothing URL reads otherwise.
  const plain = /^([A-Z]+) (http:\/\/[\w.:[\]-]+(?:[/?]\S*)?) (HTTP\/1\.[01])$/.exec(first);
  if (!plain) return undefined;
  let target: URL;
  try {
    target = new URL(plain[2]);
  } catch {
    return undefined;
  }
  const kept = lines.filter((line) =>
    line !== "" && !/^proxy-(authorization|connection):/i.test(line)
  );
  // The target as fetch wrote it, its scheme and authority cut: parsed and written out again,
  // an empty query (`/a?`) was lost.
  const path = plain[2].replace(/^http:\/\/[\w.:[\]-]+/, "");
  const origin = path.startsWith("/") ? path : `/${path}`;
  const forward = [`${plain[1]} ${origin} ${plain[3]}`, ...kept]
    .join("\r\n") + "\r\n\r\n";
  return {
    authority: `${target.hostname}:${target.port || "80"}`,
    forward: Uint8Array.from(forward, (char) => char.charCodeAt(0)),
  };
}
