// The stores' housekeeping on a real folder: entries past the newest `keep` go only once
// unused for long enough, the one in use never goes, and `only` limits what is looked at.
import { deepEqual } from "node:assert/strict";
import { pruneStore } from "../../sdk/sandbox/prune_store.ts";

/** A folder with one entry per name, each last used `minutesAgo` minutes ago. */
async function store(ages: Record<string, number>): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "tack-prune-" });
  for (const [name, minutesAgo] of Object.entries(ages)) {
    await Deno.mkdir(`${root}/${name}`);
    const then = new Date(Date.now() - minutesAgo * 60_000);
    await Deno.utime(`${root}/${name}`, then, then);
  }
  return root;
}

const names = async (root: string) =>
  (await Array.fromAsync(Deno.readDir(root))).map((entry) => entry.name).sort();

Deno.test("pruneStore: past the newest kept, only entries unused long enough go; the one in use stays", async () => {
  const root = await store({ fresh: 1, recent: 10, old: 120, oldest: 180, inUse: 240 });
  try {
    await pruneStore(root, { keep: 2, unusedForMs: 60 * 60_000, except: `${root}/inUse` });
    deepEqual(await names(root), ["fresh", "inUse", "recent"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("pruneStore: `only` limits what is looked at; a missing folder is no error", async () => {
  const root = await store({ ".build-a": 120, ".build-b": 1, bundle: 300 });
  try {
    await pruneStore(root, {
      keep: 0,
      unusedForMs: 60 * 60_000,
      only: (name) => name.startsWith(".build-"),
    });
    deepEqual(await names(root), [".build-b", "bundle"]);
    await pruneStore(`${root}/missing`, { keep: 0 });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
