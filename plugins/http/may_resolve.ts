/**
 * Whether this process may make a DNS lookup without a permission prompt. Deno checks a
 * lookup against every name server the system resolver would ask (`/etc/resolv.conf`'s, on
 * port 53), so a host granted those, and not the whole network, may resolve too.
 *
 * @module
 */

import { hostMay } from "../../sdk/sandbox/host_may.ts";

/**
 * The name servers in a `resolv.conf`, as net permissions name them (`ip:53`, `[ip6]:53`;
 * an IPv6 zone such as `%eth0` dropped, as Deno does).
 *
 * @param text The file's text.
 * @returns The `host:port` of each, in order.
 *
 * @example
 * ```ts
 * import { nameServersOf } from "./may_resolve.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(nameServersOf("# dns\nnameserver 10.0.0.53\nnameserver fe80::1%eth0\nsearch x\n"), [
 *   "10.0.0.53:53",
 *   "[fe80::1]:53",
 * ]);
 * ```
 */
export function nameServersOf(text: string): string[] {
  const servers: string[] = [];
  for (const line of text.split("\n")) {
    const address = /^\s*nameserver\s+([^\s#;]+)/.exec(line)?.[1].replace(/%.*$/, "");
    if (address) servers.push(address.includes(":") ? `[${address}]:53` : `${address}:53`);
  }
  return servers;
}

/**
 * Whether a DNS lookup needs no permission this process lacks: all of the network, or every
 * name server of `resolvConf` (read only where the process may: asked first, no prompt).
 *
 * @param resolvConf The resolver's configuration file.
 * @returns `true` when a lookup would not be denied or prompted for.
 *
 * @example
 * ```ts
 * import { mayResolve } from "./may_resolve.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(typeof mayResolve(), "boolean");
 * ```
 */
export function mayResolve(resolvConf = "/etc/resolv.conf"): boolean {
  if (hostMay({ name: "net" })) return true;
  if (Deno.build.os === "windows" || !hostMay({ name: "read", path: resolvConf })) return false;
  let servers: string[];
  try {
    servers = nameServersOf(Deno.readTextFileSync(resolvConf));
  } catch {
    return false;
  }
  return servers.length > 0 && servers.every((host) => hostMay({ name: "net", host }));
}
