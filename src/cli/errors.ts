// Errors the operator can act on, as one line each: a file that is not there, a server that does not answer,
// a certificate the CLI does not trust. Anything else is still one line, never a stack trace.

const FILE_CODES: Record<string, string> = {
  ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'it is a directory', ENOTDIR: 'a part of the path is not a directory',
};

const TLS_CODES = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_HAS_EXPIRED']);

/** The cause chain's error code (fetch wraps the socket's error in `cause`). */
function codeOf(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (typeof e.code === 'string') return e.code;
  }
  return undefined;
}

export function describeError(err: unknown): string {
  const code = codeOf(err);
  const e = err as { path?: string; message?: string };
  if (code && FILE_CODES[code] && e.path) return `cannot read ${e.path}: ${FILE_CODES[code]}`;
  if (code === 'ECONNREFUSED') return 'the server is not answering at that address (is `npm start` running, and on which port?)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the server\'s host name does not resolve';
  if (code && TLS_CODES.has(code)) {
    return `the server's TLS certificate is not trusted (${code}); for a self-signed development server use its http:// address, or set NODE_EXTRA_CA_CERTS to its certificate (data dir tls/self-signed.crt)`;
  }
  return e.message ?? String(err);
}
