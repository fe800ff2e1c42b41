// Splitting the sandbox's output into lines: chunk boundaries anywhere, a line over the
// limit cut or stopping the reader, and what a terminal would act on stripped.
import { deepEqual, equal } from "node:assert/strict";
import { lineSplitter, readLines } from "../../sdk/sandbox/read_lines.ts";
import { stripControlSequences } from "../../sdk/sandbox/strip_control_sequences.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function chunks(text: string, size: number): Uint8Array[] {
  const bytes = encoder.encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

Deno.test("lines split at every chunk size, multi-byte characters included", async () => {
  const text = "héllo wörld\n\nzwei €\nlast without newline";
  for (let size = 1; size <= text.length + 1; size++) {
    const lines: string[] = [];
    await readLines(ReadableStream.from(chunks(text, size)), (line) => {
      lines.push(decoder.decode(line));
    }, { maxLineBytes: 1000, long: "cut" });
    deepEqual(lines, ["héllo wörld", "", "zwei €", "last without newline"], `chunk size ${size}`);
  }
});

Deno.test("a long line is cut to the limit, counting what was dropped", async () => {
  const seen: [string, number][] = [];
  await readLines(ReadableStream.from(chunks("abcdefghij\nxy\n", 3)), (line, cut) => {
    seen.push([decoder.decode(line), cut]);
  }, { maxLineBytes: 4, long: "cut" });
  deepEqual(seen, [["abcd", 6], ["xy", 0]]);
});

Deno.test("a line over a stop limit calls onTooLong once and reads no further", async () => {
  const lines: string[] = [];
  let tooLong = 0;
  let pulled = 0;
  const parts = chunks("ok\n" + "x".repeat(100) + "\nnever\n", 10);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled < parts.length) controller.enqueue(parts[pulled++]);
      else controller.close();
    },
  });
  await readLines(stream, (line) => lines.push(decoder.decode(line)), {
    maxLineBytes: 50,
    long: "stop",
    onTooLong: () => tooLong++,
  });
  deepEqual(lines, ["ok"]);
  equal(tooLong, 1);
  equal(pulled < parts.length, true, "the reader went on after the limit");
});

Deno.test("a partial line survives the reuse of the buffer it came in", () => {
  const lines: string[] = [];
  const split = lineSplitter((line) => lines.push(decoder.decode(line)), {
    maxLineBytes: 100,
    long: "cut",
  });
  const buffer = new Uint8Array(8);
  for (const piece of ["abc", "def\ngh", "i\n"]) {
    const bytes = encoder.encode(piece);
    buffer.set(bytes);
    split.push(buffer.subarray(0, bytes.length));
    buffer.fill(0);
  }
  deepEqual(lines, ["abcdef", "ghi"]);
});

Deno.test("control sequences are stripped: what is left holds no control character", () => {
  const cases: [string, string][] = [
    ["\x1b[31mred\x1b[0m", "red"],
    ["\x1b[2K\x1b[10;5Hmoved", "moved"],
    ["a\x1b]0;title\x1b\\b", "ab"],
    ["\x1b]8;;https://x.test\x07link\x1b]8;;\x07", "link"],
    ["copy\x1b]52;c;aGVsbG8+/w==\x07ed", "copyed"],
    ["unterminated \x1b]52;c;aGVsbG8+ to the end", "unterminated "],
    ["\x9b2J8-bit csi", "8-bit csi"],
    ["\x9d0;t\x9cosc", "osc"],
    ["\x1bPq#0\x1b\\dcs", "dcs"],
    ["\x1b7save\x1b8", "save"],
    ["lone escape \x1b", "lone escape "],
    ["\u202eevil\u2066", "evil"],
    ["tab\tkept\r\x08\x7f", "tab\tkept"],
  ];
  for (const [input, output] of cases) equal(stripControlSequences(input), output, input);
  let all = "";
  for (let code = 0; code < 0x300; code++) all += String.fromCharCode(code);
  const left = [...stripControlSequences(all + all)].map((char) => char.charCodeAt(0));
  deepEqual(
    left.filter((code) => (code < 0x20 && code !== 9) || (code >= 0x7f && code <= 0x9f)),
    [],
  );
});

Deno.test("a pause asked for after a chunk holds the reader until it settles", async () => {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled++ < 3) controller.enqueue(encoder.encode(`${pulled}\n`));
      else controller.close();
    },
  }, { highWaterMark: 0 });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const lines: string[] = [];
  const reading = readLines(stream, (line) => lines.push(decoder.decode(line)), {
    maxLineBytes: 10,
    long: "cut",
    pause: () => lines.length === 1 ? gate : undefined,
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  deepEqual(lines, ["1"], "the reader went on while paused");
  equal(pulled, 1);
  release();
  await reading;
  deepEqual(lines, ["1", "2", "3"]);
});

Deno.test("a stop ends reading of a stream that never ends, handing over the partial line", async () => {
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode("whole\npart"));
    },
    cancel: () => void (cancelled = true),
  });
  let stop!: () => void;
  const lines: string[] = [];
  const reading = readLines(stream, (line) => lines.push(decoder.decode(line)), {
    maxLineBytes: 10,
    long: "cut",
    stop: new Promise<void>((resolve) => (stop = resolve)),
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  deepEqual(lines, ["whole"]);
  stop();
  await reading;
  deepEqual(lines, ["whole", "part"]);
  equal(cancelled, true, "the stream was not cancelled");
});
