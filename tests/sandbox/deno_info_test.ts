// `denoInfo` describes a module graph with one `deno info` and falls back to `deno cache`
// only to say what is wrong with a broken graph, as Deno says it (with where the bad
// import is). Real `deno` runs on real files in a temp folder.
import { equal, match, rejects } from "node:assert/strict";
import { denoInfo } from "../../sdk/sandbox/deno_info.ts";

async function project(files: Record<string, string>): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-deno-info-" }));
  await Deno.writeTextFile(`${dir}/deno.json`, "{}");
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
  return dir;
}

Deno.test("denoInfo: a whole graph is described, its local imports included", async () => {
  const dir = await project({
    "a.ts": 'import "./b.ts";\nexport default 1;\n',
    "b.ts": "export {};\n",
  });
  try {
    const info = await denoInfo(`file://${dir}/a.ts`, dir);
    equal(info.roots[0], `file://${dir}/a.ts`);
    equal(info.modules.some((module) => module.specifier === `file://${dir}/b.ts`), true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

for (
  const [what, source, expected] of [
    ["a missing module", 'import "./missing.ts";\n', /Module not found .*missing\.ts/],
    [
      "a bare import no map names",
      'import x from "nowhere-tack";\nexport default x;\n',
      /Import "nowhere-tack" not a dependency/,
    ],
    ["a syntax error", "export default {{;\n", /SyntaxError/],
  ] as const
) {
  Deno.test(`denoInfo: ${what} is deno cache's error, with where it is`, async () => {
    const dir = await project({ "bad.ts": source });
    try {
      await rejects(denoInfo(`file://${dir}/bad.ts`, dir), (error: Error) => {
        match(error.message, /^Cannot prepare plugin: deno cache failed: /);
        match(error.message, expected);
        match(error.message, new RegExp(`file://${dir}/bad\\.ts`));
        return true;
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
