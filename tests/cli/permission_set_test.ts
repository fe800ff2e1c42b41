// The CLI's permission set (`deno task agent` runs with -P=cli) lets the sandbox use what it
// relies on: here, prlimit, the OS memory cap of a sandboxed plugin. Checked in a real
// process with that set, from the repository's deno.json.
import { equal } from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test({
  name:
    "the CLI's permission set finds prlimit (the sandbox's OS memory cap) where it is installed",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const installed = ["/usr/bin/prlimit", "/bin/prlimit"].find((path) => {
      try {
        return Deno.statSync(path).isFile;
      } catch {
        return false;
      }
    });
    const script = await Deno.makeTempFile({ dir: ROOT, prefix: ".tack-prlimit-", suffix: ".ts" });
    try {
      await Deno.writeTextFile(
        script,
        `import { prlimitPath } from "./sdk/sandbox/memory_limit.ts";\nconsole.log(prlimitPath() ?? "none");\n`,
      );
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-P=cli", "--no-prompt", script],
        cwd: ROOT,
        stdout: "piped",
        stderr: "piped",
      }).output();
      equal(output.success, true, new TextDecoder().decode(output.stderr));
      equal(new TextDecoder().decode(output.stdout).trim(), installed ?? "none");
    } finally {
      await Deno.remove(script);
    }
  },
});

Deno.test("the CLI's permission set reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY: behind a proxy, http's requests go through it; a host NO_PROXY names is refused before it is sent", async () => {
  // Found when https was pinned to its checked addresses: a proxy variable the CLI could not
  // read counted as unset, and its requests went around the proxy (failing where only the
  // proxy may reach out).
  const script = await Deno.makeTempFile({ dir: ROOT, prefix: ".tack-proxy-", suffix: ".ts" });
  try {
    await Deno.writeTextFile(
      script,
      `import { noProxyMayName, tunnelAddresses } from "./plugins/http/pinned_tunnel.ts";\n` +
        `console.log(JSON.stringify(tunnelAddresses(new URL("https://a.test/"), ["93.184.215.14"])));\n` +
        `console.log(noProxyMayName("a.test"));\n` +
        `console.log(JSON.stringify(tunnelAddresses(new URL("http://a.test/"), ["93.184.215.14"])));\n`,
    );
    const run = async (env: Record<string, string>) => {
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-P=cli", "--no-prompt", script],
        cwd: ROOT,
        env,
        stdout: "piped",
        stderr: "piped",
      }).output();
      equal(output.success, true, new TextDecoder().decode(output.stderr));
      return new TextDecoder().decode(output.stdout).trim();
    };
    const clear = Object.fromEntries(
      ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]
        .concat(["NO_PROXY", "no_proxy"])
        .map((name) => [name, ""]),
    );
    const tunnelled = '["93.184.215.14"]';
    for (const variable of ["HTTPS_PROXY", "https_proxy"]) {
      const ran = await run({ ...clear, [variable]: "http://proxy.test:3128" });
      equal(ran, `[]\nfalse\n${tunnelled}`, variable);
    }
    // Plain http is tunnelled (to each checked address in turn) only without an http proxy
    // (found when it was: the CLI could not read HTTP_PROXY, and went around it).
    for (const variable of ["HTTP_PROXY", "http_proxy"]) {
      const ran = await run({ ...clear, [variable]: "http://proxy.test:3128" });
      equal(ran, `${tunnelled}\nfalse\n[]`, variable);
    }
    for (const variable of ["ALL_PROXY", "all_proxy"]) {
      equal(
        await run({ ...clear, [variable]: "http://proxy.test:3128" }),
        "[]\nfalse\n[]",
        variable,
      );
    }
    // Without one, the request goes to the checked address (the tunnel)...
    equal(await run(clear), `${tunnelled}\nfalse\n${tunnelled}`);
    // ...unless NO_PROXY names the host: then fetch would go around the tunnel, and it is
    // refused before it is sent.
    for (const variable of ["NO_PROXY", "no_proxy"]) {
      equal(
        await run({ ...clear, [variable]: ".test" }),
        `${tunnelled}\ntrue\n${tunnelled}`,
        variable,
      );
    }
  } finally {
    await Deno.remove(script);
  }
});
