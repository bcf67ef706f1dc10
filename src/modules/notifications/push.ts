// Web push (RFC 8030) with VAPID (RFC 8292) and aes128gcm payloads (RFC 8291). web-push builds the
// encrypted request; this file sends it, because the service POSTs to a URL a client gave it:
// only to the push services PUSH_ENDPOINT_HOSTS names, over https, to public addresses (checked on
// the address the connection really uses, so a name that resolves to a private address is refused
// too), with a timeout. A test push service on loopback is reachable only through
// PUSH_INSECURE_TEST_HOSTS (refused with NODE_ENV=production).
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';
import type { Config } from '../../config.ts';

type PushConfig = Pick<Config, 'PUSH_ENDPOINT_HOSTS' | 'PUSH_INSECURE_TEST_HOSTS' | 'PUSH_TIMEOUT_MS'>;

// Addresses a push service never has: private, loopback, link-local, shared, reserved, multicast
// (IANA special-purpose registries for IPv4 and IPv6).
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24],
  ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32]] as const) PRIVATE.addSubnet(net, bits, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
    return PRIVATE.check(address, 'ipv6');
  }
  return true;
}

const hostAllowed = (host: string, allowed: readonly string[]) =>
  allowed.some((entry) => (entry.startsWith('*.') ? host.endsWith(entry.slice(1)) && host.length > entry.length - 1 : host === entry));

const isTestHost = (host: string, config: PushConfig) => config.PUSH_INSECURE_TEST_HOSTS.some((h) => h.toLowerCase() === host);

/** Why an endpoint is refused (a message for the `endpoint` field), or null when it may be used. */
export function endpointProblem(endpoint: string, config: PushConfig): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'Must be a URL.';
  }
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (url.username || url.password) return 'Must not carry credentials.';
  if (!hostAllowed(host, config.PUSH_ENDPOINT_HOSTS)) return 'Must be a push service of a supported browser.';
  const test = isTestHost(host, config);
  if (url.protocol !== 'https:' && !(test && url.protocol === 'http:')) return 'Must be an https URL.';
  if (isIP(host) && isPrivateAddress(host) && !test) return 'Must be a public address.';
  return null;
}

/** A DNS lookup that refuses private addresses (unless the host is a test host). */
function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const bad = addresses.find((a) => isPrivateAddress(a.address));
      if (bad && !allowPrivate) {
        const refused: NodeJS.ErrnoException = new Error('push endpoint resolves to a private address');
        refused.code = 'EPRIVATEADDRESS';
        return callback(refused, '', 0);
      }
      if ((options as LookupAllOptions).all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}

export interface PushRequest {
  endpoint: string;
  headers: Record<string, string | number>;
  body: Buffer;
}

/** The push service's status code, or a thrown error for a refused endpoint, a network failure or a timeout. */
export function postPush(request: PushRequest, config: PushConfig): Promise<number> {
  const problem = endpointProblem(request.endpoint, config);
  if (problem) return Promise.reject(Object.assign(new Error(`push endpoint refused: ${problem}`), { code: 'EENDPOINT' }));
  const url = new URL(request.endpoint);
  const test = isTestHost(url.hostname.toLowerCase(), config);
  const client = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      { method: 'POST', headers: request.headers, timeout: config.PUSH_TIMEOUT_MS, lookup: guardedLookup(test) },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('push service timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end(request.body);
  });
}
