/**
 * fetch_url against DNS rebinding: a name whose lookups answer a public address to the
 * check and 127.0.0.1 to the connection's own lookup. Run as root on Linux only: it needs a
 * network namespace (its own loopback, DNS server and /etc/resolv.conf); skipped elsewhere.
 */

import { deepEqual } from "node:assert/strict";
import { canIsolate, runInOwnNetwork } from "../support/own_network.ts";

const CHILD = new URL("../fixtures/http/rebinding_child.ts", import.meta.url).pathname;

Deno.test({
  name: "fetch_url: a plain-HTTP name is connected to at an address checked, not at a second " +
    "lookup's, trying each in order when one refuses or never answers, and a request is sent " +
    "to one address at most",
  ignore: !(await canIsolate()),
  async fn() {
    // Before, fetch resolved the name again and reached 127.0.0.1:8080: "INTERNAL SECRET".
    // Later, it connected to the first address checked only: two.rebind.test failed, and
    // void.rebind.test timed out.
    const printed = await runInOwnNetwork({
      setup: "for a in 13 14 15; do ip addr add 93.184.215.$a/32 dev lo; done; " +
        // A device nobody reads: what is routed there is dropped, unanswered.
        "ip tuntap add dev void0 mode tun; ip link set void0 up; " +
        "ip route add 93.184.215.12/32 dev void0; ip route add 93.184.215.16/32 dev void0",
      child: CHILD,
    });
    const ok = (host: string) => ({
      text: `HTTP 200 OK (text/plain;charset=UTF-8)\n\npublic, asked for ${host}`,
      isError: false,
    });
    deepEqual(printed, {
      outcomes: {
        "http://rebind.test:8080/": ok("rebind.test:8080"),
        "http://two.rebind.test:8080/": ok("two.rebind.test:8080"),
        "http://void.rebind.test:8080/": ok("void.rebind.test:8080"),
        "http://dead.rebind.test:8080/": {
          text: "Cannot fetch http://dead.rebind.test:8080/: cannot connect to 93.184.215.13: " +
            "Connection refused (os error 111); 93.184.215.11: Network is unreachable (os error 101)",
          isError: true,
        },
        // Neither answers: the first gets its share (3 s), the last what is left, and the call's
        // timeout says what was tried.
        "http://voids.rebind.test:8080/": {
          text: "Request to http://voids.rebind.test:8080/ timed out after 6 seconds (cannot " +
            "connect to 93.184.215.12: no answer within 3 s; 93.184.215.16: no answer before " +
            "the call's timeout)",
          isError: true,
        },
        "http://post.rebind.test:8080/": ok("post.rebind.test:8080"),
        // The first address took the request and closed: an answer of sorts, not retried.
        "http://closer.rebind.test:8080/": {
          text: "Cannot fetch http://closer.rebind.test:8080/: fetch failed",
          isError: true,
        },
      },
      bodies: ["93.184.215.14: sent once", "93.184.215.15: sent once, unanswered"],
    });
  },
});
