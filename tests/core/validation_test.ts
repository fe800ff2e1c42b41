import { validateToolArguments } from "@tack/agent";
import { Type } from "typebox";
import { deepEqual, equal } from "node:assert/strict";

const plain = {
  type: "object",
  properties: {
    count: { type: "integer" },
    ratio: { type: "number" },
    flag: { type: "boolean" },
    label: { type: "string" },
    tags: { type: "array", items: { type: "integer" } },
    options: { type: "object", properties: { deep: { type: "boolean" } } },
    maybe: { type: ["string", "null"] },
  },
  required: ["count"],
  additionalProperties: false,
} as const;

Deno.test("plain JSON Schema: valid arguments pass through as they are", () => {
  const args = { count: 1 };
  const outcome = validateToolArguments("t", plain, args);
  deepEqual(outcome, { ok: true, value: args });
  if (outcome.ok) deepEqual(Object.is(outcome.value, args), true);
});

Deno.test("coercion fixes the obvious slips, on a copy", () => {
  const args = {
    count: "3",
    ratio: "0.5",
    flag: "true",
    label: 42,
    tags: ["1", 2],
    options: '{"deep":"false"}',
    maybe: null,
  };
  const original = structuredClone(args);
  deepEqual(validateToolArguments("t", plain, args), {
    ok: true,
    value: {
      count: 3,
      ratio: 0.5,
      flag: true,
      label: "42",
      tags: [1, 2],
      options: { deep: false },
      maybe: null,
    },
  });
  deepEqual(args, original, "the model's arguments are not mutated");
});

Deno.test("coercion copies only what it changes: the arguments stay as sent, the rest is shared", () => {
  const schema = Type.Object({
    v: Type.Union([Type.Number(), Type.Boolean()]),
    tags: Type.Array(Type.Integer()),
    note: Type.Object({ text: Type.String() }),
  });
  const args = { v: "7", tags: [1, "2"], note: { text: "kept" } };
  const original = structuredClone(args);
  const outcome = validateToolArguments("t", schema, args);
  deepEqual(outcome, { ok: true, value: { v: 7, tags: [1, 2], note: { text: "kept" } } });
  deepEqual(args, original, "the model's arguments are not mutated");
  if (outcome.ok) equal(outcome.value.note, args.note, "what needed no fixing is not copied");
});

Deno.test("null for an optional property that does not allow null is dropped (strict-mode APIs send it)", () => {
  deepEqual(validateToolArguments("t", plain, { count: 1, label: null }), {
    ok: true,
    value: { count: 1 },
  });
});

Deno.test("no coercion for what is not obvious", () => {
  const outcome = validateToolArguments("t", plain, { count: "3.5", flag: "yes", extra: 1 });
  deepEqual(outcome, {
    ok: false,
    message: 'Invalid arguments for tool "t":\n' +
      "  - extra: is not an allowed property\n" +
      '  - count: must be integer (received "3.5")\n' +
      '  - flag: must be boolean (received "yes")\n' +
      'Received arguments: {"count":"3.5","flag":"yes","extra":1}',
  });
});

Deno.test("arguments that are not an object are rejected with the root path", () => {
  deepEqual(validateToolArguments("t", Type.Object({ a: Type.String() }), "oops"), {
    ok: false,
    message:
      'Invalid arguments for tool "t":\n  - (root): must be object (received "oops")\nReceived arguments: "oops"',
  });
});

Deno.test("nested paths are dotted", () => {
  const schema = Type.Object({
    user: Type.Object({ emails: Type.Array(Type.String({ format: "email" })) }),
  });
  const outcome = validateToolArguments("t", schema, { user: { emails: ["a@b.co", "nope"] } });
  deepEqual(outcome, {
    ok: false,
    message:
      'Invalid arguments for tool "t":\n  - user.emails.1: must match format "email" (received "nope")\n' +
      'Received arguments: {"user":{"emails":["a@b.co","nope"]}}',
  });
});

Deno.test("unions coerce to the first member that fits", () => {
  const schema = Type.Object({ v: Type.Union([Type.Number(), Type.Boolean()]) });
  deepEqual(validateToolArguments("t", schema, { v: "false" }), { ok: true, value: { v: false } });
  deepEqual(validateToolArguments("t", schema, { v: "7" }), { ok: true, value: { v: 7 } });
});

Deno.test("arguments that fail and nest past MAX_ARGUMENT_DEPTH are refused before they are copied or quoted", () => {
  const nested = (depth: number) =>
    JSON.parse(`{"label":${"[".repeat(depth)}${"]".repeat(depth)}}`);
  const schema = Type.Object({ label: Type.Optional(Type.String()) });
  equal(validateToolArguments("t", schema, nested(127)).ok, false); // an ordinary mismatch
  deepEqual(validateToolArguments("t", schema, nested(128)), {
    ok: false,
    message: 'Invalid arguments for tool "t": they nest more than 128 levels deep',
  });
  // 1,000,000 levels (2 MB): checking and quoting them held the host ~1.5 s before.
  deepEqual(validateToolArguments("t", schema, nested(1_000_000)), {
    ok: false,
    message: 'Invalid arguments for tool "t": they nest more than 128 levels deep',
  });
});
