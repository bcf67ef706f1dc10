import { describe, expect, it } from 'vitest';
import { cmsFromContents } from '../src/modules/signing/pades.ts';

describe("a signature's /Contents", () => {
  it('keeps a DER that ends in zero bytes whole and drops only the padding', () => {
    // SEQUENCE { OCTET STRING 01 00 00 }: a signature value ending in two zero bytes, then padding.
    expect(cmsFromContents('30050403010000' + '00'.repeat(20))?.toString('hex')).toBe('30050403010000');
  });

  it('reads long-form lengths', () => {
    const body = '04820100' + 'ab'.repeat(255) + '00';
    const der = `30820104${body}`;
    expect(cmsFromContents(der + '0000')?.toString('hex')).toBe(der);
  });

  it('refuses what is not a whole DER SEQUENCE', () => {
    expect(cmsFromContents('')).toBeNull();
    expect(cmsFromContents('3105040301')).toBeNull();
    expect(cmsFromContents('30050403')).toBeNull();
    expect(cmsFromContents('3085ffffffffff')).toBeNull();
    expect(cmsFromContents('zz')).toBeNull();
  });
});
