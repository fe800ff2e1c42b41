/**
 * Measures what a new machine downloads for a command: runs it with an empty `DENO_DIR`
 * behind a counting HTTPS proxy on 127.0.0.1 and prints the bytes that came in.
 *
 *   deno run -A scripts/measure_download.ts            # deno task demo
 *   deno run -A scripts/measure_download.ts task test  # any deno subcommand
 *
 * Needs the network (it is not part of the tests); the README quotes what it prints.
 *
 * @module
 */

/**
 * Runs `deno <args>` with an empty cache behind a counting proxy.
 *
 * @param args The deno subcommand and its arguments.
 * @returns Bytes received through the proxy, and the command's exit code.
 *
 * @example Measuring the demo (needs the network)
 * ```ts ignore
 * import { measureDownload } from "./measure_download.ts";
 * const { bytes } = await measureDownload(["task", "demo"]);
 * console.log(bytes);
 * ```
 */
export async function measureDownload(args: string[]): Promise<{ bytes: number; code: number }> {
  let bytes = 0;
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serve = (async () => {
    for await (const client of listener) {
      (async () => {
        const head = new Uint8Array(8192);
        const n = (await client.read(head)) ?? 0;
        const line = new TextDecoder().decode(head.subarray(0, n)).split("\r\n")[0];
        const target = /^CONNECT ([^ :]+):(\d+) /.exec(line);
        if (!target) return client.close();
        const upstream = await Deno.connect({ hostname: target[1], port: Number(target[2]) });
        await client.write(new TextEncoder().encode("HTTP/1.1 200 Connection established\r\n\r\n"));
        const count = new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            bytes += chunk.byteLength;
            controller.enqueue(chunk);
          },
        });
        await Promise.allSettled([
          client.readable.pipeTo(upstream.writable),
          upstream.readable.pipeThrough(count).pipeTo(client.writable),
        ]);
      })().catch(() => {});
    }
  })();
  const denoDir = await Deno.makeTempDir({ prefix: "tack-fresh-deno-dir-" });
  const proxy = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  const { code } = await new Deno.Command(Deno.execPath(), {
    args,
    env: { DENO_DIR: denoDir, HTTPS_PROXY: proxy, HTTP_PROXY: proxy, NO_COLOR: "1" },
    stdout: "null",
    stderr: "inherit",
  }).output();
  listener.close();
  await serve.catch(() => {});
  await Deno.remove(denoDir, { recursive: true }).catch(() => {});
  return { bytes, code };
}

if (import.meta.main) {
  const args = Deno.args.length > 0 ? Deno.args : ["task", "demo"];
  const { bytes, code } = await measureDownload(args);
  console.log(`deno ${args.join(" ")}: ${(bytes / 1e6).toFixed(1)} MB downloaded (exit ${code})`);
}
