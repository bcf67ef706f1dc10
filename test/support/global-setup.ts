// Builds one migrated database per test run; every test file then starts from a copy of it
// (PGlite: a data-dir dump loaded into a fresh instance; PostgreSQL: CREATE DATABASE ... TEMPLATE).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPglite, openPostgres } from '../../src/db/index.ts';
import { migrate } from '../../src/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    pgTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  if (url) {
    const name = `pts_tmpl_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const u = new URL(url);
    u.pathname = `/${name}`;
    const db = await openPostgres(u.toString(), 1);
    await migrate(db);
    await db.close();
    project.provide('pgTemplate', name);
    project.provide('pgliteTemplate', '');
    return async () => {
      // Test databases made from the template are dropped by each file; drop the template last.
      await admin.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
      await admin.end();
    };
  }
  const dir = join(process.cwd(), '.tmp');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `pglite-template-${process.pid}.tar`);
  const db = await openPglite();
  await migrate(db);
  await db.exec('checkpoint');
  const dump = await (db as any).dump();
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await db.close();
  project.provide('pgliteTemplate', file);
  project.provide('pgTemplate', '');
  return () => rmSync(file, { force: true });
}
