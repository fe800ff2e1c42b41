/**
 * The host allowlist of `fetch_url`: `example.com`, `*.example.com`, `localhost:8080`,
 * or `*` for any host.
 *
 * @module
 */

/** A compiled allowlist. */
export interface HostAllowlist {
  /** Whether the URL's host (and port) is allowed. */
  allows(url: URL): boolean;
  /** Why the URL's host is not allowed, or `undefined` when it is. */
  refusal(url: URL): string | undefined;
  /** Whether a pattern names the URL's host exactly (not through `*` or `*.domain`). */
  listsExactly(url: URL): boolean;
  /** The patterns, for messages. */
  readonly patterns: readonly string[];
  /** Whether every host is allowed (`*`). */
  readonly any: boolean;
}

interface Rule {
  host: string;
  wildcard: boolean;
  port?: string;
}

function defaultPort(url: URL): string {
  return url.port || (url.protocol === "https:" ? "443" : "80");
}

/**
 * Whether a host is loopback, private, link-local or unspecified, written as a name
 * (`localhost`) or an IP literal. Names that merely resolve to such addresses are not
 * detected (no DNS lookup is made).
 */
function isLocalHost(written: string): boolean {
  const host = written.replace(/\.+$/, ""); // a trailing dot names the same host
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
  }
  if (host.startsWith("[")) {
    const v6 = host.slice(1, -1);
    return v6 === "::1" || v6 === "::" || /^f[cd]/.test(v6) || /^fe[89ab]/.test(v6) ||
      v6.startsWith("::ffff:");
  }
  return false;
}

function parse(pattern: string): Rule {
  const trimmed = pattern.trim().toLowerCase();
  const match = /^(\*\.)?(\[[0-9a-f:.]+\]|[^:/\s]+)(?::(\d{1,5}))?$/.exec(trimmed);
  if (!match) {
    throw new TypeError(
      `Cannot create http plugin: ${JSON.stringify(pattern)} is not a host pattern ` +
        '(use "example.com", "*.example.com", "host:port" or "*")',
    );
  }
  return { wildcard: match[1] !== undefined, host: match[2], port: match[3] };
}

/**
 * Compiles host patterns. `example.com` allows that host on any port, `example.com:8080`
 * only that port, `*.example.com` every subdomain (not `example.com` itself), `*` any
 * public host: loopback, private and link-local addresses written as IP literals, and
 * `localhost`, must be listed explicitly. Hosts compare case-insensitively; IPv6 hosts
 * are written in brackets.
 *
 * @param patterns The allowed hosts.
 * @returns The allowlist.
 * @throws {TypeError} When a pattern is not a host pattern.
 *
 * @example Allowing one API and its subdomains
 * ```ts
 * import { compileHostAllowlist } from "@tack/agent/plugins/http";
 * import { equal } from "node:assert/strict";
 *
 * const list = compileHostAllowlist(["api.example.com", "*.docs.example.com"]);
 * equal(list.allows(new URL("https://api.example.com/v1")), true);
 * equal(list.allows(new URL("https://en.docs.example.com/")), true);
 * equal(list.allows(new URL("https://example.com/")), false);
 * equal(compileHostAllowlist(["*"]).allows(new URL("http://127.0.0.1:8080/")), false);
 * ```
 */
export function compileHostAllowlist(patterns: readonly string[]): HostAllowlist {
  const any = patterns.some((p) => p.trim() === "*");
  const rules = patterns.filter((p) => p.trim() !== "*").map(parse);
  const listed = (url: URL) => {
    const host = url.hostname.toLowerCase();
    const port = defaultPort(url);
    return rules.some((rule) => {
      if (rule.port !== undefined && rule.port !== port) return false;
      return rule.wildcard ? host.endsWith(`.${rule.host}`) : host === rule.host;
    });
  };
  const refusal = (url: URL): string | undefined => {
    if (listed(url)) return undefined;
    const host = url.hostname.toLowerCase();
    if (any) {
      if (!isLocalHost(host)) return undefined;
      return `Host ${url.host} is a local or private address, which "*" does not cover; ` +
        "list it in allowedHosts to allow it";
    }
    return `Host ${url.host} is not in the allowlist (allowed: ${patterns.join(", ") || "none"})`;
  };
  const listsExactly = (url: URL) => {
    const host = url.hostname.toLowerCase();
    const port = defaultPort(url);
    return rules.some((rule) =>
      !rule.wildcard && rule.host === host && (rule.port === undefined || rule.port === port)
    );
  };
  return { patterns, any, refusal, listsExactly, allows: (url) => refusal(url) === undefined };
}
