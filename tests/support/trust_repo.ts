/**
 * A repository for the trust tests: a temporary folder `repo` (under a `root` the test may use
 * too) holding the given files and a `tack.jsonc` listing the given plugins, its model a fake
 * OpenAI server, and `tack` runs in it with a trust store of their own.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { runTack } from "./run_tack.ts";
import { startFakeOpenAI } from "./fake_openai_server.ts";

/** What {@linkcode withTrustRepo} hands the test. */
export interface TrustRepo {
  /** The repository: `tack.jsonc` and the files. */
  dir: string;
  /** The folder above it (the trust store is in it; a module outside the repository may be). */
  root: string;
  /** The environment the runs use (`XDG_STATE_HOME`). */
  env: { XDG_STATE_HOME: string };
  /** Runs tack in the repository. */
  tack(args: string[]): ReturnType<typeof runTack>;
}

/**
 * Makes the repository, runs `fn` with it, and removes it.
 *
 * @param files The repository's files, by their path in it.
 * @param plugins What `tack.jsonc` lists under `plugins`.
 * @param fn The test body.
 */
export async function withTrustRepo(
  files: Record<string, string>,
  plugins: unknown[],
  fn: (repo: TrustRepo) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-trust-repo-" }));
  await using server = await startFakeOpenAI({
    turns: Array.from({ length: 8 }, (_, i) => ({ text: `turn ${i}` })),
  });
  try {
    const dir = join(root, "repo");
    for (const [path, text] of Object.entries(files)) {
      await Deno.mkdir(dirname(join(dir, path)), { recursive: true });
      await Deno.writeTextFile(join(dir, path), text);
    }
    await Deno.writeTextFile(
      join(dir, "tack.jsonc"),
      JSON.stringify({ baseURL: server.baseURL, plugins }),
    );
    const env = { XDG_STATE_HOME: join(root, "state") };
    await fn({ dir, root, env, tack: (args) => runTack(dir, args, { env }) });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}
