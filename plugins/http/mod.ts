/**
 * The `http` plugin: `fetch_url {url, method?, headers?, body?}` with a host allowlist,
 * a response size cap, a timeout, and bodies rendered for a model (HTML as text, JSON
 * pretty-printed, images as images).
 *
 * @example An agent reading a JSON API on loopback
 * ```ts
 * import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
 * import { http } from "@tack/agent/plugins/http";
 * import { equal } from "node:assert/strict";
 *
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} },
 *   () => Response.json({ ok: true }));
 * const url = `http://127.0.0.1:${server.addr.port}/`;
 * const agent = createAgent({
 *   model: scriptedModel([[toolCall("fetch_url", { url })], [text("It is ok.")]]),
 *   plugins: [http({ allowedHosts: [`127.0.0.1:${server.addr.port}`], allowPrivateAddresses: true })],
 * });
 * const added = await agent.prompt("Is it ok?");
 * const result = added[2];
 * equal(result.role === "toolResult" && result.content[0].type === "text" && result.content[0].text,
 *   'HTTP 200 OK (application/json)\n\n{\n  "ok": true\n}');
 * ```
 *
 * @module
 */

import { definePlugin, type Plugin } from "../../sdk/define_plugin.ts";
import { createFetchUrlTool } from "./fetch_url_tool.ts";
import { compileHostAllowlist } from "./host_allowlist.ts";

export { createFetchUrlTool, type FetchDetails, type FetchSettings } from "./fetch_url_tool.ts";
export { compileHostAllowlist, type HostAllowlist } from "./host_allowlist.ts";
export { type AddressCheck, addressRefusal } from "./address_refusal.ts";
export { isIpAddress, nonPublicRange } from "./ip_address.ts";
export { decodeEntities, htmlToText } from "./html_to_text.ts";
export { type CappedBody, readCappedBody } from "./read_body.ts";
export { type BodyKind, renderBody, type RenderedBody } from "./render_body.ts";

/** Options of the `http` plugin. */
export interface HttpOptions {
  /**
   * Hosts `fetch_url` may reach: `"example.com"`, `"*.example.com"`, `"host:port"`, or
   * `"*"` for any public host (the default). Loopback, private and link-local IP
   * literals and `localhost` must be listed explicitly, and `allowPrivateAddresses` set.
   */
  allowedHosts?: readonly string[];
  /** Body bytes read at most (default 1 MiB); the rest is not downloaded. */
  maxResponseBytes?: number;
  /** Whole-request timeout in seconds (default 30). */
  timeoutSeconds?: number;
  /** Redirects followed at most (default 5). */
  maxRedirects?: number;
  /** Headers sent with every request (default a `user-agent` naming Tack). */
  headers?: Record<string, string>;
  /**
   * Let `fetch_url` reach loopback, private, link-local and unspecified addresses (default
   * `false`). Without it, IP literals in such ranges, `localhost`, and host names that
   * resolve to such an address (checked with `Deno.resolveDns`, for the URL and every
   * redirect) are refused, even when listed in `allowedHosts`.
   */
  allowPrivateAddresses?: boolean;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) {
    throw new TypeError(
      `Cannot create http plugin: ${name} must be a positive number, got ${value}`,
    );
  }
  return value;
}

/**
 * Creates the `http` plugin with its `fetch_url` tool (effect `net`). It declares `net`
 * permission on the allowlisted hosts (all hosts when a pattern is `*` or a wildcard).
 *
 * @param options The allowlist, caps, timeout and default headers.
 * @returns The plugin, named `"http"`.
 * @throws {TypeError} When a host pattern is malformed or a limit is not positive.
 *
 * @example Permissions follow the allowlist
 * ```ts
 * import { http } from "@tack/agent/plugins/http";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(http({ allowedHosts: ["api.example.com"] }).permissions, { net: ["api.example.com"] });
 * deepEqual(http().permissions, { net: true });
 * ```
 */
export function http(options: HttpOptions = {}): Plugin {
  const patterns = options.allowedHosts ?? ["*"];
  const allowlist = compileHostAllowlist(patterns);
  const maxRedirects = options.maxRedirects ?? 5;
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0) {
    throw new TypeError(
      `Cannot create http plugin: maxRedirects must be a whole number >= 0, got ${maxRedirects}`,
    );
  }
  const wildcard = patterns.some((p) => p.includes("*"));
  return definePlugin({
    name: "http",
    description: `fetch_url for ${allowlist.any ? "any public host" : patterns.join(", ")}`,
    tools: [createFetchUrlTool({
      allowlist,
      maxResponseBytes: Math.floor(
        positive("maxResponseBytes", options.maxResponseBytes, 1024 * 1024),
      ),
      timeoutSeconds: positive("timeoutSeconds", options.timeoutSeconds, 30),
      maxRedirects,
      headers: options.headers ?? { "user-agent": "Tack fetch_url (+https://jsr.io/@tack/agent)" },
      allowPrivateAddresses: options.allowPrivateAddresses === true,
    })],
    permissions: { net: wildcard ? true : patterns.map((p) => p.trim().toLowerCase()) },
  });
}

export default http;
