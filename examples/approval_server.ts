/**
 * An approval page for durable runs: a small web server that starts agent runs, lists
 * the calls waiting for a person (tool, full arguments, who asks and why) with approve /
 * reject / always buttons, and resumes a run when a person has decided every call. Runs
 * and decisions live in Deno KV on a local SQLite file, so a restart loses nothing; on
 * start the server also resumes runs decided before it stopped.
 *
 * Run: `deno run -A --unstable-kv examples/approval_server.ts --kv runs.sqlite --port 8000`,
 * then `curl -X POST localhost:8000/runs -d '{"id":"r1","prompt":"deploy"}'` and open the page.
 *
 * It is a demo: it listens on 127.0.0.1 only and has no login; put real authentication in
 * front of anything like it. What it does refuse (403): a request whose `Host` is not its own
 * address (a web page whose name was rebound to 127.0.0.1, which could read the page's call
 * ids), and a POST whose `Origin` is another site's (a page you visit submitting a form to it).
 * No other site may frame the page (a click on a decoy over it would approve a call).
 *
 * @module
 */

import {
  type AgentOptions,
  approveCall,
  type Decision,
  defineTool,
  kvRunStore,
  rejectCall,
  resumeStoredRun,
  RunExistsError,
  scriptedModel,
  startRun,
  type StoredRun,
  text,
  toolCall,
} from "@tack/agent";
import { confirm } from "@tack/agent/plugins/confirm";
import { Type } from "typebox";

/** The demo agent: it deploys what it is asked to, after a person approves. */
export function demoOptions(logPath: string): AgentOptions {
  const deploy = defineTool({
    name: "deploy",
    description: "Deploys a service to an environment",
    effects: ["exec"],
    parameters: Type.Object({ service: Type.String(), environment: Type.String() }),
    execute: ({ service, environment }) => {
      Deno.writeTextFileSync(logPath, `deploy ${service} ${environment}\n`, { append: true });
      return { content: [{ type: "text", text: `${service} is live on ${environment}` }] };
    },
  });
  // A model that reads the transcript, so a new process can take over mid-run.
  const step = (request: { messages: readonly { role: string; content: unknown }[] }) => {
    const result = request.messages.findLast((m) => m.role === "toolResult");
    if (!result) return [toolCall("deploy", { service: "api", environment: "production" })];
    const content = result.content as { type: string; text?: string }[];
    return [text(`Done: ${content.map((c) => c.text ?? "").join("")}`)];
  };
  return {
    model: scriptedModel(Array.from({ length: 20 }, () => step)),
    tools: [deploy],
    plugins: [confirm({ whenNonInteractive: "defer" })],
  };
}

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function answerOf(run: StoredRun): string {
  const last = run.state.messages.at(-1);
  if (last?.role !== "assistant") return "";
  return last.errorMessage ?? last.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

/** A call of `run`'s current round, as the page's decisions are keyed. */
const roundKey = (run: StoredRun, call: string) =>
  [run.id, run.state.messages.length, call].join("\0");

function page(
  pending: StoredRun[],
  done: StoredRun[],
  resuming: StoredRun[],
  decided: Set<string>,
): string {
  const calls = pending.flatMap((run) =>
    run.state.pending.filter((p) => !decided.has(roundKey(run, p.toolCallId))).map((p) => `
    <article class="pending" data-run="${escape(run.id)}" data-call="${escape(p.toolCallId)}">
      <h3>${escape(p.toolName)} <small>run ${escape(run.id)}, call ${
      escape(p.toolCallId)
    }</small></h3>
      <p>Asked by <b>${escape(p.deferredBy ?? "a hook")}</b>: ${escape(p.reason)}</p>
      <pre>${escape(JSON.stringify(p.args, null, 2))}</pre>
      <form method="post" action="/decide">
        <input type="hidden" name="run" value="${escape(run.id)}">
        <input type="hidden" name="call" value="${escape(p.toolCallId)}">
        <input type="hidden" name="hash" value="${escape(p.argsHash)}">
        <input type="hidden" name="step" value="${run.state.messages.length}">
        <input name="reason" placeholder="Reason (shown to the model if you reject)">
        <button name="action" value="approve">Approve</button>
        <button name="action" value="reject">Reject</button>
        <button name="action" value="always">Always allow ${escape(p.toolName)}</button>
      </form>
    </article>`)
  ).join("");
  const finished = done.map((run) =>
    `<li class="done" data-run="${escape(run.id)}">${escape(run.id)}: ${escape(answerOf(run))}</li>`
  ).join("");
  const going = resuming.map((run) =>
    `<li class="resuming" data-run="${escape(run.id)}">${escape(run.id)}: resuming…</li>`
  ).join("");
  // A run being resumed (here or by another worker) finishes later: the page looks again.
  const refresh = going ? `<meta http-equiv="refresh" content="1">` : "";
  return `<!doctype html><html><head><meta charset="utf-8"><title>Approvals</title>${refresh}
<style>body{font-family:system-ui;max-width:50rem;margin:2rem auto}pre{background:#f4f4f4;padding:.5rem}</style>
</head><body><h1>Waiting for approval</h1>${calls || "<p>Nothing is waiting.</p>"}
${going ? `<h2>Resuming</h2><ul>${going}</ul>` : ""}
<h2>Finished runs</h2><ul>${finished}</ul></body></html>`;
}

/**
 * Whether a request comes from elsewhere than this server's own page or a local client: its
 * `Host` is not the server's address (a name rebound to 127.0.0.1), or it is a POST whose
 * `Origin` is another site's (a browser names the page that sends a form; `curl` sends none).
 */
function foreign(request: Request, port: number): boolean {
  const own = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!own.includes(request.headers.get("host") ?? "")) return true;
  const origin = request.headers.get("origin");
  return request.method !== "GET" && origin !== null &&
    !own.some((host) => origin === `http://${host}`);
}

/**
 * Headers of every answer: no other site may frame the page (an invisible frame over a decoy
 * button would make a person's click approve a call), and the page runs no script, loads
 * nothing and posts its forms only to this server, should markup ever slip through `escape`.
 */
const GUARDS = {
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
};

/** The run ids this page starts and reads (any other is no run of its own: a store refuses ids past 1 KiB). */
const RUN_ID = /^[\w.-]{1,100}$/;

/** The most bytes a POST's body may have: a form or a run's prompt. */
const MAX_BODY = 64 * 1024;

/** A POST's body as text, or `undefined` when it is longer than `MAX_BODY` (it is not read on). */
async function bodyText(request: Request): Promise<string | undefined> {
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for await (const chunk of request.body ?? []) {
    size += chunk.length;
    if (size > MAX_BODY) return undefined;
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

function decodeURIComponentOr(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** A running approval server. */
export interface ApprovalServer {
  /** Its address. */
  url: string;
  /** Stops serving and closes the store. */
  shutdown(): Promise<void>;
}

/**
 * Starts the approval server on 127.0.0.1.
 *
 * @param options The KV file, the port (0: any free one), the demo tool's log file, and the
 * agent (default: `demoOptions(logPath)`).
 * @returns The server.
 */
export async function startApprovalServer(
  options: { kvPath: string; port?: number; logPath: string; agent?: () => AgentOptions },
): Promise<ApprovalServer> {
  const kv = await Deno.openKv(options.kvPath);
  const store = kvRunStore(kv);
  const agentOptions = options.agent ?? (() => demoOptions(options.logPath));
  const worker = `approval-server-${Deno.pid}`;
  const controller = new AbortController();
  const resume = async (id: string) => {
    await resumeStoredRun(store, id, worker, agentOptions());
  };
  // Runs decided before a restart (or by another server) are resumed here.
  const listening = store.listen(resume, { signal: controller.signal, pollMs: 500 });
  // A decision made on the page is kept for the round it showed (the transcript's length):
  // one left behind (the batch decided by another client, a click that lost the race) neither
  // hides nor approves a later call that reuses its id, and is deleted when the page is shown.
  const decisionKey = (
    run: string,
    step: number,
    call: string,
  ) => ["approval-page", run, step, call];

  const decide = async (form: URLSearchParams): Promise<void> => {
    const id = String(form.get("run"));
    if (!RUN_ID.test(id)) return;
    const run = await store.get(id);
    if (!run || run.status !== "pending") return;
    // The transcript's length the page showed: once the run went on, its form decides nothing,
    // even for a later call with the same id and arguments (a model may reuse ids).
    if (form.get("step") !== String(run.state.messages.length)) return;
    const pending = run.state.pending.find((p) => p.toolCallId === form.get("call"));
    if (!pending) return;
    const action = String(form.get("action"));
    const reason = String(form.get("reason") ?? "").trim();
    // The hash the person's page showed: a stale page cannot approve changed arguments.
    const shown = { ...pending, argsHash: String(form.get("hash")) };
    const decision: Decision = action === "reject"
      ? rejectCall(pending, reason || undefined)
      : approveCall(shown, action === "always" ? "tool" : undefined);
    const step = run.state.messages.length;
    await kv.set(decisionKey(id, step, pending.toolCallId), decision);
    const decisions: Decision[] = [];
    for (const call of run.state.pending) {
      const entry = await kv.get<Decision>(decisionKey(id, step, call.toolCallId));
      if (!entry.value) return; // others still wait
      decisions.push(entry.value);
    }
    try {
      await store.decide(id, decisions);
    } catch (error) {
      // Another click decided it first (a double click, two people): that one resumes it.
      if ((await store.get(id))?.status !== "pending") return;
      throw error;
    }
    // This round's, and any an earlier round left behind.
    for await (const entry of kv.list({ prefix: ["approval-page", id] })) {
      await kv.delete(entry.key);
    }
    await resume(id).catch((error) => console.error(`Cannot resume run ${id}:`, error));
  };

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: options.port ?? 0, onListen: () => {} },
    async (request) => {
      // A failure (a damaged run record) is a 500 that keeps the guards, not Deno.serve's bare one.
      const response = await answer(request).catch((error) => {
        console.error("approval page:", error);
        return new Response("Internal server error", { status: 500 });
      });
      for (const [name, value] of Object.entries(GUARDS)) response.headers.set(name, value);
      return response;
    },
  );
  const answer = async (request: Request): Promise<Response> => {
    if (foreign(request, server.addr.port)) {
      return new Response("Forbidden: not from this page", { status: 403 });
    }
    const url = new URL(request.url);
    if (request.method === "GET" && url.pathname === "/") {
      const kept = await Array.fromAsync(kv.list({ prefix: ["approval-page"] }));
      const pending = await store.list("pending");
      // Listed after the decisions: a decision for a round no run waits at now is left over
      // (its batch decided by another client, a click that lost the race) and goes.
      const rounds = new Set(pending.map((run) => `${run.id}\0${run.state.messages.length}`));
      const decided = new Set<string>();
      for (const { key } of kept) {
        const [run, step] = key.slice(1).map(String);
        if (rounds.has(`${run}\0${step}`)) decided.add(key.map(String).slice(1).join("\0"));
        else await kv.delete(key);
      }
      const resuming = [...await store.list("decided"), ...await store.list("running")];
      const html = page(pending, await store.list("done"), resuming, decided);
      return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
    }
    const posted = request.method === "POST" ? await bodyText(request) : "";
    if (posted === undefined) {
      return new Response(`Payload too large: at most ${MAX_BODY} bytes`, { status: 413 });
    }
    if (request.method === "POST" && url.pathname === "/decide") {
      await decide(new URLSearchParams(posted));
      return new Response(null, { status: 303, headers: { location: "/" } });
    }
    if (request.method === "POST" && url.pathname === "/runs") {
      const { id, prompt } = parseJson(posted) ?? {};
      if (typeof id !== "string" || !RUN_ID.test(id) || typeof prompt !== "string") {
        return Response.json({
          error: 'expected {"id": "<1 to 100 letters, digits, _ . ->", "prompt": "<text>"}',
        }, { status: 400 });
      }
      try {
        await startRun(store, id, agentOptions(), prompt, worker);
      } catch (error) {
        // Refused atomically: of two POSTs of one id at once, one starts it.
        if (!(error instanceof RunExistsError)) throw error;
        return Response.json({ error: `run ${id} exists` }, { status: 409 });
      }
      const run = await store.get(id);
      return Response.json({ status: run?.status, pending: run?.state.pending });
    }
    const match = /^\/runs\/([^/]+)$/.exec(url.pathname);
    if (request.method === "GET" && match) {
      const id = decodeURIComponentOr(match[1]);
      const run = id === undefined || !RUN_ID.test(id) ? undefined : await store.get(id);
      if (!run) return Response.json({ error: "no such run" }, { status: 404 });
      return Response.json({
        status: run.status,
        answer: answerOf(run),
        pending: run.state.pending,
      });
    }
    return new Response("Not found", { status: 404 });
  };
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    async shutdown() {
      controller.abort();
      await listening;
      await server.shutdown();
      kv.close();
    },
  };
}

if (import.meta.main) {
  const arg = (name: string, fallback: string) => {
    const i = Deno.args.indexOf(`--${name}`);
    return i >= 0 ? Deno.args[i + 1] : fallback;
  };
  const server = await startApprovalServer({
    kvPath: arg("kv", "runs.sqlite"),
    port: Number(arg("port", "8000")),
    logPath: arg("log", "deploys.log"),
  });
  console.log(`listening on ${server.url}`);
}
