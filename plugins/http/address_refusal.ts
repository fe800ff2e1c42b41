/**
 * Where a URL's host leads: `fetch_url` resolves host names and refuses loopback,
 * private, link-local and unspecified addresses unless `allowPrivateAddresses` is set.
 *
 * @module
 */

import { mayResolve } from "./may_resolve.ts";
import { isIpAddress, nonPublicRange } from "./ip_address.ts";

const RULE = "fetch_url refuses loopback, private, link-local and unspecified addresses " +
  "unless the http option allowPrivateAddresses is true";

function withArticle(range: string): string {
  return `${/^[aeiou]/i.test(range) ? "an" : "a"} ${range}`;
}

async function resolve(host: string, type: "A" | "AAAA", signal?: AbortSignal): Promise<string[]> {
  // A lookup needs net access to the system resolver's name servers: asked first (all net,
  // or each one), so a host with a narrower --allow-net is refused, never prompted.
  if (!mayResolve()) {
    throw new Deno.errors.NotCapable(
      "Requires net access to the DNS name servers, run again with the --allow-net flag",
    );
  }
  try {
    return await Deno.resolveDns(host, type, { signal });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    // "No connections" is a resolver that could not be reached: a failure, not an answer.
    if (error instanceof Error && /no record|not found/i.test(error.message)) {
      return [];
    }
    throw error;
  }
}

/** How {@linkcode addressRefusal} decides. */
export interface AddressCheck {
  /** Skip the check: private addresses are allowed (the `allowPrivateAddresses` option). */
  allowPrivate: boolean;
  /**
   * Whether the allowlist names this host exactly (not through `*` or `*.domain`); when the
   * host may not make DNS lookups (a sandbox granting only the listed hosts), such a host
   * passes unresolved, any other is refused.
   */
  listedExactly: boolean;
  /** Stops the lookup. */
  signal?: AbortSignal;
}

/**
 * Why `fetch_url` refuses the URL's host for where it leads, or `undefined` when it may
 * go there. IP literals are checked as written; `localhost` and `*.localhost` are
 * loopback; other names are resolved (`A` and `AAAA`) and every address must be public.
 *
 * @param url The URL about to be fetched (or a redirect's target).
 * @param check The option and what the allowlist says of the host.
 * @returns The refusal text for an error result, or `undefined`.
 *
 * @example A loopback literal is refused unless allowed
 * ```ts
 * import { addressRefusal } from "@tack/agent/plugins/http";
 * import { equal } from "node:assert/strict";
 *
 * const url = new URL("http://127.1:8080/");
 * equal(
 *   await addressRefusal(url, { allowPrivate: false, listedExactly: true }),
 *   "Host 127.0.0.1:8080 is a loopback address; fetch_url refuses loopback, private, " +
 *     "link-local and unspecified addresses unless the http option allowPrivateAddresses is true",
 * );
 * equal(await addressRefusal(url, { allowPrivate: true, listedExactly: true }), undefined);
 * ```
 */
export async function addressRefusal(url: URL, check: AddressCheck): Promise<string | undefined> {
  return (await checkAddress(url, check)).refusal;
}

/** What {@linkcode checkAddress} found. */
export interface CheckedAddress {
  /** Why the host is refused, or `undefined` when it may be reached. */
  refusal?: string;
  /** For a name that was resolved and passed, its (all public) addresses, `A` records first. */
  addresses?: string[];
}

/**
 * Like {@linkcode addressRefusal}, and also which addresses a resolved name passed with:
 * connecting to one of those, not to what a second lookup says, is what makes the check hold
 * against a DNS server that answers differently the next time (DNS rebinding).
 *
 * @param url The URL about to be fetched (or a redirect's target).
 * @param check The option and what the allowlist says of the host.
 * @returns The refusal, or the addresses checked (none for IP literals and unchecked hosts).
 *
 * @example An IP literal passes as written: there is no other address to pin
 * ```ts
 * import { checkAddress } from "./address_refusal.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(await checkAddress(new URL("http://93.184.215.14/"), { allowPrivate: false, listedExactly: true }), {});
 * ```
 */
export async function checkAddress(url: URL, check: AddressCheck): Promise<CheckedAddress> {
  if (check.allowPrivate) return {};
  const host = url.hostname.toLowerCase();
  const bare = host.replace(/\.+$/, "");
  if (isIpAddress(host)) {
    const range = nonPublicRange(host);
    return range ? { refusal: `Host ${url.host} is ${withArticle(range)} address; ${RULE}` } : {};
  }
  if (bare === "localhost" || bare.endsWith(".localhost")) {
    return { refusal: `Host ${url.host} is a loopback name; ${RULE}` };
  }
  let addresses: string[];
  try {
    const [v4, v6] = await Promise.all([
      resolve(host, "A", check.signal),
      resolve(host, "AAAA", check.signal),
    ]);
    addresses = [...v4, ...v6];
  } catch (error) {
    check.signal?.throwIfAborted();
    if (error instanceof Deno.errors.NotCapable && check.listedExactly) return {};
    return {
      refusal: `Cannot check where ${host} leads: resolving it failed (${
        (error as Error).message
      }); ${RULE}, so hosts that cannot be resolved are refused`,
    };
  }
  // No address: nothing to check, while `fetch` asks the system resolver (mDNS, NIS, an
  // /etc/nsswitch.conf module), which may well answer with a private one.
  if (addresses.length === 0) {
    return {
      refusal:
        `Cannot check where ${host} leads: it has no A or AAAA record; ${RULE}, so hosts that cannot be resolved are refused`,
    };
  }
  for (const address of addresses) {
    const range = nonPublicRange(address);
    if (range) {
      return {
        refusal: `Host ${url.host} resolves to ${address}, ${withArticle(range)} address; ${RULE}`,
      };
    }
  }
  return { addresses };
}
