/**
 * The npm packages only the tests use, pinned here instead of in `deno.json`'s import map:
 * a project that links Tack resolves every package of that map when it runs `deno add` or
 * `deno install` (aimock and MCP's reference server had brought ~120 packages and 80 MB
 * into such a project). `deno.lock` holds them like any other dependency.
 *
 * @module
 */

export { LLMock } from "npm:@copilotkit/aimock@1.43.0";
export * as v from "npm:valibot@1.5.0";
export { toStandardJsonSchema } from "npm:@valibot/to-json-schema@1.8.0";

/** The MCP project's reference server, as a specifier `deno run` takes. */
export const SERVER_EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";
// Keeps the server in the lock (the tests run it as a child, cached from the lock): a type-only
// export loads and runs nothing.
export type * as ServerEverything from "npm:@modelcontextprotocol/server-everything@2026.8.31";
