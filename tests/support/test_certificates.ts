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
