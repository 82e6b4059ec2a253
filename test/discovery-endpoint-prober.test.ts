// The endpoint prober against real local servers: plain HTTP, HTTPS with self-signed, expired,
// wrong-host and trusted certificates (made with the openssl CLI), a closed port and a TCP
// server that never answers the TLS handshake.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeEndpoint, probeEndpoints } from '../workers/discovery/endpoint-prober.ts';

interface Pki {
  ca: string;
  selfSigned: { key: string; cert: string };
  trusted: { key: string; cert: string };
  wrongHost: { key: string; cert: string };
  expired: { key: string; cert: string };
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

// A CA, and leaf certificates signed by it for the right host, a wrong host and in the past.
async function makePki(dir: string): Promise<Pki> {
  const sans = 'subjectAltName=DNS:localhost,IP:127.0.0.1';
  openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'self.key', '-out', 'self.pem', '-days', '2', '-subj', '/CN=localhost', '-addext', sans);
  openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Probe Test CA');
  const leaf = async (name: string, cn: string, san: string, days: string): Promise<{ key: string; cert: string }> => {
    await writeFile(path.join(dir, `${name}.ext`), `${san}\n`);
    openssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', days, '-extfile', `${name}.ext`);
    return { key: await readFile(path.join(dir, `${name}.key`), 'utf8'), cert: await readFile(path.join(dir, `${name}.pem`), 'utf8') };
  };
  return {
    ca: await readFile(path.join(dir, 'ca.pem'), 'utf8'),
    selfSigned: { key: await readFile(path.join(dir, 'self.key'), 'utf8'), cert: await readFile(path.join(dir, 'self.pem'), 'utf8') },
    trusted: await leaf('trusted', 'localhost', sans, '2'),
    wrongHost: await leaf('wrong', 'other.example', 'subjectAltName=DNS:other.example', '2'),
    // -days -1: not after one day before now, so the certificate is already expired.
    expired: await leaf('expired', 'localhost', sans, '-1'),
  };
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

describe('endpoint prober', () => {
  let dir: string;
  let pki: Pki;
  const servers: net.Server[] = [];
  const sockets = new Set<net.Socket>();
  const ports: Record<string, number> = {};

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'probe-pki-'));
    pki = await makePki(dir);
    const answer = (_req: http.IncomingMessage, res: http.ServerResponse): void => {
      res.writeHead(204).end();
    };
    const start = async (name: string, server: net.Server): Promise<void> => {
      server.on('connection', (s: net.Socket) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      servers.push(server);
      ports[name] = await listen(server);
    };
    await start('http', http.createServer(answer));
    await start('selfSigned', https.createServer(pki.selfSigned, answer));
    await start('trusted', https.createServer(pki.trusted, answer));
    await start('wrongHost', https.createServer(pki.wrongHost, answer));
    await start('expired', https.createServer(pki.expired, answer));
    // Accepts TCP and then stays silent: a TLS client waits for a ServerHello that never comes.
    await start('silent', net.createServer(() => {}));
    const closed = net.createServer();
    ports.closed = await listen(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
  }, 60_000);

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await rm(dir, { recursive: true, force: true });
  });

  it('reports a closed port as unreachable', async () => {
    const r = await probeEndpoint(`http://127.0.0.1:${ports.closed}/`, { timeoutMs: 2000 });
    expect(r).toMatchObject({ reachable: false, tls_valid: null, error: 'ECONNREFUSED' });
    expect(r.status_code).toBeUndefined();
  });

  it('reaches a plain HTTP server, with tls_valid null and its status code', async () => {
    const r = await probeEndpoint(`http://127.0.0.1:${ports.http}/health`, { timeoutMs: 2000 });
    expect(r).toMatchObject({ reachable: true, tls_valid: null, status_code: 204 });
    expect(r.error).toBeUndefined();
    expect(r.latency_ms).toBeGreaterThanOrEqual(0);
    expect(r.latency_ms).toBeLessThan(2000);
  });

  it('reaches an HTTPS server with a self-signed certificate and reports the TLS invalid', async () => {
    const r = await probeEndpoint(`https://127.0.0.1:${ports.selfSigned}/`, { timeoutMs: 2000 });
    expect(r).toMatchObject({ reachable: true, tls_valid: false, status_code: 204, tls_error: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
  });

  it('accepts a certificate from a trusted CA and rejects a wrong host name or an expired one', async () => {
    const ca = pki.ca;
    const trusted = await probeEndpoint(`https://localhost:${ports.trusted}/`, { timeoutMs: 2000, ca });
    expect(trusted).toMatchObject({ reachable: true, tls_valid: true, status_code: 204 });
    expect(trusted.tls_error).toBeUndefined();
    // The same server without the CA: Node's default store does not know it.
    const unknownCa = await probeEndpoint(`https://localhost:${ports.trusted}/`, { timeoutMs: 2000 });
    expect(unknownCa).toMatchObject({ reachable: true, tls_valid: false });
    const wrongHost = await probeEndpoint(`https://localhost:${ports.wrongHost}/`, { timeoutMs: 2000, ca });
    expect(wrongHost).toMatchObject({ reachable: true, tls_valid: false, tls_error: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    const expired = await probeEndpoint(`https://localhost:${ports.expired}/`, { timeoutMs: 2000, ca });
    expect(expired).toMatchObject({ reachable: true, tls_valid: false, tls_error: 'CERT_HAS_EXPIRED' });
  });

  it('times out within the timeout on a server that never answers the TLS handshake', async () => {
    const started = performance.now();
    const r = await probeEndpoint(`https://127.0.0.1:${ports.silent}/`, { timeoutMs: 300 });
    const took = performance.now() - started;
    expect(r).toMatchObject({ reachable: false, tls_valid: null, error: 'timeout' });
    expect(r.latency_ms).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1500);
  });

  it('rejects what is not an http(s) URL without connecting', async () => {
    expect(await probeEndpoint('not a url', { timeoutMs: 500 })).toEqual({ reachable: false, tls_valid: null, error: 'invalid_url', latency_ms: 0 });
    expect(await probeEndpoint('ftp://127.0.0.1/', { timeoutMs: 500 })).toMatchObject({ reachable: false, error: 'unsupported_protocol' });
  });

  it('probes many URLs with bounded concurrency and keeps their order', async () => {
    const urls = [
      `https://127.0.0.1:${ports.silent}/`,
      `http://127.0.0.1:${ports.http}/`,
      `https://127.0.0.1:${ports.silent}/again`,
      `http://127.0.0.1:${ports.closed}/`,
      `https://127.0.0.1:${ports.selfSigned}/`,
    ];
    const started = performance.now();
    const results = await probeEndpoints(urls, { concurrency: 2, timeoutMs: 400 });
    const took = performance.now() - started;
    expect(results.map((r) => r.url)).toEqual(urls);
    expect(results.map((r) => [r.reachable, r.tls_valid, r.error ?? null])).toEqual([
      [false, null, 'timeout'],
      [true, null, null],
      [false, null, 'timeout'],
      [false, null, 'ECONNREFUSED'],
      [true, false, null],
    ]);
    // Two silent endpoints in two lanes overlap: one timeout period, not two in a row.
    expect(took).toBeLessThan(790);
  });
});
