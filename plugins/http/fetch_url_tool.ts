/**
 * The `fetch_url` tool: one HTTP request, allowlisted, size-capped and timed out, its
 * body rendered for a model.
 *
 * @module
 */

import { Type } from "typebox";
import type { ImageContent, TextContent } from "../../core/messages.ts";
import { type AgentTool, ToolError } from "../../core/tool.ts";
import { defineTool } from "../../sdk/define_tool.ts";
import { netHostOf, requireHostMay } from "../../sdk/sandbox/host_may.ts";
import { checkAddress } from "./address_refusal.ts";
import { pinnedUrl } from "./pinned_url.ts";
import {
  noProxyMayName,
  openPinnedTunnel,
  type PinnedTunnel,
  tunnelAddresses,
} from "./pinned_tunnel.ts";
import type { HostAllowlist } from "./host_allowlist.ts";
import { readCappedBody } from "./read_body.ts";
import { type BodyKind, renderBody } from "./render_body.ts";

/** The resolved settings of one `http` plugin. */
export interface FetchSettings {
  /** Which hosts may be reached (checked for the URL and every redirect). */
  allowlist: HostAllowlist;
  /** Bytes of body read at most. */
  maxResponseBytes: number;
  /** Whole-request timeout (connect, redirects and body), in seconds. */
  timeoutSeconds: number;
  /** Redirects followed at most. */
  maxRedirects: number;
  /** Headers sent with every request (the call's headers win). */
  headers: Record<string, string>;
  /**
   * Reach loopback, private, link-local and unspecified addresses (default `false`: host
   * names are resolved and such addresses refused, for the URL and every redirect).
   */
  allowPrivateAddresses?: boolean;
}

/** What `fetch_url` puts in `details` (on success and on HTTP errors). */
export interface FetchDetails {
  /** The URL asked for. */
  url: string;
  /** The URL that answered, after redirects. */
  finalUrl: string;
  /** The HTTP status of the final response. */
  status: number;
  /** Its `content-type` header, or `""`. */
  contentType: string;
  /** Body bytes read. */
  bytes: number;
  /** Whether the body was cut at the cap. */
  truncated: boolean;
  /** How the body was rendered. */
  kind: BodyKind;
  /** Redirects followed. */
  redirects: number;
}

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`Invalid URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`Only http and https URLs can be fetched, not ${url.protocol}`);
  }
  return url;
}

/**
 * Creates the `fetch_url` tool. Every URL, and every redirect target, must pass the
 * allowlist; redirects are followed by hand (at most `maxRedirects`; credentials are
 * dropped when the origin changes); the body is read up to `maxResponseBytes`; the
 * whole request is bounded by `timeoutSeconds`. A status of 400 or more is an error
 * result that still shows the body.
 *
 * @param settings The allowlist, caps, timeout and default headers.
 * @returns The tool (effect `net`).
 *
 * @example Refusing a host that is not allowed
 * ```ts
 * import { compileHostAllowlist, createFetchUrlTool } from "@tack/agent/plugins/http";
 * import { rejects } from "node:assert/strict";
 *
 * const fetchUrl = createFetchUrlTool({
 *   allowlist: compileHostAllowlist(["example.com"]), maxResponseBytes: 1000,
 *   timeoutSeconds: 5, maxRedirects: 5, headers: {},
 * });
 * await rejects(
 *   Promise.resolve(fetchUrl.execute({ url: "https://evil.test/" }, {
 *     toolCallId: "1", signal: new AbortController().signal,
 *   })),
 *   { message: "Host evil.test is not in the allowlist (allowed: example.com)" },
 * );
 * ```
 */
export function createFetchUrlTool(settings: FetchSettings): AgentTool {
  const allowed = settings.allowlist.any
    ? "any public host"
    : settings.allowlist.patterns.join(", ");
  return defineTool({
    name: "fetch_url",
    label: "Fetch URL",
    description: `Make an HTTP request and read the response (hosts allowed: ${allowed}). ` +
      "HTML comes back as text, JSON pretty-printed, images as images; bodies over " +
      `${settings.maxResponseBytes} bytes are cut. Times out after ${settings.timeoutSeconds} s.`,
    parameters: Type.Object({
      url: Type.String({ description: "Absolute http(s) URL" }),
      method: Type.Optional(
        Type.String({ description: `One of ${METHODS.join(", ")} (default GET)` }),
      ),
      headers: Type.Optional(
        Type.Record(Type.String(), Type.String(), { description: "Request headers" }),
      ),
      body: Type.Optional(Type.String({ description: "Request body (not for GET or HEAD)" })),
    }),
    effects: ["net"],
    timeoutMs: (settings.timeoutSeconds + 5) * 1000,
    async execute(params, { signal }) {
      const method = (params.method ?? "GET").toUpperCase();
      if (!(METHODS as readonly string[]).includes(method)) {
        throw new Error(`Unsupported method ${params.method}; use one of ${METHODS.join(", ")}`);
      }
      if (params.body !== undefined && (method === "GET" || method === "HEAD")) {
        throw new Error(`A ${method} request cannot have a body`);
      }
      let url = parseUrl(params.url);
      const refused = settings.allowlist.refusal(url);
      if (refused) throw new Error(refused);
      // The call's time starts here: its lookups (the URL's, each redirect's) count too.
      const controller = new AbortController();
      const deadline = Date.now() + settings.timeoutSeconds * 1000;
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new DOMException("fetch_url timed out", "TimeoutError"));
      }, settings.timeoutSeconds * 1000);
      const forward = () => controller.abort(signal.reason);
      signal.addEventListener("abort", forward, { once: true });
      if (signal.aborted) forward();
      let client: Deno.HttpClient | undefined;
      let tunnel: PinnedTunnel | undefined;
      let pinKey = "";
      const fail = (error: unknown): never => {
        // The tunnel's own words: fetch only sees a refused CONNECT or a closed connection.
        const tunnelFailure = tunnel?.failure(pinKey);
        if (timedOut) {
          throw new Error(
            `Request to ${params.url} timed out after ${settings.timeoutSeconds} seconds` +
              (tunnelFailure ? ` (${tunnelFailure})` : ""),
          );
        }
        if (signal.aborted) throw error;
        // A Deno permission denial goes up as it is: the loop reports it as one.
        const cause = (error as { cause?: unknown })?.cause;
        if ((error as Error)?.name === "NotCapable" || (cause as Error)?.name === "NotCapable") {
          throw error;
        }
        if (tunnelFailure) throw new Error(`Cannot fetch ${url.href}: ${tunnelFailure}`);
        // Kept as the cause: `fetch failed` says why in its own (a refused connection, a
        // certificate not for the name), which the loop shows after the message.
        throw new Error(`Cannot fetch ${url.href}: ${(error as Error).message ?? error}`, {
          cause,
        });
      };
      const leadsTo = (target: URL) =>
        checkAddress(target, {
          allowPrivate: settings.allowPrivateAddresses === true,
          listedExactly: settings.allowlist.listsExactly(target),
          signal: controller.signal,
        }).catch(fail);
      try {
        // The addresses each hop was checked with, connected to instead of the name: each in
        // turn, through a tunnel of the call's own (pinned_tunnel.ts), or, for http where the
        // tunnel does not apply, the first (pinnedUrl).
        let checked = await leadsTo(url);
        if (checked.refusal) throw new Error(checked.refusal);
        const headers = new Headers({ ...settings.headers, ...params.headers });
        headers.delete("host"); // the URL's, always
        let currentMethod: string = method;
        let body: string | undefined = params.body;
        let redirects = 0;
        let response: Response;
        while (true) {
          // Asked first: a host on a terminal is not prompted, the model reads the denial.
          requireHostMay({ name: "net", host: netHostOf(url) });
          const tunnelTo = tunnelAddresses(url, checked.addresses);
          // For http, sent for the first address (the tunnel tries the others): fetch going
          // around the tunnel (NO_PROXY) still connects to an address checked.
          const pinned = pinnedUrl(url, tunnelTo[0] ?? checked.addresses?.[0]);
          const sent = new Headers(headers);
          if (pinned) sent.set("host", url.host);
          let through: Deno.HttpClient | undefined;
          if (tunnelTo.length > 0) {
            // NO_PROXY naming the host sends fetch around any proxy: to a second lookup's address.
            if (!pinned && noProxyMayName(url.hostname)) {
              throw new Error(
                `Cannot fetch ${url.href}: NO_PROXY names its host, so fetch would connect to it ` +
                  "by name, not to an address checked; refused",
              );
            }
            tunnel ??= openPinnedTunnel();
            pinKey = netHostOf(pinned ?? url);
            tunnel.pin(pinKey, tunnelTo, deadline);
            through = tunnel.client;
          } else if (pinned) {
            client ??= Deno.createHttpClient({ allowHost: true });
            through = client;
          }
          response = await fetch(pinned ?? url, {
            method: currentMethod,
            headers: sent,
            body,
            redirect: "manual",
            signal: controller.signal,
            ...(through && { client: through }),
          }).catch(fail);
          // The same, from a NO_PROXY this process may not read: the answer is refused.
          if (!pinned && through && through === tunnel?.client && !tunnel.carried(pinKey)) {
            await response.body?.cancel();
            throw new Error(
              `Cannot fetch ${url.href}: NO_PROXY names its host, so fetch connected to it by ` +
                "name, not to an address checked; refused",
            );
          }
          const location = response.headers.get("location");
          if (!REDIRECTS.has(response.status) || location === null) break;
          await response.body?.cancel();
          if (++redirects > settings.maxRedirects) {
            throw new Error(
              `Too many redirects fetching ${params.url} (more than ${settings.maxRedirects})`,
            );
          }
          let next: URL;
          try {
            next = parseUrl(new URL(location, url).href);
          } catch (error) {
            throw new Error(`Redirect from ${url.href} refused: ${(error as Error).message}`);
          }
          const listed = settings.allowlist.refusal(next);
          checked = listed ? { refusal: listed } : await leadsTo(next);
          const nextRefused = checked.refusal;
          if (nextRefused) {
            throw new Error(`Redirect from ${url.href} to ${next.href} refused: ${nextRefused}`);
          }
          if (next.origin !== url.origin) {
            for (const name of CREDENTIAL_HEADERS) headers.delete(name);
          }
          if (
            response.status === 303 ||
            ((response.status === 301 || response.status === 302) && currentMethod === "POST")
          ) {
            currentMethod = currentMethod === "HEAD" ? "HEAD" : "GET";
            body = undefined;
            headers.delete("content-type");
          }
          url = next;
        }
        const { bytes, truncated } = await readCappedBody(response, settings.maxResponseBytes)
          .catch(fail);
        const contentType = response.headers.get("content-type") ?? "";
        const rendered = currentMethod === "HEAD"
          ? {
            kind: "empty" as const,
            text: [...response.headers].map(([k, v]) => `${k}: ${v}`).join("\n"),
          }
          : renderBody(bytes, contentType, truncated);
        let text = `HTTP ${response.status} ${response.statusText}`.trimEnd() +
          (contentType ? ` (${contentType})` : "") +
          (redirects > 0 ? `\nURL: ${url.href}` : "") + `\n\n${rendered.text}`;
        if (truncated) {
          const length = Number(response.headers.get("content-length"));
          const of = length > bytes.length ? ` of ${length}` : "";
          text += `\n\n[Response cut at ${bytes.length}${of} bytes; the rest was not downloaded.]`;
        }
        const details: FetchDetails = {
          url: params.url,
          finalUrl: url.href,
          status: response.status,
          contentType,
          bytes: bytes.length,
          truncated,
          kind: rendered.kind,
          redirects,
        };
        const content: (TextContent | ImageContent)[] = [{ type: "text", text }];
        if ("image" in rendered && rendered.image) content.push(rendered.image);
        if (response.status >= 400) throw new ToolError(text, { details });
        return { content, details };
      } finally {
        client?.close();
        tunnel?.close();
        clearTimeout(timer);
        signal.removeEventListener("abort", forward);
      }
    },
  }) as AgentTool;
}
