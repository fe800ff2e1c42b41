// A child's update or result that carries no content is garbage: it would otherwise reach
// every event listener (the CLI's renderer threw on each one, and printed its stack).
import { deepEqual, equal } from "node:assert/strict";
import { parseChildMessage } from "../../sdk/sandbox/protocol.ts";

Deno.test("an update or a result without a content array is garbage", () => {
  for (
    const line of [
      '{"type":"update","id":1,"partial":null}',
      '{"type":"update","id":1,"partial":{"content":"text"}}',
      '{"type":"update","id":1}',
      '{"type":"result","id":1,"result":null,"isError":false}',
      '{"type":"result","id":1,"result":{"content":"text"},"isError":true}',
    ]
  ) equal(parseChildMessage(line), undefined, line);
});

Deno.test("an update and a result with content are messages", () => {
  const partial = { content: [{ type: "text", text: "half" }] };
  deepEqual(parseChildMessage(JSON.stringify({ type: "update", id: 1, partial })), {
    type: "update",
    id: 1,
    partial,
  });
  deepEqual(
    parseChildMessage(JSON.stringify({ type: "result", id: 1, result: partial, isError: false })),
    { type: "result", id: 1, result: partial, isError: false },
  );
});
