// `RINGBASE_TLS_SELF_SIGNED=1`: a certificate generated once into the data dir, so the HTTPS-only preview
// root works out of the box on a fresh install. Clients must trust it explicitly; use real certificates
// (RINGBASE_TLS_CERT/KEY) in production.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config.js';
import { selfSignedPems } from '../../crypto/self-signed.js';

export const TLS_DIR = 'tls';

export async function selfSignedTls(config: Config): Promise<{ cert: Buffer; key: Buffer }> {
  const { dataDir } = config;
  const hostName = config.publicBaseUrl ? new URL(config.publicBaseUrl).hostname : 'localhost';
  const dir = path.join(dataDir, TLS_DIR);
  const certFile = path.join(dir, 'self-signed.crt');
  const keyFile = path.join(dir, 'self-signed.key');
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const pems = await selfSignedPems(hostName, 825);
    // Key first and private from the start: there is never a moment when it is readable by others.
    writeFileSync(keyFile, pems.key, { mode: 0o600 });
    chmodSync(keyFile, 0o600);
    writeFileSync(certFile, pems.cert, { mode: 0o644 });
  }
  return { cert: readFileSync(certFile), key: readFileSync(keyFile) };
}
