/**
 * Redirects a provider follows: within the origin it was given only, as `fetch` would.
 *
 * @module
 */

/** How many redirects within the origin one request follows. */
export const MAX_REDIRECTS = 5;

/**
 * A redirect the provider did not follow: to another origin (fetch would send the request
 * again, its API key, custom headers such as `api-key` and `x-api-key`, and the transcript
 * there), more than {@linkcode MAX_REDIRECTS} in a row, or one it could not resend. Not
 * retried: the server would point there again.
 *
 * @example
 * ```ts
 * import { RedirectRefusedError } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * const error = new RedirectRefusedError(307, "http://other:8080/v1/chat/completions");
 * equal(error.message, "a redirect to http://other:8080/v1/chat/completions was not followed");
 * ```
 */
export class RedirectRefusedError extends Error {
  /** The HTTP status (301, 302, 303, 307, 308). */
  readonly status: number;
  /** Where it pointed, resolved against the request's URL (`""` when it named nowhere). */
  readonly location: string;

  /**
   * Creates the error.
   *
   * @param status The HTTP status.
   * @param location Where the redirect pointed.
   */
  constructor(status: number, location: string) {
    super(`a redirect to ${location || "nowhere"} was not followed`);
    this.name = "RedirectRefusedError";
    this.status = status;
    this.location = location;
  }
}

/** Where a redirect points, as an absolute URL when it can be resolved. */
function locationOf(response: Response, base: string): string {
  const location = response.headers.get("location") ?? "";
  try {
    return location === "" ? "" : new URL(location, base).href;
  } catch {
    return location;
  }
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * Fetches, following a redirect only to the same origin (as `fetch` would: a 303, or a 301
 * or 302 answering a POST, goes on as a GET without a body), at most
 * {@linkcode MAX_REDIRECTS} in a row; any other redirect fails as
 * {@linkcode RedirectRefusedError}.
 *
 * @param inner The `fetch` to call.
 * @param input What to fetch.
 * @param init The request's options (its `redirect` is ignored).
 * @returns The first reply that is not a redirect.
 * @throws {RedirectRefusedError} For a redirect it does not follow.
 *
 * @example A redirect to another origin
 * ```ts
 * import { RedirectRefusedError, sameOriginFetch } from "@tack/agent/sdk/providers/openai";
 * import { rejects } from "node:assert/strict";
 *
 * const away = () =>
 *   Promise.resolve(new Response(null, { status: 307, headers: { location: "http://b/v1" } }));
 * await rejects(sameOriginFetch(away, "http://a/v1", { method: "POST" }), RedirectRefusedError);
 * ```
 */
export async function sameOriginFetch(
  inner: typeof fetch,
  input: RequestInfo | URL,
  init?: RequestInit,
): Promise<Response> {
  let url = input instanceof Request ? input.url : String(input);
  const origin = originOf(url);
  let request: RequestInit = { ...init, redirect: "manual" };
  for (let hop = 0;; hop++) {
    const response = await inner(hop === 0 ? input : url, request);
    if (response.status < 300 || response.status >= 400 || response.status === 304) {
      return response;
    }
    const location = locationOf(response, url);
    await response.body?.cancel();
    const resendable = request.body === undefined || request.body === null ||
      typeof request.body === "string";
    if (
      hop >= MAX_REDIRECTS || input instanceof Request || !resendable ||
      origin === undefined || originOf(location) !== origin
    ) {
      throw new RedirectRefusedError(response.status, location);
    }
    const method = (request.method ?? "GET").toUpperCase();
    if (response.status === 303 || (response.status <= 302 && method === "POST")) {
      request = { ...request, method: "GET", body: undefined };
    }
    url = location;
  }
}
