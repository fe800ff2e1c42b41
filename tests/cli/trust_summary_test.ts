// The trust summary of a sandboxed plugin says which permissions it will get: with no
// "permissions" in tack.jsonc that is what the plugin declares (loadPlugin's default), not
// none, so the summary must not print `permissions {}` as if it were granted nothing.
import { deepEqual } from "node:assert/strict";
import { trustSummary } from "../../cli/trust_summary.ts";

Deno.test("cli: the trust summary of a sandboxed plugin without permissions says it gets what it declares", () => {
  const lines = trustSummary({
    plugins: [
      { specifier: "./a.ts", sandbox: true, baseDir: "/p", source: "tack.jsonc" },
      { specifier: "./b.ts", sandbox: true, permissions: {}, baseDir: "/p", source: "tack.jsonc" },
      {
        specifier: "./c.ts",
        sandbox: true,
        permissions: { net: ["example.com"] },
        baseDir: "/p",
        source: "tack.jsonc",
      },
    ],
  });
  deepEqual(lines, [
    "loads the plugin ./a.ts (/p/a.ts), sandboxed, with the permissions it declares",
    "loads the plugin ./b.ts (/p/b.ts), sandboxed, permissions {}",
    'loads the plugin ./c.ts (/p/c.ts), sandboxed, permissions {"net":["example.com"]}',
  ]);
});
