/**
 * The floor of a warm process-sandbox call: a raw pipe round trip of the same bytes to a
 * bare `deno run` child, doing what any correct JSON-lines protocol must and nothing else.
 * The host writes the call as a JSON line; the child splits its stdin at newlines, parses
 * the line, and answers with the two JSON lines the sandbox's `echo` sends back (an update,
 * then the result, two writes, with the call's id); the host splits them and parses each.
 * No frame limit, no validation, no bookkeeping: what those cost is the distance from a
 * sandboxed call to this row.
 *
 * @module
 */

/** The arguments of the bench's `echo` call. */
export const ECHO_ARGS = { text: "ping" };

/** A running floor child. */
export interface PipeFloor {
  /** One round trip: a call out, its update and result back, all parsed. */
  roundTrip(): Promise<void>;
  /** The child's script (a temp file), for a cold-start row. */
  script: string;
  /** Ends the child and removes its script. */
  close(): Promise<void>;
}

// The child: the same replies the sandbox's echo tool sends, built per call from the
// parsed id (the details' instance is fixed, as a plugin module's is).
const CHILD = `const encoder = new TextEncoder();
const decoder = new TextDecoder();
const instance = crypto.randomUUID();
const buffer = new Uint8Array(65536);
let rest = new Uint8Array(0);
const answer = (line) => {
  const call = JSON.parse(decoder.decode(line));
  const text = call.args.text;
  Deno.stdout.writeSync(encoder.encode(JSON.stringify({
    type: "update", id: call.id, partial: { content: [{ type: "text", text: "echoing " + text }] },
  }) + "\\n"));
  Deno.stdout.writeSync(encoder.encode(JSON.stringify({
    type: "result", id: call.id,
    result: { content: [{ type: "text", text }], details: { instance } }, isError: false,
  }) + "\\n"));
};
while (true) {
  const read = await Deno.stdin.read(buffer);
  if (read === null) break;
  let chunk = buffer.subarray(0, read);
  if (rest.length > 0) chunk = new Uint8Array([...rest, ...chunk]);
  let start = 0;
  for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, start)) {
    answer(chunk.subarray(start, at));
    start = at + 1;
  }
  rest = chunk.slice(start);
}
`;

/**
 * Writes the floor child's script to a temp file (the caller removes it).
 *
 * @returns The script's path.
 */
export async function writeFloorChild(): Promise<string> {
  const script = await Deno.makeTempFile({ suffix: ".js" });
  await Deno.writeTextFile(script, CHILD);
  return script;
}

/** The first call line a floor child is sent, as bytes. */
export const FLOOR_CALL_BYTES: Uint8Array = new TextEncoder().encode(
  JSON.stringify({ type: "call", id: 1, tool: "echo", toolCallId: "f1", args: ECHO_ARGS }) + "\n",
);

/** A bare `deno run` child of the floor script, its stdin and stdout piped. */
function spawnFloorChild(script: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", script],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
}

/**
 * The cold-start floor: a bare `deno run` child of the floor script, sent one call line,
 * its stdin closed, its answer and exit awaited.
 *
 * @param script The floor child's script ({@linkcode writeFloorChild}).
 */
export async function bareChildAnswer(script: string): Promise<void> {
  const child = spawnFloorChild(script);
  const writer = child.stdin.getWriter();
  await writer.write(FLOOR_CALL_BYTES);
  await writer.close();
  const output = await child.output();
  if (!output.success || new TextDecoder().decode(output.stdout).split("\n").length !== 3) {
    throw new Error("Cannot run the floor: its child did not answer with two lines");
  }
}

/**
 * Starts a floor child.
 *
 * @returns The child, warm after its first round trip.
 */
export async function startPipeFloor(): Promise<PipeFloor> {
  const script = await writeFloorChild();
  const child = spawnFloorChild(script);
  const writer = child.stdin.getWriter();
  const reader = child.stdout.getReader();
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let id = 0;
  let rest = new Uint8Array(0);
  const lines: unknown[] = [];
  const roundTrip = async (): Promise<void> => {
    id++;
    await writer.write(encoder.encode(
      JSON.stringify({ type: "call", id, tool: "echo", toolCallId: `f${id}`, args: ECHO_ARGS }) +
        "\n",
    ));
    lines.length = 0;
    while (lines.length < 2) {
      const { value, done } = await reader.read();
      if (done) throw new Error("Cannot run the floor: its child is gone");
      let chunk = value;
      if (rest.length > 0) {
        chunk = new Uint8Array(rest.length + value.length);
        chunk.set(rest);
        chunk.set(value, rest.length);
      }
      let start = 0;
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, start)) {
        lines.push(JSON.parse(decoder.decode(chunk.subarray(start, at))));
        start = at + 1;
      }
      rest = chunk.slice(start);
    }
    if ((lines[1] as { id?: number }).id !== id) {
      throw new Error(`Cannot run the floor: answer ${JSON.stringify(lines[1])} is not for ${id}`);
    }
  };
  await roundTrip();
  return {
    roundTrip,
    script,
    async close() {
      await writer.close().catch(() => {});
      await child.status;
      reader.releaseLock();
      await child.stdout.cancel().catch(() => {});
      await Deno.remove(script).catch(() => {});
    },
  };
}
