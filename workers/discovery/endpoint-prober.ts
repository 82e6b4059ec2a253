// Reachability and TLS probe of agents' endpoint URLs (`endpoints` discovery scanner). Pure:
// it opens connections and reports; storing probe_reachable / probe_tls_valid is the caller's.
//
// What the answer means:
// - reachable: a connection could be made: TCP for http, TCP + a completed TLS handshake for
//   https, even when the certificate is not valid. An HTTP answer is not required (a server
//   that accepts and then says nothing is reachable, with error `timeout`).
// - tls_valid: for https, whether the certificate chain and host name pass Node's default
//   verification (its CA store, plus `ca` when given); null for http and when no handshake
//   completed. The reason of a failure is in tls_error (DEPTH_ZERO_SELF_SIGNED_CERT,
//   CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID, ...).
// - The probe sends one HEAD request, follows no redirect and reads no body. timeoutMs bounds
//   everything, DNS included; latency_ms is the time until the probe ended (answer, failure or
//   timeout).
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface ProbeOptions {
  timeoutMs: number;
  /** Extra trusted CA certificates (PEM), for endpoints behind a private PKI. */
  ca?: string | Buffer | Array<string | Buffer>;
}

export interface ProbeResult {
  reachable: boolean;
  tls_valid: boolean | null;
  status_code?: number;
  /** Why the probe did not get an answer: `timeout`, `invalid_url`, `unsupported_protocol`, or a Node error code (ECONNREFUSED, ENOTFOUND, ...). */
  error?: string;
  /** Why the certificate is not valid, when tls_valid is false. */
  tls_error?: string;
  latency_ms: number;
}

export interface EndpointProbeResult extends ProbeResult {
  url: string;
}

export interface ProbeManyOptions extends ProbeOptions {
  /** Probes in flight at once (default 8). */
  concurrency?: number;
}

const USER_AGENT = 'agent-operations-registry-probe/1';

function errorCode(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code ?? e?.message ?? String(err);
}

export function probeEndpoint(url: string, options: ProbeOptions): Promise<ProbeResult> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ reachable: false, tls_valid: null, error: 'invalid_url', latency_ms: 0 });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return Promise.resolve({ reachable: false, tls_valid: null, error: 'unsupported_protocol', latency_ms: 0 });
  }
  const secure = target.protocol === 'https:';

  return new Promise((resolve) => {
    let connected = false;
    let tlsValid: boolean | null = null;
    let tlsError: string | undefined;
    let settled = false;

    const finish = (outcome: { status_code?: number; error?: string }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      const result: ProbeResult = { reachable: connected, tls_valid: secure ? tlsValid : null, latency_ms: elapsed() };
      if (outcome.status_code !== undefined) result.status_code = outcome.status_code;
      if (outcome.error !== undefined) result.error = outcome.error;
      if (tlsError !== undefined) result.tls_error = tlsError;
      resolve(result);
    };

    // agent: false gives a fresh socket per probe, so its connect events are ours to observe.
    // rejectUnauthorized: false keeps the connection when the certificate is bad: Node still
    // runs the full verification (chain and host name) and records it on the socket.
    const requestOptions: https.RequestOptions = {
      method: 'HEAD',
      agent: false,
      headers: { 'user-agent': USER_AGENT, connection: 'close' },
      ...(secure ? { rejectUnauthorized: false, ...(options.ca ? { ca: options.ca } : {}) } : {}),
    };
    const req = (secure ? https : http).request(target, requestOptions);
    req.on('socket', (socket: Socket) => {
      if (secure) {
        socket.once('secureConnect', () => {
          const tlsSocket = socket as TLSSocket;
          connected = true;
          tlsValid = tlsSocket.authorized;
          if (!tlsSocket.authorized) tlsError = String(tlsSocket.authorizationError);
        });
      } else {
        socket.once('connect', () => {
          connected = true;
        });
      }
    });
    req.on('response', (res) => {
      res.resume();
      finish({ status_code: res.statusCode });
    });
    req.on('error', (err) => finish({ error: errorCode(err) }));
    const timer = setTimeout(() => finish({ error: 'timeout' }), options.timeoutMs);
    req.end();
  });
}

/** Probes every URL, `concurrency` at a time; results in the order of `urls`. */
export async function probeEndpoints(urls: string[], options: ProbeManyOptions): Promise<EndpointProbeResult[]> {
  const results: EndpointProbeResult[] = new Array(urls.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < urls.length) {
      const i = next++;
      const url = urls[i]!;
      results[i] = { url, ...(await probeEndpoint(url, options)) };
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? 8, urls.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}
