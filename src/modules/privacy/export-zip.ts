// The zip variant of the data export (GET /v1/users/me/export/?format=zip, docs/privacy.md): the
// same export.json as the JSON variant, plus a `files` index, and the account's files themselves —
// message attachments, invoices, prescriptions and letters to the patient's own doctor as PDF — made by the same code as their download
// routes. Every file is read for the signed-in account only (each helper puts its id in the SQL).
import { zipSync, type Zippable } from 'fflate';
import type { Deps } from '../../deps.ts';
import { errorSummary } from '../../lib/error-fields.ts';
import { prescriptionFile } from '../fulfilment/index.ts';
import { patientFile } from '../messages/index.ts';
import { invoiceFile } from '../payments/index.ts';
import { verificationFilesOfAccount } from '../verification/index.ts';
import { photosOfAccountForExport } from '../photos/index.ts';
import { gpLetterFilesForExport } from '../interop/index.ts';
import { exportAccount } from './service.ts';

export interface ZipFileEntry {
  path: string;
  type: 'attachment' | 'invoice' | 'prescription' | 'verification_image' | 'clinical_photo' | 'gp_letter';
  /** The record the file belongs to: the message, payment or prescription id, or the photo's or verification's own. */
  id: string;
}

const safeName = (name: string) => name.replace(/[^A-Za-z0-9._-]/g, '_');

/** The account's export as a zip archive (export.json first, then the files, stored uncompressed). */
export async function exportAccountZip(deps: Deps, userId: string): Promise<{ data: Buffer; exportedAt: string }> {
  const data = await exportAccount(deps, userId);
  const files: Zippable = {};
  const index: ZipFileEntry[] = [];
  const add = (type: ZipFileEntry['type'], id: string, folder: string, name: string, bytes: Uint8Array) => {
    const path = `${folder}/${safeName(name)}`;
    files[path] = [bytes, { level: 0 }];
    index.push({ path, type, id });
  };

  for (const conv of data.conversations) {
    const messages = Array.isArray(conv.messages) ? (conv.messages as { id: string; file_id?: string | null }[]) : [];
    for (const m of messages) {
      if (!m.file_id) continue;
      try {
        const f = await patientFile(deps, userId, String(conv.id), m.id);
        add('attachment', m.id, 'attachments', `${m.id}-${f.name}`, f.data);
      } catch (err) {
        // A file the store no longer holds is left out (export.json still lists its message).
        deps.log.warn({ err: errorSummary(err), message: m.id }, 'export: a message file could not be read');
      }
    }
  }
  for (const p of data.payments) {
    const f = await invoiceFile(deps.db, deps.config, userId, p.id);
    if (f) add('invoice', p.id, 'invoices', f.name, f.data);
  }
  for (const rx of data.prescriptions) {
    const f = await prescriptionFile(deps.db, deps.config, userId, rx.id);
    if (f) add('prescription', rx.id, 'prescriptions', f.name, f.data);
  }
  for (const f of await gpLetterFilesForExport(deps, deps.db, userId)) add('gp_letter', f.id, 'gp-letters', f.name, f.data);
  await addClinicalPhotos(deps, userId, add);

  await addVerificationImages(deps, userId, (id, path, bytes) => {
    files[path] = [bytes, { level: 0 }];
    index.push({ path, type: 'verification_image', id });
  });

  const json = Buffer.from(JSON.stringify({ ...data, files: index }, null, 2));
  const zip = zipSync({ 'export.json': [json, { level: 6 }], ...files });
  return { data: Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength), exportedAt: data.exported_at };
}

/** The ID photos, selfies and photos on the scales of the account (verification/...jpg). */
async function addVerificationImages(deps: Deps, userId: string, add: (id: string, path: string, bytes: Uint8Array) => void): Promise<void> {
  for (const f of await verificationFilesOfAccount(deps, userId)) add(f.id, f.path, f.data);
}

/** The account's clinical photos as `photos/<id>.jpg` (the re-encoded JPEG, as served). */
async function addClinicalPhotos(deps: Deps, userId: string, add: (type: ZipFileEntry['type'], id: string, folder: string, name: string, bytes: Uint8Array) => void) {
  for (const p of await photosOfAccountForExport(deps, userId)) {
    try {
      add('clinical_photo', p.record.id, 'photos', `${p.record.id}.jpg`, await p.read());
    } catch (err) {
      // A photo the store no longer holds is left out (export.json still lists it).
      deps.log.warn({ err: errorSummary(err), photo: p.record.id }, 'export: a clinical photo could not be read');
    }
  }
}
