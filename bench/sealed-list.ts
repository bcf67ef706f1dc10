// Quick measure of the consultation list with sealed answers (docs/performance.md): one
// account with 20 consultations (a page) whose form snapshots are plaintext (as before migration 1010)
// then sealed (after the start-up pass); median of the list call (statement + decrypt + serialise).
// `npx tsx bench/sealed-list.ts` on an embedded database in memory.
import { randomBytes } from 'node:crypto';
import { openPglite } from '../src/db/index.ts';
import { migrate } from '../src/db/migrate.ts';
import { bindDataKeys } from '../src/lib/sealed.ts';
import { sealPlaintextRows } from '../src/lib/sealed-columns.repository.ts';
import type { Deps } from '../src/deps.ts';
import { keyRing } from '../src/lib/keys.ts';
import { listForUser } from '../src/modules/consultations/repository.ts';

const db = await openPglite();
await migrate(db);
const keys = keyRing([{ id: 'bench', key: randomBytes(32) }]);
bindDataKeys(db, keys);
const [u] = await db.query<{ id: string }>("insert into users (email, first_name, last_name, referral_code) values ('bench@example.org', 'B', 'C', 'BENCH1') returning id");
const answers = Array.from({ length: 25 }, (_, i) => ({ step_id: 1 + (i % 4), question_key: `q_${i}`, value: i % 3 ? 'some answer text' : i }));
for (let i = 0; i < 20; i++) {
  await db.query("insert into consultations (user_id, category, plan, form_snapshot) values ($1, 'weight_loss', 'one_off', $2::jsonb)", [u!.id, JSON.stringify(answers)]);
}
const deps = { config: { PUBLIC_BASE_URL: 'http://bench' }, secrets: { documentKeys: keys } } as unknown as Deps;

async function median(label: string) {
  for (let i = 0; i < 50; i++) await listForUser(db, deps, u!.id, 20, 0);
  const times: number[] = [];
  for (let i = 0; i < 400; i++) {
    const t = performance.now();
    await listForUser(db, deps, u!.id, 20, 0);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`${label}: median ${times[200]!.toFixed(2)} ms, p95 ${times[380]!.toFixed(2)} ms (page of 20, 25 answers each)`);
}
await median('plaintext form_snapshot (before)');
await sealPlaintextRows(db);
await median('sealed form_snapshot (after)');
await db.close();
