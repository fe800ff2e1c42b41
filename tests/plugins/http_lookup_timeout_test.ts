/**
 * fetch_url's timeout bounds its DNS lookups too: a name whose DNS server never answers, asked
 * for or redirected to. Run as root on Linux only: it needs a network namespace (its own
 * loopback, DNS server and /etc/resolv.conf); skipped elsewhere.
 */

import { deepEqual } from "node:assert/strict";

const CHILD = new URL("../fixtures/http/silent_dns_child.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

async function canIsolate(): Promise<boolean> {
  if (Deno.build.os !== "linux" || Deno.uid() !== 0) return false;
  const probe = new Deno.Command("unshare", { args: ["-mn", "true"], stderr: "null" });
  return (await probe.output().catch(() => ({ success: false }))).success;
}

Deno.test({
  name: "fetch_url: the call's timeout ends a lookup that is not answered, the URL's or a " +
    "redirect's, and says so",
  ignore: !(await canIsolate()),
  async fn() {
    // Before, neither lookup was bounded by the call's timeout: both calls ran on until the
    // resolver gave up (2 s, four times the timeout) and said "resolving it failed (proto
    // error: request timed out)", the first before the call's timer had even started.
    const resolvConf = await Deno.makeTempFile();
    try {
      await Deno.writeTextFile(resolvConf, "nameserver 127.0.0.1\n");
      const script = "set -e; ip link set lo up; ip addr add 93.184.215.14/32 dev lo; " +
        `mount --bind ${resolvConf} /etc/resolv.conf; ` +
        `exec "${Deno.execPath()}" run -A --unstable-net --config ${CONFIG} ${CHILD}`;
      const run = new Deno.Command("unshare", { args: ["-mn", "bash", "-c", script] });
      const { stdout, stderr, success } = await run.output();
      deepEqual([success, new TextDecoder().decode(stderr).trim()], [true, ""]);
      deepEqual(JSON.parse(new TextDecoder().decode(stdout)), {
        "http://silent.test:8080/":
          "Request to http://silent.test:8080/ timed out after 0.5 seconds",
        "http://pub.test:8080/to-silent":
          "Request to http://pub.test:8080/to-silent timed out after 0.5 seconds",
      });
    } finally {
      await Deno.remove(resolvConf);
    }
  },
});
