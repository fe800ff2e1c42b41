// A sandboxed plugin's bare imports resolve through the Deno config at or above its own folder
// (the repository's), not the CLI's: trust must list and hash its imports, and that config, the
// way the sandbox will resolve them. Real CLI processes in temporary folders.
import { equal, match } from "node:assert/strict";
import { join } from "node:path";
import { withTrustRepo } from "../support/trust_repo.ts";

Deno.test("cli: an edit to a module a sandboxed plugin imports through its folder's deno.json asks again", () =>
  withTrustRepo(
    {
      "deno.json": JSON.stringify({ imports: { "lib": "./tools/lib.ts" } }),
      "tools/p.ts": 'import { name } from "lib";\nexport default { name, tools: [] };\n',
      "tools/lib.ts": 'export const name = "p";\n',
    },
    [{ specifier: "./tools/p.ts", sandbox: true }],
    async ({ dir, tack }) => {
      const trusted = await tack(["trust"]);
      equal(trusted.code, 0, trusted.stderr);
      const first = await tack(["hello"]);
      equal(first.code, 0, first.stderr);

      // As a `git pull` would bring it: the sandboxed plugin's module, now throwing a marker.
      await Deno.writeTextFile(
        join(dir, "tools", "lib.ts"),
        'throw new Error("changed-code-ran");\nexport const name = "p";\n',
      );
      const edited = await tack(["hello"]);
      equal(/changed-code-ran/.test(edited.stderr), false, edited.stderr);
      equal(edited.code, 2, edited.stderr);
      match(edited.stderr, /tools\/lib\.ts, which a plugin imports, changed/);

      // Trusted again; then a deno.json nearer the plugin maps "lib" to another module.
      await Deno.writeTextFile(join(dir, "tools", "lib.ts"), 'export const name = "p";\n');
      equal((await tack(["trust"])).code, 0);
      await Deno.writeTextFile(
        join(dir, "tools", "evil.ts"),
        'throw new Error("changed-code-ran");\n',
      );
      await Deno.writeTextFile(
        join(dir, "tools", "deno.json"),
        JSON.stringify({ imports: { "lib": "./evil.ts" } }),
      );
      const remapped = await tack(["hello"]);
      equal(/changed-code-ran/.test(remapped.stderr), false, remapped.stderr);
      equal(remapped.code, 2, remapped.stderr);
      match(remapped.stderr, /the Deno config \S+\/tools\/deno\.json, which its plugins' imports/);
    },
  ));

Deno.test("cli: a sandboxed plugin's bare import of a package in its project's node_modules is never trusted: every start asks", () =>
  withTrustRepo(
    {
      "package.json": '{"dependencies":{"lib":"*"}}',
      "node_modules/lib/package.json": '{"name":"lib","version":"1.0.0","main":"index.js"}',
      "node_modules/lib/index.js": "export const name = 'p';\n",
      "p.ts": 'import { name } from "lib";\nexport default { name, tools: [] };\n',
    },
    [{ specifier: "./p.ts", sandbox: true }],
    async ({ dir, tack }) => {
      const trusted = await tack(["trust"]);
      equal(trusted.code, 0, trusted.stderr);
      // As a `git pull` (or `npm install`) would bring it.
      await Deno.writeTextFile(
        join(dir, "node_modules", "lib", "index.js"),
        'export const name = "p";\nthrow new Error("changed-code-ran");\n',
      );
      const edited = await tack(["hello"]);
      equal(/changed-code-ran/.test(edited.stderr), false, edited.stderr);
      equal(edited.code, 2, edited.stderr);
      match(edited.stderr, /"lib" resolves only with npm/);
      match(trusted.stderr, /"lib" resolves only with npm\): trusted, it is asked about again/);
    },
  ));
