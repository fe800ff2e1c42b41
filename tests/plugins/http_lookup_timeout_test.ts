/**
 * fetch_url's timeout bounds its DNS lookups too: a name whose DNS server never answers, asked
 * for or redirected to. Run as root on Linux only: it needs a network namespace (its own
 * loopback, DNS server and /etc/resolv.conf); skipped elsewhere.
 */

import { deepEqual } from "node:assert/strict";
import { canIsolate, runInOwnNetwork } from "../support/own_network.ts";

const CHILD = new URL("../fixtures/http/silent_dns_child.ts", import.meta.url).pathname;

Deno.test({
  name: "fetch_url: the call's timeout ends a lookup that is not answered, the URL's or a " +
    "redirect's, and says so",
  ignore: !(await canIsolate()),
  async fn() {
    // Before, neither lookup was bounded by the call's timeout: both calls ran on until the
    // resolver gave up (2 s, four times the timeout) and said "resolving it failed (proto
    // error: request timed out)", the first before the call's timer had even started.
    const printed = await runInOwnNetwork({
      setup: "ip addr add 93.184.215.14/32 dev lo",
      child: CHILD,
    });
    deepEqual(printed, {
      "http://silent.test:8080/": "Request to http://silent.test:8080/ timed out after 0.5 seconds",
      "http://pub.test:8080/to-silent":
        "Request to http://pub.test:8080/to-silent timed out after 0.5 seconds",
    });
  },
});
