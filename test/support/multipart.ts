// A multipart/form-data body for app.inject: text fields first, then at most one part named `file`
// (how the web app and the desk send an attachment with its message).
import { randomUUID } from 'node:crypto';

export interface FilePart {
  name: string;
  type: string;
  data: Buffer;
}

export function multipart(fields: Record<string, string>, file?: FilePart): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----pts${randomUUID()}`;
  const chunks: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`), file.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A PDF attachment part named `name`. */
export const pdfPart = (data: Buffer, name = 'lab.pdf'): FilePart => ({ name, type: 'application/pdf', data });
