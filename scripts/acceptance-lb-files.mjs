// Run by scripts/acceptance-lb.sh after the acceptance suite: the case the suite lacks for several
// processes, an attachment uploaded through one process and downloaded through the other (
// it answered 500 while files were kept on the disk of the process that took them). Talks to each
// process directly (PROCESS_URLS="http://a http://b"), with a patient made through the load balancer
// by the acceptance suite's own helpers (ACCEPTANCE_LIB: path of ../shared/acceptance/cases/lib.mjs).
/* global fetch, FormData -- Node 20's built-in fetch API */
import assert from 'node:assert/strict';
import { Blob, Buffer } from 'node:buffer';
import { randomBytes, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { pathToFileURL, URL } from 'node:url';

const { newPatient } = await import(pathToFileURL(process.env.ACCEPTANCE_LIB).href);
const [a, b] = (process.env.PROCESS_URLS ?? '').split(' ').filter(Boolean);
assert.ok(a && b, 'PROCESS_URLS names two processes');

const pdf = () => Buffer.concat([Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n'), randomBytes(32 * 1024), Buffer.from('\n%%EOF\n')]);

async function upload(base, token, data) {
  const headers = { authorization: `Bearer ${token}` };
  const list = await (await fetch(`${base}/v1/users/conversations/`, { headers })).json();
  const form = new FormData();
  form.append('content', `lab results ${randomUUID()}`);
  form.append('file', new Blob([data], { type: 'application/pdf' }), 'lab.pdf');
  const res = await fetch(`${base}/v1/users/conversations/${list.results[0].id}/messages/`, { method: 'POST', headers, body: form });
  assert.equal(res.status, 201, await res.clone().text());
  return new URL((await res.json()).last_message.file).pathname;
}

async function download(base, token, path) {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get('content-type'), data: Buffer.from(await res.arrayBuffer()) };
}

test('an attachment uploaded through one process downloads through the other, both ways', async () => {
  const p = await newPatient('lbfiles');
  for (const [from, to] of [[a, b], [b, a]]) {
    const data = pdf();
    const path = await upload(from, p.access, data);
    const dl = await download(to, p.access, path);
    assert.equal(dl.status, 200, `uploaded through ${from}, downloaded through ${to}`);
    assert.equal(dl.type, 'application/pdf');
    assert.ok(dl.data.equals(data), 'the same bytes');
  }
});
