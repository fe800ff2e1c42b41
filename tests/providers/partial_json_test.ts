import { deepEqual, equal } from "node:assert/strict";
import { parseToolArguments, PartialJsonParser } from "../../sdk/providers/openai/partial_json.ts";

const SAMPLES: unknown[] = [
  { city: "Paris" },
  { path: "a/b.ts", content: 'line "one"\n\tline\\two \u00e9 \ud83d\ude00', n: -12.5e3, ok: true },
  { nested: { list: [1, [2, 3], { x: null }, [], {}], empty: "" }, f: false, z: 0 },
  { unicode: "\u0000\u001f\u2028", slash: "a/b" },
  [1, "two", { three: 3 }],
  "just a string",
  42,
];

function feed(text: string, size: number): PartialJsonParser {
  const parser = new PartialJsonParser();
  for (let i = 0; i < text.length; i += size) parser.push(text.slice(i, i + size));
  return parser;
}

Deno.test("PartialJsonParser ends with JSON.parse's value however the text is split", () => {
  for (const sample of SAMPLES) {
    for (const text of [JSON.stringify(sample), JSON.stringify(sample, null, 2)]) {
      for (const size of [1, 2, 3, 7, 1000]) {
        const parser = feed(text, size);
        deepEqual(parser.value, JSON.parse(text), `${text} in chunks of ${size}`);
        // A bare number could still grow: it is only complete once something follows it.
        equal(parser.complete, typeof sample !== "number");
        equal(parser.failed, false);
      }
    }
  }
});

Deno.test("PartialJsonParser shows every prefix as a value the final one extends", () => {
  const text = JSON.stringify(SAMPLES[1]);
  const parser = new PartialJsonParser();
  const seen: string[] = [];
  for (const char of text) {
    parser.push(char);
    seen.push(JSON.stringify(parser.value));
  }
  equal(seen[0], "{}");
  equal(seen.includes('{"path":"a/b"}'), true);
  equal(seen.includes('{"path":"a/b.ts","content":"line \\"one\\"\\n"}'), true);
  // An unfinished number shows once it parses, an unfinished literal not before it ends.
  equal(seen.some((s) => s.endsWith('"n":-1}')), true);
  equal(seen.some((s) => /"ok":(?!true)/.test(s)), false);
  equal(seen.at(-1), text);
});

Deno.test("PartialJsonParser leaves an unfinished key and a pending escape out", () => {
  const parser = new PartialJsonParser();
  parser.push('{"a": 1, "lo');
  deepEqual(parser.value, { a: 1 });
  parser.push('ng": "x\\');
  deepEqual(parser.value, { a: 1, long: "x" });
  parser.push("u00e9");
  deepEqual(parser.value, { a: 1, long: "x\u00e9" });
  equal(parser.complete, false);
});

Deno.test("PartialJsonParser stops at text that is not JSON and keeps what it had", () => {
  for (
    const [text, value] of [
      ['{"a": 1} x', { a: 1 }],
      ['{"a": tru e}', {}],
      ['{"a" 1}', {}],
      ['{"a": "x\\q"}', { a: "x" }],
      ["{a: 1}", {}],
      ["[1,, 2]", [1]],
      ["{'a': 1}", {}],
    ] as const
  ) {
    const parser = feed(text, 1);
    equal(parser.failed, true, text);
    equal(parser.complete, false, text);
    deepEqual(parser.value, value, text);
  }
});

Deno.test("parseToolArguments parses, repairs truncation, and rejects non-objects", () => {
  deepEqual(parseToolArguments('{"city":"Paris","days":3}'), { city: "Paris", days: 3 });
  deepEqual(parseToolArguments(""), {});
  deepEqual(parseToolArguments("  "), {});
  deepEqual(parseToolArguments('{"city":"Par'), { city: "Par" });
  deepEqual(parseToolArguments('{"a":[1,{"b":tr'), { a: [1, {}] });
  equal(parseToolArguments("[1, 2]"), undefined);
  equal(parseToolArguments('"Paris"'), undefined);
  equal(parseToolArguments("city=Paris"), undefined);
  equal(parseToolArguments('{"a": 1} trailing'), undefined);
});
