// Budget keys: an IPv6 client is one /64, so rotating within it gives no fresh budget.
import { describe, expect, it } from 'vitest';
import { addressKey, createLimiters } from '../src/lib/rate-limit.ts';

describe('address keys', () => {
  it('keys IPv6 addresses by their /64 and leaves IPv4 and other keys alone', () => {
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::9')).toBe('2001:db8:1:3::/64');
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('::ffff:203.0.113.7');
    expect(addressKey('ada@example.org')).toBe('ada@example.org');
  });

  it('one budget for every address of a /64, a separate one for the next /64', async () => {
    const limiters = createLimiters({});
    const budget = limiters.budget('test-v6', 2, 60);
    await budget.consume('2001:db8:1:2::1');
    await budget.consume('2001:db8:1:2:aaaa::2');
    await expect(budget.consume('2001:db8:1:2:ffff:ffff:ffff:ffff')).rejects.toMatchObject({ status: 429 });
    await expect(budget.consume('2001:db8:1:3::1')).resolves.toBeUndefined();
  });
});
