/**
 * A self-signed serving certificate for 127.0.0.1 (openssl), for test servers the API server calls
 * (admission webhooks): `tls.crt` and `tls.key` in `dir`; the certificate is its own CA (caBundle).
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";

export async function servingCertificate(
  dir: string,
  commonName: string,
): Promise<{ certFile: string; keyFile: string }> {
  const certFile = join(dir, "tls.crt");
  const keyFile = join(dir, "tls.key");
  await promisify(execFile)("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-days",
    "1",
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-subj",
    `/CN=${commonName}`,
    "-addext",
    "subjectAltName=IP:127.0.0.1",
    "-addext",
    "extendedKeyUsage=serverAuth",
  ]);
  return { certFile, keyFile };
}
