/**
 * The source of a bash command as mvdan/sh sees it: node positions are byte offsets, so
 * texts are cut from the UTF-8 bytes.
 *
 * @module
 */

/** A node of mvdan/sh's syntax tree (its GopherJS build has no types). */
// deno-lint-ignore no-explicit-any
export type Node = any;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Cuts node texts out of a command's source.
 *
 * @example
 * ```ts
 * import { Reader } from "./shell_reader.ts";
 * import { equal } from "node:assert/strict";
 *
 * const node = { Pos: () => ({ Offset: () => 5 }), End: () => ({ Offset: () => 7 }) };
 * equal(new Reader("echo é!").text(node), "é");
 * ```
 */
export class Reader {
  /** @param source The command. */
  #bytes: Uint8Array;
  constructor(source: string) {
    this.#bytes = encoder.encode(source);
  }
  /** The byte before a node, as text (`""` at the start). */
  before(node: Node): string {
    const at = node.Pos().Offset();
    return at === 0 ? "" : decoder.decode(this.#bytes.subarray(at - 1, at));
  }
  /** The source text of a node (mvdan/sh positions are byte offsets). */
  text(node: Node): string {
    return decoder.decode(this.#bytes.subarray(node.Pos().Offset(), node.End().Offset()));
  }
}
