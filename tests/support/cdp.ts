/**
 * Headless Chromium driven over the Chrome DevTools Protocol, with Deno's own WebSocket:
 * no puppeteer, no browser download. Uses Debian's `chromium`.
 *
 * @module
 */

/** Where Chromium is, or `undefined`. */
export function findChromium(): string | undefined {
  for (const path of ["/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch { /* not here */ }
  }
  return undefined;
}

/** A page to drive. */
export interface Page {
  /** Evaluates an expression in the page and returns its (JSON) value. */
  evaluate<T = unknown>(expression: string): Promise<T>;
  /** Navigates and waits for the load to complete. */
  goto(url: string): Promise<void>;
  /** Waits until `expression` is truthy in the page (at most `limitMs`). */
  waitFor(expression: string, limitMs?: number): Promise<void>;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Launches headless Chromium with a fresh profile and returns its first page.
 *
 * @param executable The browser.
 * @returns The page.
 */
export async function launchPage(executable: string): Promise<Page> {
  const profile = await Deno.makeTempDir({ prefix: "tack_chromium_" });
  const child = new Deno.Command(executable, {
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      `--user-data-dir=${profile}`,
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      "about:blank",
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let endpoint: string | undefined;
  while (!endpoint) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`Cannot launch chromium: it exited\n${seen}`);
    seen += value;
    endpoint = /DevTools listening on (ws:\/\/[^\s]+)/.exec(seen)?.[1];
  }
  reader.releaseLock();
  child.stderr.cancel().catch(() => {});
  const http = endpoint.replace(/^ws:/, "http:").replace(/\/devtools\/.*$/, "");
  const targets: { type: string; webSocketDebuggerUrl: string }[] =
    await (await fetch(`${http}/json/list`)).json();
  const target = targets.find((t) => t.type === "page");
  if (!target) throw new Error("Cannot drive chromium: it has no page");

  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let nextId = 0;
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (typeof message.id === "number") waiting.get(message.id)?.(message);
  };
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++nextId;
      waiting.set(id, (message) => {
        waiting.delete(id);
        if (message.error) reject(new Error(`${method}: ${JSON.stringify(message.error)}`));
        else resolve(message.result as Record<string, unknown>);
      });
      socket.send(JSON.stringify({ id, method, params }));
    });

  const page: Page = {
    async evaluate<T>(expression: string) {
      const result = await send("Runtime.evaluate", {
        expression,
        returnByValue: true,
        awaitPromise: true,
      });
      const remote = result.result as { value?: unknown };
      return remote?.value as T;
    },
    async goto(url) {
      await send("Page.navigate", { url });
      await page.waitFor(
        `document.readyState === "complete" && location.href === ${JSON.stringify(url)}`,
      );
    },
    async waitFor(expression, limitMs = 20_000) {
      const until = Date.now() + limitMs;
      while (true) {
        try {
          if (await page.evaluate(`Boolean(${expression})`)) return;
        } catch { /* navigating: the context is being replaced */ }
        if (Date.now() > until) throw new Error(`Gave up waiting for ${expression}`);
        await sleep(50);
      }
    },
    async close() {
      socket.close();
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
      await child.status;
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
  return page;
}
