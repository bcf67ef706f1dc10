// Name-based UUIDs (RFC 9562 version 5: SHA-1 of a namespace and a name). A record that has no row
// yet (a patient's empty draft, a conversation before its first message) is shown with the id it
// will be stored under, so that reads need not insert anything and the id stays the same.
import { createHash } from 'node:crypto';

/** The version-5 UUID of `name` in `namespace` (itself a UUID). */
export function nameUuid(namespace: string, name: string): string {
  const ns = Buffer.from(namespace.replaceAll('-', ''), 'hex');
  if (ns.length !== 16) throw new Error('namespace must be a UUID');
  const b = createHash('sha1').update(ns).update(name, 'utf8').digest().subarray(0, 16);
  b.writeUInt8((b.readUInt8(6) & 0x0f) | 0x50, 6);
  b.writeUInt8((b.readUInt8(8) & 0x3f) | 0x80, 8);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
