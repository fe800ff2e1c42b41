/**
 * fetch_url against DNS rebinding over TLS, by an attacker holding a valid certificate for
 * their own name: its lookups answer public addresses to the check and 127.0.0.1 to any
 * later lookup, and the service on 127.0.0.1 presents a certificate for that name too (so
 * the certificate check alone does not stop it). Run as root on Linux only: it needs a
 * network namespace (its own loopback, DNS server and /etc/resolv.conf) and `openssl` (the
 * CA and certificate are made at test time); skipped elsewhere.
 */

import { deepEqual, equal } from "node:assert/strict";
import { hasOpenssl, makeCertificates } from "../support/test_certificates.ts";
import { canIsolate, runInOwnNetwork } from "../support/own_network.ts";

const CHILD = new URL("../fixtures/http/rebinding_https_child.ts", import.meta.url).pathname;

async function canRun(): Promise<boolean> {
  return await hasOpenssl() && await canIsolate();
}

Deno.test({
  name: "fetch_url: an https name is connected to at an address checked (trying each in order, " +
    "each attempt bounded), " +
    "not at a second lookup's, and its certificate is still checked for the name",
  ignore: !(await canRun()),
  async fn() {
    // Before, fetch resolved each name again and every request reached the secret.
    const dir = await Deno.makeTempDir();
    try {
      const { ca, cert, key } = await makeCertificates(dir, ["rebind.test", "*.rebind.test"]);
      const child = (flags: string[] = []) =>
        runInOwnNetwork({
          setup: "ip addr add 93.184.215.13/32 dev lo; ip addr add 93.184.215.14/32 dev lo; " +
            // A device nobody reads: what is routed there is dropped, unanswered.
            "ip tuntap add dev void0 mode tun; ip link set void0 up; " +
            "ip route add 93.184.215.12/32 dev void0",
          child: CHILD,
          args: [cert, key],
          flags,
          env: { DENO_CERT: ca, NO_PROXY: "noproxy.rebind.test" },
        }) as Promise<Record<string, { text: string; isError: boolean }>>;
      const ok = (asked: string) => ({
        text: `HTTP 200 OK (text/plain;charset=UTF-8)\n\npublic, asked for ${asked}`,
        isError: false,
      });
      deepEqual(await child(), {
        "https://rebind.test:8443/": ok("rebind.test:8443/"),
        "https://two.rebind.test:8443/": ok("two.rebind.test:8443/"),
        "https://hop.rebind.test:8443/hop": {
          ...ok("final.rebind.test:8443/landed"),
          text:
            "HTTP 200 OK (text/plain;charset=UTF-8)\nURL: https://final.rebind.test:8443/landed" +
            "\n\npublic, asked for final.rebind.test:8443/landed",
        },
        // The first address checked refuses, and there is no other: no second lookup either.
        "https://dead.rebind.test:8443/": {
          text: "Cannot fetch https://dead.rebind.test:8443/: cannot connect to 93.184.215.13: " +
            "Connection refused (os error 111)",
          isError: true,
        },
        // The first address never answers: the next is tried within the call's time (before,
        // the call timed out).
        "https://void.rebind.test:8443/": ok("void.rebind.test:8443/"),
        "https://silent.rebind.test:8444/": {
          text: "Request to https://silent.rebind.test:8444/ timed out after 2 seconds",
          isError: true,
        },
        // The address checked, with a certificate not for the name asked: refused by fetch.
        "https://elsewhere.test:8443/": {
          text: "Cannot fetch https://elsewhere.test:8443/: fetch failed (error sending request " +
            "for url (https://elsewhere.test:8443/): client error (Connect): invalid peer " +
            'certificate: certificate not valid for name "elsewhere.test"; certificate is only ' +
            'valid for DnsName("rebind.test") or DnsName("*.rebind.test"))',
          isError: true,
        },
        // NO_PROXY takes the name around the tunnel, to a second lookup (it read the secret):
        // refused before it is sent.
        "https://noproxy.rebind.test:8443/": {
          text: "Cannot fetch https://noproxy.rebind.test:8443/: NO_PROXY names its host, so " +
            "fetch would connect to it by name, not to an address checked; refused",
          isError: true,
        },
      });
      // A NO_PROXY the process may not read still sends fetch around the tunnel: the answer
      // it did not carry is refused (the request went out).
      const unread = await child(["--deny-env=NO_PROXY,no_proxy"]);
      deepEqual(unread["https://noproxy.rebind.test:8443/"], {
        text: "Cannot fetch https://noproxy.rebind.test:8443/: NO_PROXY names its host, so " +
          "fetch connected to it by name, not to an address checked; refused",
        isError: true,
      });
      equal(unread["https://rebind.test:8443/"].isError, false);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
