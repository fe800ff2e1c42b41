/**
 * A headless Chromium (Debian's `chromium` package) driven over the Chrome DevTools
 * Protocol on its loopback WebSocket: no browser download, no npm driver.
 */

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** The browser's executable, or `undefined` when none is installed. */
export function findChromium(): string | undefined {
  const fromEnv = Deno.env.get("CHROMIUM_PATH");
  for (const path of fromEnv ? [fromEnv] : CANDIDATES) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Whether a missing browser must fail the tests (CI sets `TACK_REQUIRE_BROWSER`). */
export const REQUIRE_BROWSER: boolean = Deno.env.get("TACK_REQUIRE_BROWSER") !== undefined;

/**
 * The browser for a test file, or `undefined` with one loud line saying what is skipped.
 * With `TACK_REQUIRE_BROWSER` set a missing browser is an error instead.
 *
 * @param what The tests that need it, for the skip line.
 * @returns The executable, or `undefined` when the tests are to be skipped.
 */
export function browserFor(what: string): string | undefined {
  const found = findChromium();
  if (found) return found;
  if (REQUIRE_BROWSER) {
    throw new Error("TACK_REQUIRE_BROWSER is set but no chromium is installed");
  }
  console.warn(
    `\n!!! SKIPPING ${what}: no chromium found (apt-get install -y chromium, or set ` +
      "CHROMIUM_PATH). Set TACK_REQUIRE_BROWSER=1 to fail instead.\n",
  );
  return undefined;
}

interface Pending {
  resolve: (value: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/** One page of a running browser. */
export interface Page {
  /** Sends a CDP command to the page. */
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Evaluates an expression in the page and returns its value (JSON-able). */
  evaluate<T>(expression: string): Promise<T>;
  /** Opens a URL and waits for its load event. */
  goto(url: string): Promise<void>;
  /** Clicks at a point, as a mouse would. */
  click(x: number, y: number): Promise<void>;
  /** A PNG of the viewport. */
  screenshot(): Promise<Uint8Array>;
  /** Waits until `expression` is truthy in the page (at most `limitMs`, default 10 s). */
  waitFor(expression: string, limitMs?: number): Promise<void>;
}

/** A running headless browser. */
export interface Browser extends AsyncDisposable {
  /** A fresh page with the given viewport. */
  newPage(width: number, height: number): Promise<Page>;
}

/**
 * Starts headless Chromium on a throwaway profile and connects to it.
 *
 * @param executable The browser's executable.
 * @returns The browser; dispose it to stop the process and remove the profile.
 */
export async function launchChromium(executable: string): Promise<Browser> {
  const profile = await Deno.makeTempDir({ prefix: "tack_chromium_" });
  const child = new Deno.Command(executable, {
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--no-default-browser-check",
      "--hide-scrollbars",
      `--user-data-dir=${profile}`,
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      "about:blank",
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let endpoint: string | undefined;
  while (endpoint === undefined) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`Cannot start ${executable}: it exited before listening\n${seen}`);
    seen += value;
    endpoint = seen.match(/DevTools listening on (ws:\/\/\S+)/)?.[1];
  }
  // Keep draining stderr so the browser never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});

  const socket = new WebSocket(endpoint);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`Cannot connect to ${endpoint}`));
  });
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const listeners = new Set<(message: Record<string, unknown>) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (typeof message.id === "number") {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) waiter?.reject(new Error(`CDP: ${message.error.message}`));
      else waiter?.resolve(message.result ?? {});
    } else for (const listener of listeners) listener(message);
  };
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });

  return {
    async newPage(width, height) {
      const { targetId } = await send("Target.createTarget", { url: "about:blank" });
      const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true }) as {
        sessionId: string;
      };
      const page: Page = {
        send: (method, params) => send(method, params, sessionId),
        async evaluate<T>(expression: string): Promise<T> {
          const { result, exceptionDetails } = await page.send("Runtime.evaluate", {
            expression,
            returnByValue: true,
            awaitPromise: true,
          }) as { result: { value: T }; exceptionDetails?: { text: string } };
          if (exceptionDetails) throw new Error(`In the page: ${exceptionDetails.text}`);
          return result.value;
        },
        async goto(url) {
          const loaded = new Promise<void>((resolve) => {
            const listener = (message: Record<string, unknown>) => {
              if (message.sessionId === sessionId && message.method === "Page.loadEventFired") {
                listeners.delete(listener);
                resolve();
              }
            };
            listeners.add(listener);
          });
          await page.send("Page.navigate", { url });
          await loaded;
        },
        async click(x, y) {
          for (const type of ["mousePressed", "mouseReleased"]) {
            await page.send("Input.dispatchMouseEvent", {
              type,
              x,
              y,
              button: "left",
              clickCount: 1,
            });
          }
        },
        async waitFor(expression, limitMs = 10_000) {
          const deadline = Date.now() + limitMs;
          while (!(await page.evaluate<boolean>(`Boolean(${expression})`))) {
            if (Date.now() > deadline) {
              throw new Error(`Timed out after ${limitMs} ms waiting for ${expression}`);
            }
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        },
        async screenshot() {
          const { data } = await page.send("Page.captureScreenshot", { format: "png" }) as {
            data: string;
          };
          return Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
        },
      };
      await page.send("Page.enable");
      await page.send("Emulation.setDeviceMetricsOverride", {
        width,
        height,
        deviceScaleFactor: 1,
        mobile: false,
      });
      return page;
    },
    async [Symbol.asyncDispose]() {
      await send("Browser.close").catch(() => {});
      socket.close();
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
      await child.status;
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
}
