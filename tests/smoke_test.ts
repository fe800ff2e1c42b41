import { createAgent, scriptedModel, text } from "@tack/agent";
import { equal } from "node:assert/strict";

Deno.test("a scripted agent answers", async () => {
  const agent = createAgent({ model: scriptedModel([[text("hello")]]) });
  const added = await agent.prompt("hi");
  equal(added.at(-1)?.role, "assistant");
});
