// Named counters over rate-limiter-flexible: Redis when REDIS_URL is set (shared by every process),
// process memory otherwise (the embedded database serves one process). If Redis is unreachable the
// memory limiter stands in, so an outage degrades to per-process budgets rather than no budgets.
// That is logged at error level when it happens (and when Redis returns) and reported by /readyz
// ("degraded") and /metrics, since several processes then each allow the full budget.
import { isIPv6 } from 'node:net';
import { createRequire } from 'node:module';
import type * as IORedis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import { throttled } from './api-error.ts';
import { errorString } from './error-fields.ts';

// ioredis is loaded only with REDIS_URL: the embedded database's start does not pay for it.
const require = createRequire(import.meta.url);
const loadRedis = () => (require('ioredis') as typeof IORedis).Redis;

export interface Budget {
  /** Throws a 429 (with Retry-After) when the key has used its budget; consumes nothing. */
  check(key: string, makeError?: (retryAfterSeconds: number) => Error): Promise<void>;
  /** Counts one event; throws the 429 when that exceeds the budget. */
  consume(key: string, makeError?: (retryAfterSeconds: number) => Error): Promise<void>;
  /** Counts one event without throwing (failed attempts). */
  penalise(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

/** Where the counters live: `memory` (no REDIS_URL), `redis`, or the fallbacks while Redis is not (yet) reachable. */
export type LimiterStore = 'memory' | 'redis' | 'redis_connecting' | 'redis_unreachable';

export interface Limiters {
  budget(name: string, points: number, durationSeconds: number): Budget;
  /** Where the counters live right now. */
  store(): LimiterStore;
  /** Resolves once the first connection to Redis succeeded or failed (at most `timeoutMs`). */
  settled(timeoutMs?: number): Promise<LimiterStore>;
  close(): Promise<void>;
}

type Log = { error: (o: object, m: string) => void; warn: (o: object, m: string) => void };

/** host:port of a Redis URL, never its password. */
function redisTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 6379}`;
  } catch {
    return 'REDIS_URL';
  }
}

/**
 * `config.RATE_LIMIT_KEY_PREFIX` (default `pts:<BRAND_SLUG>` from config.ts; `pts` when not given)
 * starts every key: `<prefix>:<budget>:<key>`, so deployments sharing one Redis keep apart budgets.
 */
export function createLimiters(config: Partial<Pick<Config, 'REDIS_URL' | 'RATE_LIMIT_KEY_PREFIX'>>, log?: Log): Limiters {
  const prefix = config.RATE_LIMIT_KEY_PREFIX ?? 'pts';
  const redis = config.REDIS_URL ? new (loadRedis())(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false }) : undefined;
  let store: LimiterStore = redis ? 'redis_connecting' : 'memory';
  const settledWaiters: Array<() => void> = [];
  const settle = (next: LimiterStore) => {
    store = next;
    for (const wake of settledWaiters.splice(0)) wake();
  };
  const target = config.REDIS_URL ? redisTarget(config.REDIS_URL) : '';
  redis?.on('ready', () => {
    if (store === 'redis_unreachable') log?.warn({ redis: target }, 'Redis reachable again: rate-limit budgets are shared by every process again');
    settle('redis');
  });
  redis?.on('error', (err: unknown) => {
    // The insurance limiter takes over at once; ioredis reconnects by itself. Logged once per outage.
    if (store !== 'redis_unreachable') {
      log?.error(
        { redis: target, code: errorString(err, 'code') },
        'REDIS_URL unreachable: rate-limit budgets fall back to per-process memory (each process allows the full budget) until Redis returns',
      );
    }
    settle('redis_unreachable');
  });
  const cache = new Map<string, Budget>();
  return {
    budget(name, points, duration) {
      const id = `${name}:${points}:${duration}`;
      const existing = cache.get(id);
      if (existing) return existing;
      const memory = new RateLimiterMemory({ keyPrefix: `${prefix}:${name}`, points, duration });
      const limiter: RateLimiterAbstract = redis
        ? new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:${name}`, points, duration, insuranceLimiter: memory })
        : memory;
      const fail = (res: unknown, makeError?: (s: number) => Error) => {
        if (res instanceof RateLimiterRes) {
          const s = res.msBeforeNext / 1000;
          return makeError ? makeError(s) : throttled(s);
        }
        return res as Error;
      };
      const budget: Budget = {
        async check(raw, makeError) {
          const key = addressKey(raw);
          const res = await limiter.get(key);
          if (res && res.consumedPoints >= points) throw fail(res, makeError);
        },
        async consume(raw, makeError) {
          try {
            await limiter.consume(addressKey(raw), 1);
          } catch (res) {
            throw fail(res, makeError);
          }
        },
        async penalise(raw) {
          await limiter.penalty(addressKey(raw), 1);
        },
        async reset(raw) {
          await limiter.delete(addressKey(raw));
        },
      };
      cache.set(id, budget);
      return budget;
    },
    store: () => store,
    settled(timeoutMs = 2000) {
      if (store !== 'redis_connecting') return Promise.resolve(store);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(store), timeoutMs);
        settledWaiters.push(() => {
          clearTimeout(timer);
          resolve(store);
        });
      });
    },
    close() {
      redis?.disconnect();
      return Promise.resolve();
    },
  };
}

/**
 * A budget key that is an IPv6 address stands for its /64: one subscriber usually holds a whole /64,
 * so rotating addresses within it must not give fresh budgets. IPv4 (and IPv4-mapped
 * IPv6) addresses and every other key are kept as they are.
 */
export function addressKey(key: string): string {
  if (isIPv6(key) && !/^::ffff:\d/i.test(key)) {
    const [head = '', tail = ''] = key.toLowerCase().split('%')[0]!.split('::');
    const left = head ? head.split(':') : [];
    const right = tail ? tail.split(':') : [];
    const groups = key.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
    return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
  }
  return key;
}
