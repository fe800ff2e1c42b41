// Trust covers the local modules a listed plugin file imports statically, not only the file:
// an edit to ./tools/lib.ts, imported by a listed ./tools/jira.ts, used to load without asking
// (as a `git pull` would bring it), with all the CLI's permissions. Real CLI processes in
// temporary folders; each imported module writes a marker when it is imported.
import { equal, match } from "node:assert/strict";
import { join } from "node:path";
import { type TrustRepo, withTrustRepo } from "../support/trust_repo.ts";

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

interface Repo extends TrustRepo {
  /** A module that writes `marker` when imported. */
  module(marker: string, imports?: string): string;
}

/** A repository whose tack.jsonc lists ./tools/jira.ts, which imports ./tools/lib.ts. */
function withRepo(fn: (repo: Repo) => Promise<void>): Promise<void> {
  let dir = "";
  const module = (marker: string, imports = "") =>
    `${imports}Deno.writeTextFileSync(${JSON.stringify(join(dir, marker))}, "imported");\n`;
  return withTrustRepo(
    {
      "tools/jira.ts": 'import "./lib.ts";\nexport default { name: "jira", tools: [] };\n',
    },
    ["./tools/jira.ts"],
    async (repo) => {
      dir = repo.dir;
      await Deno.writeTextFile(join(dir, "tools", "lib.ts"), module("lib-ran"));
      await fn({ ...repo, module });
    },
  );
}

Deno.test("cli: an unchanged import graph does not ask; an edit to a module a listed plugin imports asks again, naming it", () =>
  withRepo(async ({ dir, tack, module }) => {
    equal((await tack(["trust"])).code, 0);
    const run = await tack(["hello"]);
    equal(run.code, 0, run.stderr);
    equal(await exists(join(dir, "lib-ran")), true);
    equal((await tack(["hello"])).code, 0, "an unchanged graph asked again");

    await Deno.remove(join(dir, "lib-ran"));
    await Deno.writeTextFile(join(dir, "tools", "lib.ts"), module("lib-ran") + "// pulled\n");
    const edited = await tack(["hello"]);
    equal(edited.code, 2, edited.stderr);
    equal(await exists(join(dir, "lib-ran")), false, "the edited module was imported");
    match(
      edited.stderr,
      new RegExp(
        `changed since you trusted it \\(the module ${
          join(dir, "tools", "lib.ts")
        }, which a plugin imports, changed\\)`,
      ),
    );
  }));

Deno.test("cli: a new import in an imported module asks again; once trusted, the new module is covered too", () =>
  withRepo(async ({ dir, tack, module }) => {
    equal((await tack(["trust"])).code, 0);
    await Deno.writeTextFile(join(dir, "tools", "extra.ts"), module("extra-ran"));
    await Deno.writeTextFile(
      join(dir, "tools", "lib.ts"),
      module("lib-ran", 'import "./extra.ts";\n'),
    );
    const added = await tack(["hello"]);
    equal(added.code, 2, added.stderr);
    match(added.stderr, /the module \S+\/tools\/lib\.ts, which a plugin imports, changed/);
    equal(await exists(join(dir, "extra-ran")), false);

    equal((await tack(["trust"])).code, 0);
    equal((await tack(["hello"])).code, 0);
    equal(await exists(join(dir, "extra-ran")), true);
    await Deno.remove(join(dir, "extra-ran"));
    await Deno.writeTextFile(join(dir, "tools", "extra.ts"), "// pulled\n", { append: true });
    const edited = await tack(["hello"]);
    equal(edited.code, 2, edited.stderr);
    match(edited.stderr, /the module \S+\/tools\/extra\.ts, which a plugin imports, changed/);
    equal(await exists(join(dir, "extra-ran")), false);
  }));

Deno.test("cli: a module outside the workspace folder that a listed plugin imports is covered too", () =>
  withRepo(async ({ dir, root, tack, module }) => {
    await Deno.writeTextFile(join(root, "shared.ts"), module("shared-ran"));
    await Deno.writeTextFile(
      join(dir, "tools", "lib.ts"),
      module("lib-ran", 'import "../../shared.ts";\n'),
    );
    equal((await tack(["trust"])).code, 0);
    equal((await tack(["hello"])).code, 0);
    await Deno.remove(join(dir, "shared-ran"));
    await Deno.writeTextFile(join(root, "shared.ts"), "// pulled\n", { append: true });
    const edited = await tack(["hello"]);
    equal(edited.code, 2, edited.stderr);
    match(edited.stderr, new RegExp(`the module ${join(root, "shared.ts")}, which a plugin`));
    equal(await exists(join(dir, "shared-ran")), false);
  }));

Deno.test("cli: an imported module that is a link to /dev/stdin is never trusted: every start asks", () =>
  withRepo(async ({ dir, tack }) => {
    await Deno.remove(join(dir, "tools", "lib.ts"));
    // Imported, /dev/stdin is whatever is piped into tack.
    await Deno.symlink("/dev/stdin", join(dir, "tools", "lib.ts"));
    equal((await tack(["trust"])).code, 0);
    for (let start = 0; start < 2; start++) {
      const run = await tack(["hello"]);
      equal(run.code, 2, run.stderr);
      match(run.stderr, /the module \S+\/tools\/lib\.ts, which a plugin imports, is not a regular/);
    }
  }));

Deno.test("cli: an imported module over 64 MiB is never trusted: every start asks", () =>
  withRepo(async ({ dir, tack }) => {
    // Sparse: 64 MiB and one byte of nothing the disk has to hold.
    const file = await Deno.open(join(dir, "tools", "lib.ts"), { write: true });
    await file.truncate(64 * 1024 * 1024 + 1);
    file.close();
    equal((await tack(["trust"])).code, 0);
    const run = await tack(["hello"]);
    equal(run.code, 2, run.stderr);
    match(
      run.stderr,
      /the module \S+\/tools\/lib\.ts, which a plugin imports, is over 67108864 by/,
    );
  }));

Deno.test("cli: a plugin importing more local modules than the bound is never trusted: every start asks", () =>
  withRepo(async ({ dir, tack }) => {
    const count = 1001;
    for (let i = 0; i < count; i++) {
      await Deno.writeTextFile(join(dir, "tools", `m${i}.ts`), `export const m${i} = ${i};\n`);
    }
    await Deno.writeTextFile(
      join(dir, "tools", "lib.ts"),
      Array.from({ length: count }, (_, i) => `import "./m${i}.ts";\n`).join(""),
    );
    const trusted = await tack(["trust"]);
    equal(trusted.code, 0);
    match(
      trusted.stderr,
      /more than 1000 local modules, not hashed: trusted, it is asked about again/,
    );
    const run = await tack(["hello"]);
    equal(run.code, 2, run.stderr);
    match(run.stderr, /its plugins import more than 1000 local modules, not hashed/);
  }));
