/**
 * fetch_url against DNS rebinding: a name whose lookups answer a public address to the
 * check and 127.0.0.1 to the connection's own lookup. Run as root on Linux only: it needs a
 * network namespace (its own loopback, DNS server and /etc/resolv.conf); skipped elsewhere.
 */

import { deepEqual } from "node:assert/strict";

const CHILD = new URL("../fixtures/http/rebinding_child.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

async function canIsolate(): Promise<boolean> {
  if (Deno.build.os !== "linux" || Deno.uid() !== 0) return false;
  const probe = new Deno.Command("unshare", { args: ["-mn", "true"], stderr: "null" });
  return (await probe.output().catch(() => ({ success: false }))).success;
}

Deno.test({
  name:
    "fetch_url: a plain-HTTP name is connected to at the address checked, not at a second lookup's",
  ignore: !(await canIsolate()),
  async fn() {
    // Before, fetch resolved the name again and reached 127.0.0.1:8080: "INTERNAL SECRET".
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
        text: "HTTP 200 OK (text/plain;charset=UTF-8)\n\npublic, asked for rebind.test:8080",
        isError: false,
      });
    } finally {
      await Deno.remove(resolvConf);
    }
  },
});
