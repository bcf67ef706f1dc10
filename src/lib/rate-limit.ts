// Named counters over rate-limiter-flexible: Redis when REDIS_URL is set (shared by every process),
// process memory otherwise (the embedded database serves one process). If Redis is unreachable the
// memory limiter stands in, so an outage degrades to per-process budgets rather than no budgets.
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import { throttled } from '../http/errors.ts';

export interface Budget {
  /** Throws a 429 (with Retry-After) when the key has used its budget; consumes nothing. */
  check(key: string, makeError?: (retryAfterSeconds: number) => Error): Promise<void>;
  /** Counts one event; throws the 429 when that exceeds the budget. */
  consume(key: string, makeError?: (retryAfterSeconds: number) => Error): Promise<void>;
  /** Counts one event without throwing (failed attempts). */
  penalise(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

export interface Limiters {
  budget(name: string, points: number, durationSeconds: number): Budget;
  close(): Promise<void>;
}

export function createLimiters(config: Pick<Config, 'REDIS_URL'>): Limiters {
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false }) : undefined;
  redis?.on('error', () => {
    /* reported by the insurance limiter taking over; reconnects by itself */
  });
  const cache = new Map<string, Budget>();
  return {
    budget(name, points, duration) {
      const id = `${name}:${points}:${duration}`;
      const existing = cache.get(id);
      if (existing) return existing;
      const memory = new RateLimiterMemory({ keyPrefix: `pts:${name}`, points, duration });
      const limiter: RateLimiterAbstract = redis
        ? new RateLimiterRedis({ storeClient: redis, keyPrefix: `pts:${name}`, points, duration, insuranceLimiter: memory })
        : memory;
      const fail = (res: unknown, makeError?: (s: number) => Error) => {
        if (res instanceof RateLimiterRes) {
          const s = res.msBeforeNext / 1000;
          return makeError ? makeError(s) : throttled(s);
        }
        return res as Error;
      };
      const budget: Budget = {
        async check(key, makeError) {
          const res = await limiter.get(key);
          if (res && res.consumedPoints >= points) throw fail(res, makeError);
        },
        async consume(key, makeError) {
          try {
            await limiter.consume(key, 1);
          } catch (res) {
            throw fail(res, makeError);
          }
        },
        async penalise(key) {
          await limiter.penalty(key, 1);
        },
        async reset(key) {
          await limiter.delete(key);
        },
      };
      cache.set(id, budget);
      return budget;
    },
    async close() {
      redis?.disconnect();
    },
  };
}
