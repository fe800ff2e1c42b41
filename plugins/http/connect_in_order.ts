/**
 * How `fetch_url`'s tunnel connects to a name's checked addresses: one after another, each
 * attempt bounded, so an address that drops packets does not keep the next from being tried.
 *
 * @module
 */

/**
 * The least time one attempt gets while it is not the last (as Go's `net.Dialer`): Linux
 * sends a lost SYN again after 1 s, so an address that works gets that second SYN's answer.
 */
export const MIN_ATTEMPT_MS = 2000;

/**
 * How long the attempt on the address at `index` (of `count`) may take when `remainingMs`
 * of the call are left: an even share of what is left among the addresses left, at least
 * {@linkcode MIN_ATTEMPT_MS}, never more than what is left; the last address gets all of it.
 * This is Go's `net.Dialer` rule (curl gives each address half of what is left but the last);
 * browsers race a second address after ~250 ms instead (RFC 8305), which needs two
 * connections open at once: here one attempt runs at a time.
 *
 * @param remainingMs What is left of the call's time.
 * @param index The attempt's place, from 0.
 * @param count How many addresses there are.
 * @returns The attempt's bound in milliseconds.
 *
 * @example Two addresses and 30 s: 15 s for the first, what is left for the second
 * ```ts
 * import { attemptTimeoutMs } from "./connect_in_order.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(attemptTimeoutMs(30_000, 0, 2), 15_000);
 * equal(attemptTimeoutMs(3_000, 0, 3), 2_000);
 * equal(attemptTimeoutMs(1_500, 1, 2), 1_500);
 * ```
 */
export function attemptTimeoutMs(remainingMs: number, index: number, count: number): number {
  const left = Math.max(remainingMs, 0);
  if (index >= count - 1) return left;
  return Math.min(left, Math.max(MIN_ATTEMPT_MS, left / (count - index)));
}

/** What {@linkcode connectInOrder} ended with. */
export type ConnectOutcome =
  | { kind: "connected"; conn: Deno.TcpConn; address: string }
  | { kind: "failed"; failure: string };

/**
 * Connects to `addresses` on `port` in order until one accepts, each attempt but the last
 * bounded by {@linkcode attemptTimeoutMs} of what is left before `deadline`. The last has
 * all that is left, and is ended by `signal` (the call's timeout closes the tunnel), so a
 * call that runs out of time reports its timeout, not an attempt's, whichever timer runs
 * first. Nothing is written: the caller sends only on the connection returned, so a request
 * goes to one address at most.
 *
 * @param addresses The checked addresses, in order.
 * @param port The port to connect to.
 * @param options `deadline` (epoch milliseconds; none: no bound but `signal`), `signal`,
 *   which stops every attempt, and `onAttempt`, told before each attempt which addresses
 *   failed so far (as `address: why`) and which one it tries.
 * @returns The connection, or why each address failed (`cannot connect to A: why; B: why`).
 *
 * @example An address nothing listens on is named with its error
 * ```ts
 * import { connectInOrder } from "./connect_in_order.ts";
 * import { match } from "node:assert/strict";
 *
 * const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
 * const port = listener.addr.port;
 * listener.close();
 * const outcome = await connectInOrder(["127.0.0.1"], port, { deadline: Date.now() + 5000 });
 * match(outcome.kind === "failed" ? outcome.failure : "", /^cannot connect to 127\.0\.0\.1: /);
 * ```
 */
export async function connectInOrder(
  addresses: readonly string[],
  port: number,
  options: {
    deadline?: number;
    signal?: AbortSignal;
    onAttempt?: (failed: readonly string[], trying: string) => void;
  } = {},
): Promise<ConnectOutcome> {
  const errors: string[] = [];
  for (const [index, address] of addresses.entries()) {
    options.signal?.throwIfAborted();
    options.onAttempt?.(errors, address);
    const bound = options.deadline === undefined || index === addresses.length - 1
      ? undefined
      : attemptTimeoutMs(options.deadline - Date.now(), index, addresses.length);
    const timeout = bound === undefined ? undefined : AbortSignal.timeout(bound);
    const signals = [options.signal, timeout].filter((s): s is AbortSignal => s !== undefined);
    try {
      const conn = await Deno.connect({
        hostname: address,
        port,
        ...(signals.length > 0 && { signal: AbortSignal.any(signals) }),
      });
      return { kind: "connected", conn, address };
    } catch (error) {
      options.signal?.throwIfAborted();
      errors.push(
        timeout?.aborted
          ? `${address}: no answer within ${formatSeconds(bound!)}`
          : `${address}: ${(error as Error).message}`,
      );
    }
  }
  return { kind: "failed", failure: `cannot connect to ${errors.join("; ")}` };
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms)} ms`;
}
