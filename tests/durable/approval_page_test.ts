// The approval page in headless Chromium: a run defers, the server is killed and
// restarted, a person clicks "Approve" in the page, and the run finishes with the
// approved call's result, having run it exactly once.
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { browserFor, launchChromium } from "../support/headless_chromium.ts";
import { executions } from "../support/durable_fixture.ts";
import { demoOptions, startApprovalServer } from "../../examples/approval_server.ts";
import { scriptedModel, text, toolCall } from "@tack/agent";
import { pageForms, postDecision, untilSettled } from "../support/approval_page_client.ts";

const SERVER = new URL("../../examples/approval_server.ts", import.meta.url).pathname;
const chromium = browserFor("the approval page browser test");

async function startServer(kvPath: string, logPath: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", SERVER, "--kv", kvPath, "--port", "0", "--log", logPath],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let url: string | undefined;
  while (!url) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`The approval server exited: ${seen}`);
    seen += value;
    url = /listening on (http:\/\/\S+)/.exec(seen)?.[1];
  }
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  return {
    url,
    async kill(signal: Deno.Signal) {
      child.kill(signal);
      await child.status;
    },
  };
}

Deno.test({
  name: "approval page: defer, kill and restart the server, click Approve, the run finishes",
  ignore: !chromium,
  async fn() {
    ok(chromium);
    const dir = await Deno.makeTempDir({ prefix: "tack_approval_" });
    const kvPath = `${dir}/runs.sqlite`;
    const logPath = `${dir}/deploys.log`;

    const first = await startServer(kvPath, logPath);
    const started = await (await fetch(`${first.url}runs`, {
      method: "POST",
      body: JSON.stringify({ id: "r1", prompt: "Deploy the api to production" }),
    })).json();
    equal(started.status, "pending");
    deepEqual(started.pending[0].args, { service: "api", environment: "production" });
    await first.kill("SIGKILL"); // no clean shutdown: the state must already be on disk

    const second = await startServer(kvPath, logPath);
    await using browser = await launchChromium(chromium);
    const page = await browser.newPage(1024, 768);
    try {
      await page.goto(second.url);
      const body = await page.evaluate<string>("document.body.innerText");
      ok(body.includes("deploy"), body);
      ok(body.includes('"environment": "production"'), body);
      ok(body.includes("Asked by confirm: deploy needs approval: deploy has effect exec"), body);
      deepEqual(executions(logPath), []);

      await page.evaluate(
        `document.querySelector('article[data-run="r1"] button[value="approve"]').click()`,
      );
      await page.waitFor(`document.querySelector('li.done[data-run="r1"]')`);
      equal(
        await page.evaluate<string>(`document.querySelector('li.done[data-run="r1"]').innerText`),
        "r1: Done: api is live on production",
      );
      equal(await page.evaluate<string>(`document.querySelectorAll("article.pending").length`), 0);
      const run = await (await fetch(`${second.url}runs/r1`)).json();
      deepEqual(run, { status: "done", answer: "Done: api is live on production", pending: [] });
      deepEqual(executions(logPath), ["deploy api production"]);
    } finally {
      await second.kill("SIGTERM");
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

/** The page's first decision form, filled to approve. */
async function pageForm(url: string): Promise<URLSearchParams> {
  return (await pageForms(url))[0];
}

/** Sends one raw HTTP/1.1 request to `port` with this `Host`, and returns the status code. */
async function statusWithHost(port: number, host: string, path: string): Promise<number> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await connection.write(
      new TextEncoder().encode(
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      ),
    );
    const reply = new Uint8Array(4096);
    const read = await connection.read(reply);
    const head = new TextDecoder().decode(reply.subarray(0, read ?? 0));
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  } finally {
    connection.close();
  }
}

Deno.test({
  name:
    "approval page: another site's form cannot approve a call, and a name rebound to 127.0.0.1 cannot read the page",
  ignore: !chromium,
  async fn() {
    ok(chromium);
    const dir = await Deno.makeTempDir({ prefix: "tack_approval_" });
    const logPath = `${dir}/deploys.log`;
    const server = await startServer(`${dir}/runs.sqlite`, logPath);
    // The attacker's page: another origin (another port) that submits a form to the server.
    let attack = "";
    const attacker = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response(attack, { headers: { "content-type": "text/html" } }),
    );
    try {
      const started = await (await fetch(`${server.url}runs`, {
        method: "POST",
        body: JSON.stringify({ id: "r1", prompt: "Deploy the api to production" }),
      })).json();
      const call = started.pending[0];
      // The worst case: the attacker knows the run, the call and the arguments' hash.
      const fields = {
        run: "r1",
        call: call.toolCallId,
        hash: call.argsHash,
        step: "2",
        action: "approve",
      };
      attack = `<!doctype html><form method="post" action="${server.url}decide">${
        Object.entries(fields).map(([name, value]) =>
          `<input type="hidden" name="${name}" value="${value}">`
        ).join("")
      }</form><script>document.forms[0].submit()</script>`;
      await using browser = await launchChromium(chromium);
      const page = await browser.newPage(800, 600);
      await page.goto(`http://127.0.0.1:${attacker.addr.port}/`);
      await page.waitFor(`document.body && document.body.innerText.includes("Forbidden")`);
      const run = await (await fetch(`${server.url}runs/r1`)).json();
      equal(run.status, "pending");
      deepEqual(executions(logPath), []);
      // DNS rebinding: a page at evil.example whose name now resolves to 127.0.0.1.
      const port = Number(new URL(server.url).port);
      equal(await statusWithHost(port, `evil.example:${port}`, "/"), 403);
      equal(await statusWithHost(port, `127.0.0.1:${port}`, "/"), 200);
    } finally {
      await attacker.shutdown();
      await server.kill("SIGTERM");
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name:
    "approval page: another site cannot frame it (a click on its decoy over the framed Approve button runs nothing), and arguments with markup are shown as text",
  ignore: !chromium,
  async fn() {
    ok(chromium);
    const dir = await Deno.makeTempDir({ prefix: "tack_approval_" });
    const logPath = `${dir}/deploys.log`;
    // Arguments with markup (a model may write anything): shown as text, never run as script.
    const markup =
      `<img src=x onerror="document.title='pwned'"></pre><script>document.title='pwned'</script>`;
    const step = (request: { messages: readonly { role: string }[] }) =>
      request.messages.some((m) => m.role === "toolResult")
        ? [text("done")]
        : [toolCall("deploy", { service: markup, environment: "production" })];
    const server = await startApprovalServer({
      kvPath: `${dir}/runs.sqlite`,
      port: 0,
      logPath,
      agent: () => ({ ...demoOptions(logPath), model: scriptedModel([step, step]) }),
    });
    // The attacker's page frames the approval page, nearly transparent, over a decoy button.
    const attacker = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () =>
        new Response(
          `<!doctype html><body style="margin:0"><button style="position:absolute;top:0;left:0;width:800px;height:600px">Win a prize</button>
<iframe src="${server.url}" onload="window.framed = true"
 style="position:absolute;top:0;left:0;width:800px;height:600px;border:0;opacity:0.01"></iframe></body>`,
          { headers: { "content-type": "text/html" } },
        ),
    );
    try {
      const started = await fetch(`${server.url}runs`, {
        method: "POST",
        body: JSON.stringify({ id: "r1", prompt: "Deploy the api to production" }),
      });
      equal((await started.json()).status, "pending");
      await using browser = await launchChromium(chromium);
      // Where the Approve button is, seen at the framed size.
      const own = await browser.newPage(800, 600);
      await own.goto(server.url);
      equal(await own.evaluate<string>("document.title"), "Approvals");
      equal(await own.evaluate<number>("document.images.length"), 0);
      equal(await own.evaluate<number>("document.scripts.length"), 0);
      equal(
        await own.evaluate<string>(`document.querySelector("article pre").innerText`),
        JSON.stringify({ service: markup, environment: "production" }, null, 2),
      );
      const [x, y] = await own.evaluate<[number, number]>(
        `(() => { const r = document.querySelector('button[value="approve"]').getBoundingClientRect();
          return [r.x + r.width / 2, r.y + r.height / 2]; })()`,
      );
      const page = await browser.newPage(800, 600);
      await page.goto(`http://127.0.0.1:${attacker.addr.port}/`);
      await page.waitFor("window.framed");
      await page.click(x, y);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const run = await (await fetch(`${server.url}runs/r1`)).json();
      equal(run.status, "pending");
      deepEqual(executions(logPath), []);
    } finally {
      await attacker.shutdown();
      await server.shutdown();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test("approval page: three approvals of one call at once (a double click, two people) each see the page again, and the call runs once; its id cannot start another run", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tack_approval_" });
  const logPath = `${dir}/deploys.log`;
  const server = await startServer(`${dir}/runs.sqlite`, logPath);
  try {
    const started = await (await fetch(`${server.url}runs`, {
      method: "POST",
      body: JSON.stringify({ id: "r1", prompt: "Deploy the api to production" }),
    })).json();
    const call = started.pending[0];
    const form = await pageForm(server.url);
    equal(form.get("call"), call.toolCallId);
    const approve = () =>
      fetch(`${server.url}decide`, {
        method: "POST",
        body: form,
        redirect: "manual",
      }).then(async (response) => (await response.body?.cancel(), response.status));
    deepEqual(await Promise.all([approve(), approve(), approve()]), [303, 303, 303]);
    for (let i = 0; (await (await fetch(`${server.url}runs/r1`)).json()).status !== "done"; i++) {
      if (i > 200) throw new Error("the run did not finish");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    deepEqual(executions(logPath), ["deploy api production"]);
    // No approval is left behind to hide a later call of the run with the same id: one a click
    // that lost the race set after the winner cleared them goes when the page is shown, as each
    // click's redirect shows it.
    await (await fetch(server.url)).body?.cancel();
    const kv = await Deno.openKv(`${dir}/runs.sqlite`);
    try {
      deepEqual(await Array.fromAsync(kv.list({ prefix: ["approval-page"] })), []);
    } finally {
      kv.close();
    }
    // Its id is taken: another POST /runs with it is refused and starts nothing.
    const again = await fetch(`${server.url}runs`, {
      method: "POST",
      body: JSON.stringify({ id: "r1", prompt: "Deploy the api to production" }),
    });
    equal(again.status, 409);
    deepEqual(await again.json(), { error: "run r1 exists" });
    equal((await (await fetch(`${server.url}runs/r1`)).json()).status, "done");
    deepEqual(executions(logPath), ["deploy api production"]);
  } finally {
    await server.kill("SIGTERM");
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("approval page: malformed or oversized requests are refused with 4xx and start nothing; other methods are not found", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tack_approval_" });
  const logPath = `${dir}/deploys.log`;
  const server = await startServer(`${dir}/runs.sqlite`, logPath);
  const status = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${server.url}${path}`, { redirect: "manual", ...init });
    await response.body?.cancel();
    return response.status;
  };
  try {
    const post = (body: BodyInit) => ({ method: "POST", body });
    deepEqual([
      await status("runs/%E0%A4%A"),
      await status("runs", post("{")),
      await status("runs", post(JSON.stringify({ id: 7, prompt: "go" }))),
      await status("runs", post(JSON.stringify({ id: "k".repeat(3000), prompt: "go" }))),
      await status("runs", post(JSON.stringify({ id: "r1", prompt: "x".repeat(1 << 20) }))),
      await status("decide", post(`run=r1&reason=${"x".repeat(1 << 20)}`)),
      await status("decide", { method: "GET" }),
      await status("decide", { method: "PUT", body: "run=r1" }),
      await status("runs/r1", { method: "DELETE" }),
      await status(`runs/${"k".repeat(2000)}`),
      await status("decide", post(`run=${"k".repeat(2000)}&step=2`)),
    ], [404, 400, 400, 400, 413, 413, 404, 404, 404, 404, 303]);
    equal(await status("runs/r1"), 404);
    deepEqual(executions(logPath), []);
  } finally {
    await server.kill("SIGTERM");
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("approval page: a form from before the run moved on does not approve a later call that reuses its id and arguments", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tack_approval_" });
  const logPath = `${dir}/deploys.log`;
  // A model that gives every call the same id (some local models do), and deploys twice.
  const step = (request: { messages: readonly { role: string }[] }) =>
    request.messages.filter((m) => m.role === "toolResult").length < 2
      ? [toolCall("deploy", { service: "api", environment: "production" }, "call_0")]
      : [text("deployed twice")];
  const server = await startApprovalServer({
    kvPath: `${dir}/runs.sqlite`,
    port: 0,
    logPath,
    agent: () => ({
      ...demoOptions(logPath),
      model: scriptedModel(Array.from({ length: 5 }, () => step)),
    }),
  });
  const form = () => pageForm(server.url);
  // The run as it stands once no worker has it (the server's listener may be the one resuming).
  const settled = () =>
    untilSettled(async () => await (await fetch(`${server.url}runs/r1`)).json());
  const decide = (body: URLSearchParams) => postDecision(server.url, body);
  try {
    await (await fetch(`${server.url}runs`, {
      method: "POST",
      body: JSON.stringify({ id: "r1", prompt: "Deploy the api to production, twice" }),
    })).json();
    const first = await form();
    equal(await decide(first), 303);
    // The run went on: the first deploy ran, and the second waits, with the same id and hash.
    const run = await settled();
    equal(run.status, "pending");
    deepEqual([run.pending[0].toolCallId, run.pending[0].argsHash], [
      first.get("call"),
      first.get("hash"),
    ]);
    deepEqual(executions(logPath), ["deploy api production"]);
    // The first form again (a late double click, a resubmission): refused, nothing runs.
    equal(await decide(first), 303);
    equal((await settled()).status, "pending");
    deepEqual(executions(logPath), ["deploy api production"]);
    // The page's own form for the second call approves it.
    equal(await decide(await form()), 303);
    deepEqual(await settled(), {
      status: "done",
      answer: "deployed twice",
      pending: [],
    });
    deepEqual(executions(logPath), ["deploy api production", "deploy api production"]);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("approval page: it listens on 127.0.0.1 alone, not on every address (127.0.0.2, also this machine, is refused)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tack_approval_" });
  const server = await startApprovalServer({
    kvPath: `${dir}/runs.sqlite`,
    port: 0,
    logPath: `${dir}/deploys.log`,
  });
  try {
    const port = Number(new URL(server.url).port);
    (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    await rejects(Deno.connect({ hostname: "127.0.0.2", port }), Deno.errors.ConnectionRefused);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
