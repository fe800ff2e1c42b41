/**
 * Keeping an object layout alive between runs.
 *
 * V8 gives the objects of a class a layout (a hidden class) and optimizes code for it. At a
 * full garbage collection that finds no object of a layout alive, it forgets the layout and
 * throws away every function optimized for it ("embedded weak objects cleared" in
 * `--trace-deopt`); the next run then runs unoptimized until V8 optimizes again. An agent, its
 * streams, watches and call contexts are all gone once a run ends, so an agent that runs now
 * and then (a server's request, a CLI's prompt) paid that warm-up after every full GC: about a
 * quarter of a 200-turn run (docs/bench.md). One instance kept for the process's life keeps the
 * layout.
 *
 * Closures have the same weakness: V8 keeps the code it optimized for a function made inside
 * another only while some function made at that place is alive, and a full GC that finds
 * none throws it away. So the hot path keeps its per-run and per-call work in module
 * functions and in methods of kept classes (the loop's `Run`, a batch's `Lanes`, a
 * `RunningCall`), with one-line closures around them where an API wants a function.
 *
 * @module
 */

const kept: unknown[] = [];

/**
 * Keeps `instance` alive for the life of the process, so its layout, and the code V8
 * optimized for it, outlive the runs that make objects like it. Call it once per class, from
 * a `static` block, with an instance shaped as the ones a run makes.
 *
 * @param instance An instance laid out as the class's hot ones.
 * @returns `instance`.
 *
 * @example Keeping one instance of a per-run class
 * ```ts
 * import { keepLayout } from "./keep_layout.ts";
 * import { equal } from "node:assert/strict";
 *
 * class Turn {
 *   static {
 *     keepLayout(new Turn(0));
 *   }
 *   readonly index: number;
 *   constructor(index: number) {
 *     this.index = index;
 *   }
 * }
 * equal(new Turn(1).index, 1);
 * ```
 */
export function keepLayout<T>(instance: T): T {
  kept.push(instance);
  return instance;
}
