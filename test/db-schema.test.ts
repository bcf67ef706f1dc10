// The committed table types (src/db/schema.ts) must be exactly what the migrations produce: a
// migration without `npm run db:types` fails here instead of leaving the typed layer wrong.
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { SCHEMA_FILE, generateFromMigrations } from '../scripts/db-types.ts';

// It builds its own embedded database from the migrations and never reads DATABASE_URL: the
// PostgreSQL pass of CI would repeat it to the letter.
test.runIf(!process.env.DATABASE_URL)('src/db/schema.ts matches the migrations (run `npm run db:types` after a migration)', async () => {
  expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(await generateFromMigrations());
}, 60_000);
