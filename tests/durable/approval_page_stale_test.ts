// The approval page's half-made decisions (one call of a batch approved, the others still
// waiting) belong to the round the page showed: once the run went on without them (decided by
// another client), they neither hide nor approve a later call that reuses the id and arguments.
import { approveCall, kvRunStore, scriptedModel, text, toolCall } from "@tack/agent";
import { deepEqual, equal } from "node:assert/strict";
import { executions } from "../support/durable_fixture.ts";
import { demoOptions, startApprovalServer } from "../../examples/approval_server.ts";
import { pageForms, postDecision, untilSettled } from "../support/approval_page_client.ts";

Deno.test("approval page: an approval made on the page for a batch another client decided neither hides nor approves a later call reusing its id and arguments", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tack_approval_stale_" });
  const kvPath = `${dir}/runs.sqlite`;
  const logPath = `${dir}/deploys.log`;
  // Two rounds of the same two calls, with the same ids (some models reuse them).
  const step = (request: { messages: readonly { role: string }[] }) =>
    request.messages.filter((m) => m.role === "toolResult").length < 4
      ? [
        toolCall("deploy", { service: "api", environment: "production" }, "call_0"),
        toolCall("deploy", { service: "web", environment: "production" }, "call_1"),
      ]
      : [text("deployed twice")];
  const agent = () => ({
    ...demoOptions(logPath),
    model: scriptedModel(Array.from({ length: 5 }, () => step)),
  });
  const server = await startApprovalServer({ kvPath, port: 0, logPath, agent });
  const other = kvRunStore(await Deno.openKv(kvPath), { closeKv: true });
  const settled = () => untilSettled(() => other.get("r1"));
  const decide = (body: URLSearchParams) => postDecision(server.url, body);
  try {
    await (await fetch(`${server.url}runs`, {
      method: "POST",
      body: JSON.stringify({ id: "r1", prompt: "Deploy api and web, twice" }),
    })).json();
    // A person approves call_0 on the page; call_1 still waits there.
    const [first] = await pageForms(server.url);
    equal(first.get("call"), "call_0");
    equal(await decide(first), 303);
    deepEqual((await pageForms(server.url)).map((form) => form.get("call")), ["call_1"]);
    // Another client decides the whole batch through the store; the run goes on.
    const waiting = (await other.get("r1"))!.state.pending;
    await other.decide("r1", waiting.map((call) => approveCall(call)));
    const run = await settled();
    equal(run.status, "pending");
    deepEqual(executions(logPath), ["deploy api production", "deploy web production"]);
    // The second round: both calls are shown, and approving call_1 does not approve call_0.
    const forms = await pageForms(server.url);
    deepEqual(forms.map((form) => form.get("call")), ["call_0", "call_1"]);
    equal(await decide(forms[1]), 303);
    equal((await settled()).status, "pending");
    deepEqual(executions(logPath), ["deploy api production", "deploy web production"]);
  } finally {
    other.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("approval page: a decision left over from a round the run is past (its batch decided by another client) is deleted when the page is shown", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tack_approval_stale_" });
  const kvPath = `${dir}/runs.sqlite`;
  const logPath = `${dir}/deploys.log`;
  const step = (request: { messages: readonly { role: string }[] }) =>
    request.messages.some((m) => m.role === "toolResult") ? [text("deployed")] : [
      toolCall("deploy", { service: "api", environment: "production" }, "call_0"),
      toolCall("deploy", { service: "web", environment: "production" }, "call_1"),
    ];
  const agent = () => ({ ...demoOptions(logPath), model: scriptedModel([step, step]) });
  const server = await startApprovalServer({ kvPath, port: 0, logPath, agent });
  const kv = await Deno.openKv(kvPath);
  const other = kvRunStore(kv);
  const kept = () => Array.fromAsync(kv.list({ prefix: ["approval-page"] }), (e) => e.key);
  try {
    await (await fetch(`${server.url}runs`, {
      method: "POST",
      body: JSON.stringify({ id: "r1", prompt: "Deploy api and web" }),
    })).json();
    // A person approves call_0 on the page; the page keeps it while call_1 waits.
    const [first] = await pageForms(server.url);
    equal(await postDecision(server.url, first), 303);
    const step0 = Number(first.get("step"));
    deepEqual(await kept(), [["approval-page", "r1", step0, "call_0"]]);
    // Another client decides the batch through the store, and the run finishes.
    const waiting = (await other.get("r1"))!.state.pending;
    await other.decide("r1", waiting.map((call) => approveCall(call)));
    equal((await untilSettled(() => other.get("r1"))).status, "done");
    // The page, shown again, keeps nothing of that round (before, it stayed for good).
    await (await fetch(server.url)).body?.cancel();
    deepEqual(await kept(), []);
  } finally {
    kv.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("approval page: a request that fails (a damaged run record) gets a 500 with the page's guards, and ids no run may have are not found", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tack_approval_stale_" });
  const kvPath = `${dir}/runs.sqlite`;
  const server = await startApprovalServer({ kvPath, port: 0, logPath: `${dir}/log` });
  const kv = await Deno.openKv(kvPath);
  try {
    await kv.set(["tack", "runs", "bad", "head"], null);
    const failed = await fetch(`${server.url}runs/bad`);
    await failed.body?.cancel();
    equal(failed.status, 500);
    equal(failed.headers.get("x-frame-options"), "DENY");
    const long = await fetch(`${server.url}runs/${"k".repeat(2000)}`);
    await long.body?.cancel();
    equal(long.status, 404);
  } finally {
    kv.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
