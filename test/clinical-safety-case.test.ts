// The clinical safety case stays current: every hazard of docs/clinical-safety/hazard-log.md names the
// tests that prove its control, and each named test file and test must exist (a renamed or deleted
// test fails here until the log is updated).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const LOG = join(ROOT, 'docs/clinical-safety/hazard-log.md');

interface Row { id: string; hazard: string; cause: string; control: string; test: string; residual: string }

/** The hazard table's rows (a markdown table: ID, Hazard, Cause, Control, Test, Residual risk). */
function hazardRows(text: string): Row[] {
  const lines = text.split('\n').filter((l) => l.startsWith('| H-'));
  return lines.map((l) => {
    const cells = l.slice(1, l.trimEnd().endsWith('|') ? l.trimEnd().length - 1 : undefined).split(' | ').map((c) => c.trim());
    const [id = '', hazard = '', cause = '', control = '', test = '', residual = ''] = cells;
    if (cells.length !== 6) throw new Error(`${id || l.slice(0, 20)}: ${cells.length} columns, expected 6`);
    return { id, hazard, cause, control, test, residual };
  });
}

/** The tests a row names: `test/file.test.ts` alone, or followed by ` › "test name"` (quotes inside escaped as \"). */
function namedTests(cell: string): { file: string; name: string | null }[] {
  return cell.split(/;\s*(?=test\/)/).map((part) => {
    const m = /^(test\/[\w./-]+\.test\.ts)(?:\s*›\s*"((?:[^"\\]|\\.)+)")?$/.exec(part.trim());
    if (!m) throw new Error(`not a test reference: ${part}`);
    return { file: m[1]!, name: m[2] ? m[2].replace(/\\"/g, '"') : null };
  });
}

describe('the hazard log', () => {
  const rows = hazardRows(readFileSync(LOG, 'utf8'));

  it('has the engine’s and the detector’s hazards, each id once, every column filled', () => {
    expect(rows.length).toBeGreaterThanOrEqual(12);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    expect(rows.some((r) => r.id.startsWith('H-E'))).toBe(true);
    // The detector's known hazards: a missed emergency and a false alarm.
    expect(rows.filter((r) => r.id.startsWith('H-D')).map((r) => r.hazard).join(' ')).toMatch(/missed emergency[\s\S]*false alarm/i);
    for (const r of rows) for (const [k, v] of Object.entries(r)) expect(v.length, `${r.id} ${k}`).toBeGreaterThan(1);
  });

  it('every named test file exists and every named test is in it', () => {
    const missing: string[] = [];
    for (const r of rows) {
      for (const t of namedTests(r.test)) {
        const path = join(ROOT, t.file);
        if (!existsSync(path)) missing.push(`${r.id}: ${t.file} does not exist`);
        else if (t.name !== null && !readFileSync(path, 'utf8').includes(t.name)) missing.push(`${r.id}: ${t.file} has no test "${t.name}"`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('the parser refuses what it cannot read and finds a missing test', () => {
    expect(() => namedTests('see the tests')).toThrow(/not a test reference/);
    expect(() => hazardRows('| H-X1 | a | b |')).toThrow(/columns/);
    const [ref] = namedTests('test/engine.test.ts › "no such test anywhere"');
    expect(readFileSync(join(ROOT, ref!.file), 'utf8').includes(ref!.name!)).toBe(false);
  });

  it('the intended purpose names both pieces of software and the MDR rule', () => {
    const readme = readFileSync(join(ROOT, 'docs/clinical-safety/README.md'), 'utf8');
    expect(readme).toMatch(/eligibility engine/);
    expect(readme).toMatch(/red-flag detector/);
    expect(readme).toMatch(/Rule 11/);
  });
});
