/**
 * What `fetch_url` gives `fetch` for a plain-HTTP URL whose name it resolved and checked: the
 * URL with the first address checked in place of the name, and the name in the `Host`
 * header, so a DNS server that answers the connection's own lookup differently (DNS
 * rebinding) is never asked. Sent through the call's tunnel (`pinned_tunnel.ts`), it goes to
 * the first of the checked addresses that accepts; without the tunnel, to that first one.
 *
 * @module
 */

import { hostMay } from "../../sdk/sandbox/host_may.ts";

/**
 * The URL to connect to instead of `url`: its host replaced by `address`, for `http:` only
 * (an `https:` URL keeps its name, for the certificate check, and goes through a tunnel to
 * the address: `pinned_tunnel.ts`), and only where this process may reach that address
 * without a prompt (a sandbox granting names keeps connecting by name).
 *
 * @param url The URL asked for, whose name was checked.
 * @param address The address the check found, or `undefined` (an IP literal, no check).
 * @returns The URL to fetch, with `Host: url.host`, or `undefined` to fetch `url` itself.
 *
 * @example
 * ```ts
 * import { pinnedUrl } from "./pinned_url.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(pinnedUrl(new URL("http://a.test:8080/p?q"), "2001:4860::1")?.href,
 *   "http://[2001:4860::1]:8080/p?q");
 * equal(pinnedUrl(new URL("https://a.test/"), "93.184.215.14"), undefined);
 * ```
 */
export function pinnedUrl(url: URL, address: string | undefined): URL | undefined {
  if (address === undefined || url.protocol !== "http:") return undefined;
  const pinned = new URL(url);
  pinned.hostname = address.includes(":") ? `[${address}]` : address;
  const host = `${pinned.hostname}:${pinned.port || "80"}`;
  return hostMay({ name: "net", host }) ? pinned : undefined;
}
