// The stores in DENO_DIR (described graphs, remembered manifests) read only regular files:
// a FIFO or a symlink where an entry belongs is no entry, and never blocks the host.
import { deepEqual, equal } from "node:assert/strict";
import { jsonStore } from "../../sdk/sandbox/json_store.ts";

const store = jsonStore("tack_test_store", 1, (v): v is string[] => Array.isArray(v));

Deno.test("jsonStore reads a regular file, and no FIFO, symlink or folder in its place", async () => {
  const denoDir = await Deno.makeTempDir({ prefix: "tack-json-store-" });
  try {
    await store.write(denoDir, "real", ["a"]);
    deepEqual(await store.read(denoDir, "real"), ["a"]);
    const real = await store.pathOf(denoDir, "real");
    // A FIFO nobody writes: reading it would wait forever.
    const fifo = await store.pathOf(denoDir, "fifo");
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    equal(made.success, true);
    equal(await store.read(denoDir, "fifo"), undefined);
    // A symlink to a valid entry is not one either (the store never writes links).
    await Deno.symlink(real, await store.pathOf(denoDir, "link"));
    equal(await store.read(denoDir, "link"), undefined);
    await Deno.mkdir(await store.pathOf(denoDir, "folder"));
    equal(await store.read(denoDir, "folder"), undefined);
    // Garbage and the wrong shape are no entry.
    await Deno.writeTextFile(await store.pathOf(denoDir, "garbage"), "{not json");
    equal(await store.read(denoDir, "garbage"), undefined);
    await Deno.writeTextFile(await store.pathOf(denoDir, "shape"), '{"a":1}');
    equal(await store.read(denoDir, "shape"), undefined);
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});
