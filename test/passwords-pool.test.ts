// argon2 must leave libuv's thread pool threads free for the per-request token checks:
// concurrent hashes and verifies beyond ARGON2_SLOTS wait in a queue, and all of them still finish.
import { describe, expect, it } from 'vitest';
import { ARGON2_SLOTS, argon2Load, hashPassword, verifyPassword } from '../src/modules/accounts/passwords.ts';

describe('argon2 slots', () => {
  it('runs fewer argon2 operations at once than the thread pool has threads', async () => {
    expect(ARGON2_SLOTS).toBeGreaterThanOrEqual(1);
    expect(ARGON2_SLOTS).toBeLessThan(Number(process.env.UV_THREADPOOL_SIZE) || 4);
    const stored = await hashPassword('Quiet-Harbour-Lantern-42');
    let maxRunning = 0;
    let maxWaiting = 0;
    let done = false;
    const sample = async () => {
      while (!done) {
        const load = argon2Load();
        maxRunning = Math.max(maxRunning, load.running);
        maxWaiting = Math.max(maxWaiting, load.waiting);
        await new Promise((r) => setTimeout(r, 1));
      }
    };
    const sampler = sample();
    const results = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => verifyPassword(stored, i % 2 ? 'Quiet-Harbour-Lantern-42' : 'wrong-password')),
      ...Array.from({ length: 2 }, () => hashPassword('another-long-passphrase').then(() => true)),
    ]);
    done = true;
    await sampler;
    expect(results).toEqual([false, true, false, true, false, true, true, true]);
    expect(maxRunning).toBeLessThanOrEqual(ARGON2_SLOTS);
    expect(maxWaiting).toBeGreaterThan(0);
    expect(argon2Load()).toEqual({ running: 0, waiting: 0, slots: ARGON2_SLOTS });
  });
});
