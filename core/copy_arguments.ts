/**
 * Copies of a call's arguments: the one the loop works on, and the frozen one hooks see.
 *
 * @module
 */

import { MAX_ARGUMENT_DEPTH } from "./argument_depth.ts";

function copyLevels(value: unknown, levels: number): unknown {
  if (typeof value !== "object" || value === null || levels === 0) return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyLevels(value[i], levels - 1);
    return out;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  // A spread copies own properties as data (a model's "__proto__" key stays a key).
  const out: Record<string, unknown> = { ...value };
  for (const key in out) {
    const item = out[key];
    if (typeof item !== "object" || item === null) continue;
    const copied = copyLevels(item, levels - 1);
    if (key === "__proto__") {
      Object.defineProperty(out, key, {
        value: copied,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else out[key] = copied;
  }
  return out;
}

/**
 * A copy of the arguments a model sent, for the loop to work on: `prepareArguments`, the
 * schema's coercion, the tool and `afterToolCall` may change it in place while the transcript
 * keeps what the model sent. Plain objects and arrays are copied (as deep as arguments may
 * nest, {@linkcode MAX_ARGUMENT_DEPTH}, and one level more for the check that refuses them);
 * anything else (a `Date` a custom model put there) is shared.
 *
 * @param args The model's arguments.
 * @returns The copy.
 *
 * @example
 * ```ts
 * import { copyArguments } from "@tack/agent";
 * import { deepEqual, notEqual } from "node:assert/strict";
 *
 * const sent = { path: "a.txt", options: { lines: [1, 2] } };
 * const copy = copyArguments(sent);
 * deepEqual(copy, sent);
 * notEqual(copy.options, sent.options);
 * ```
 */
export function copyArguments<T extends Record<string, unknown>>(args: T): T {
  return copyLevels(args, MAX_ARGUMENT_DEPTH + 2) as T;
}

/**
 * A frozen copy of the arguments for hooks to look at: every hook sees exactly what will run,
 * and one that tries to change it in place throws (and fails closed) instead of showing the
 * hooks after it arguments that will not run. Arguments that cannot be copied (a function,
 * say, from `prepareArguments`) are shown as they are.
 *
 * @param args The arguments that will run.
 * @returns A deep-frozen copy.
 *
 * @example
 * ```ts
 * import { copyForHooks } from "@tack/agent";
 * import { equal, throws } from "node:assert/strict";
 *
 * const seen = copyForHooks({ path: "a.txt" });
 * equal(Object.isFrozen(seen), true);
 * throws(() => { "use strict"; (seen as { path: string }).path = "b.txt"; });
 * ```
 */
export function copyForHooks(args: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown>;
  try {
    copy = structuredClone(args);
  } catch {
    return args;
  }
  const stack: object[] = [copy];
  while (stack.length > 0) {
    const value = Object.freeze(stack.pop()!);
    for (const item of Object.values(value)) {
      // A frozen item was walked already (the copy is fresh): a cycle ends here.
      if (typeof item === "object" && item !== null && !Object.isFrozen(item)) stack.push(item);
    }
  }
  return copy;
}
