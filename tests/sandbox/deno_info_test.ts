// `denoInfo` describes a module graph with one `deno info` and falls back to `deno cache`
// only to say what is wrong with a broken graph, as Deno says it (with where the bad
// import is). Real `deno` runs on real files in a temp folder.
import { equal, match, rejects } from "node:assert/strict";
import { denoInfo } from "../../sdk/sandbox/deno_info.ts";
import { PreparationTimeoutError } from "../../sdk/sandbox/run_deno.ts";

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

// `deno info` exits with 0 and reports nothing when an npm package's tarball cannot be
// installed (here its checksum does not match what the registry says); `deno cache` says
// so. A host on an empty DENO_DIR against a fake registry on loopback.
Deno.test("denoInfo: an npm package that cannot be installed is deno cache's error", async () => {
  const tarball = "not a tarball";
  let base = "";
  await using registry = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    if (new URL(req.url).pathname !== "/tack-fake") return new Response(tarball);
    return Response.json({
      name: "tack-fake",
      "dist-tags": { latest: "1.0.0" },
      versions: {
        "1.0.0": {
          name: "tack-fake",
          version: "1.0.0",
          dist: {
            tarball: `${base}/tack-fake/-/tack-fake-1.0.0.tgz`,
            integrity: `sha512-${btoa("x".repeat(64))}`,
          },
        },
      },
    });
  });
  base = `http://127.0.0.1:${registry.addr.port}`;
  const dir = await project({ "a.ts": 'import "npm:tack-fake@1.0.0";\n' });
  try {
    await Deno.writeTextFile(
      `${dir}/host.ts`,
      `import { denoInfo } from ${
        JSON.stringify(import.meta.resolve("../../sdk/sandbox/deno_info.ts"))
      };
try {
  await denoInfo(${JSON.stringify(`file://${dir}/a.ts`)}, ${JSON.stringify(dir)});
  console.log("described");
} catch (error) {
  console.log(error.message);
}
`,
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-config", "--no-lock", `${dir}/host.ts`],
      env: {
        DENO_DIR: `${dir}/deno_dir`,
        NPM_CONFIG_REGISTRY: `${base}/`,
        NO_COLOR: "1",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const printed = new TextDecoder().decode(output.stdout);
    match(printed, /^Cannot prepare plugin: deno cache failed: /);
    match(printed, /Tarball checksum did not match .* for tack-fake@1\.0\.0/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("denoInfo: when deno info itself fails (a frozen lock that is out of date), the error is deno cache's", async () => {
  const dir = await project({
    "p.ts": 'import { Type } from "npm:typebox@1.4.3";\nexport default Type.String();\n',
    "deno.lock": '{ "version": "5" }\n',
  });
  try {
    await Deno.writeTextFile(
      `${dir}/deno.json`,
      JSON.stringify({ lock: { path: "./deno.lock", frozen: true } }),
    );
    await rejects(denoInfo(`file://${dir}/p.ts`, dir), (error: Error) => {
      match(error.message, /^Cannot prepare plugin: deno cache failed: /);
      match(error.message, /The lockfile is out of date/);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("denoInfo: a deno info that runs past its time is that timeout, with no deno cache after it", async () => {
  // Before, the timeout was told by its message's words. Were deno cache run after it, the
  // error would be cache's own timeout ("deno cache did not finish …").
  const dir = await project({ "a.ts": "export {};\n" });
  try {
    await rejects(denoInfo(`file://${dir}/a.ts`, dir, undefined, 1), (error: Error) => {
      equal(error instanceof PreparationTimeoutError, true);
      equal(
        error.message,
        "Cannot prepare plugin: deno info did not finish within 1 ms (startTimeoutMs); it was stopped",
      );
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
