/**
 * mvdan/sh's parser (the `mvdan-sh` GopherJS build), loaded without env access: its Go
 * runtime lists `process.env` once at start (Go's `os.Environ`), which under Deno needs
 * the whole env grant. It never uses the list to parse, so it is shown an empty one.
 *
 * @module
 */

import process from "node:process";

// deno-lint-ignore no-explicit-any
type Syntax = any;

async function load(): Promise<Syntax> {
  const env = Object.getOwnPropertyDescriptor(process, "env");
  Object.defineProperty(process, "env", { value: {}, configurable: true, writable: true });
  try {
    const { default: sh } = await import("mvdan-sh");
    return sh.syntax;
  } finally {
    if (env) Object.defineProperty(process, "env", env);
  }
}

/**
 * The `syntax` namespace of mvdan/sh: `NewParser`, `NewPrinter`, `Walk`, `NodeType`.
 *
 * @example Parsing two statements
 * ```ts
 * import { shellSyntax } from "./shell_syntax.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(shellSyntax.NewParser().Parse("a; b", "").Stmts.length, 2);
 * ```
 */
export const shellSyntax: Syntax = await load();
