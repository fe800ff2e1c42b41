/**
 * A throwaway CA and a server certificate it signed, made with `openssl` at test time.
 *
 * @module
 */

/** Whether `openssl` can be run here (tests that need certificates are skipped otherwise). */
export async function hasOpenssl(): Promise<boolean> {
  const probe = new Deno.Command("openssl", { args: ["version"], stdout: "null", stderr: "null" });
  return (await probe.output().catch(() => ({ success: false }))).success;
}

async function openssl(dir: string, ...args: string[]): Promise<void> {
  const { success, stderr } = await new Deno.Command("openssl", { args, cwd: dir }).output();
  if (!success) throw new Error(`openssl ${args[0]}: ${new TextDecoder().decode(stderr)}`);
}

/** The files {@linkcode makeCertificates} wrote. */
export interface TestCertificates {
  /** The CA's certificate (PEM). */
  ca: string;
  /** The server certificate, for `names` (PEM). */
  cert: string;
  /** Its key (PEM). */
  key: string;
}

/**
 * Writes `ca.pem` (a CA) and `<prefix>.pem`, `<prefix>.key` (a server certificate it signed,
 * valid for `names`) into `dir`, and returns their paths.
 */
export async function makeCertificates(
  dir: string,
  names: string[],
  prefix = "leaf",
): Promise<TestCertificates> {
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  const ca = `${dir}/ca.pem`;
  try {
    await Deno.stat(ca);
  } catch {
    await openssl(
      dir,
      "req",
      "-x509",
      ...ec,
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "2",
      "-subj",
      "/CN=Tack test CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign",
    );
  }
  await openssl(
    dir,
    "req",
    ...ec,
    "-keyout",
    `${prefix}.key`,
    "-out",
    `${prefix}.csr`,
    "-subj",
    `/CN=${names[0]}`,
  );
  await Deno.writeTextFile(
    `${dir}/${prefix}.ext`,
    `subjectAltName=${names.map((name) => `DNS:${name}`).join(",")}\n` +
      "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  await openssl(
    dir,
    "x509",
    "-req",
    "-in",
    `${prefix}.csr`,
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    `${prefix}.pem`,
    "-days",
    "2",
    "-extfile",
    `${prefix}.ext`,
  );
  return { ca, cert: `${dir}/${prefix}.pem`, key: `${dir}/${prefix}.key` };
}

/**
 * Runs `run` with a TLS server on 127.0.0.1 (a port of the system's choosing) whose
 * certificate is for `names`, signed by a CA made for it; it answers "hello" and records the
 * URLs it was asked for. Needs `openssl`.
 *
 * @param names The names the certificate is for.
 * @param run Gets the port, the CA (PEM) and the URLs asked so far.
 */
export async function withTlsServer(
  names: string[],
  run: (port: number, ca: string, asked: string[]) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    const files = await makeCertificates(dir, names);
    const asked: string[] = [];
    await using server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      cert: await Deno.readTextFile(files.cert),
      key: await Deno.readTextFile(files.key),
      onListen() {},
    }, (request) => {
      asked.push(request.url);
      return new Response("hello");
    });
    await run(server.addr.port, await Deno.readTextFile(files.ca), asked);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
