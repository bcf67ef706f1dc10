// Message attachments: type by magic bytes (never by name or declared type), metadata stripped from
// images. Where the bytes are kept: ./file-stores.ts.
import { fileTypeFromBuffer } from 'file-type';

export const MAX_FILE_BYTES = 10 * 1024 * 1024;

const ALLOWED: Record<string, string> = {
  'application/pdf': 'pdf',
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/heic': 'heic',
  'image/heif': 'heif',
};

export interface DetectedFile {
  contentType: string;
  extension: string;
}

/** The file's real type from its first bytes, or undefined when it is not an allowed type. */
export async function detectAllowedType(buf: Buffer): Promise<DetectedFile | undefined> {
  const t = await fileTypeFromBuffer(buf);
  const extension = t ? ALLOWED[t.mime] : undefined;
  return t && extension ? { contentType: t.mime, extension } : undefined;
}

/**
 * JPEG: drops APP1 (Exif, XMP), APP13 (IPTC) and COM segments; everything from the start of scan on
 * is copied unchanged. A malformed file is returned as it is (its type was already checked).
 */
export function stripJpegMetadata(buf: Buffer): Buffer {
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return buf;
  const parts: Buffer[] = [buf.subarray(0, 2)];
  let i = 2;
  while (i + 4 <= buf.length) {
    if (buf[i] !== 0xff) return buf;
    const marker = buf[i + 1];
    if (marker === 0xda) {
      parts.push(buf.subarray(i));
      return Buffer.concat(parts);
    }
    if (marker === 0xd9) break;
    const length = buf.readUInt16BE(i + 2);
    if (length < 2 || i + 2 + length > buf.length) return buf;
    const drop = marker === 0xe1 || marker === 0xed || marker === 0xfe;
    if (!drop) parts.push(buf.subarray(i, i + 2 + length));
    i += 2 + length;
  }
  parts.push(buf.subarray(i));
  return Buffer.concat(parts);
}

/** PNG: drops eXIf, tEXt, zTXt, iTXt and tIME chunks (the others keep their own CRCs). */
export function stripPngMetadata(buf: Buffer): Buffer {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (buf.length < 8 || !buf.subarray(0, 8).equals(signature)) return buf;
  const parts: Buffer[] = [signature];
  let i = 8;
  while (i + 12 <= buf.length) {
    const length = buf.readUInt32BE(i);
    const type = buf.toString('latin1', i + 4, i + 8);
    const end = i + 12 + length;
    if (end > buf.length) return buf;
    if (!['eXIf', 'tEXt', 'zTXt', 'iTXt', 'tIME'].includes(type)) parts.push(buf.subarray(i, end));
    i = end;
    if (type === 'IEND') break;
  }
  return Buffer.concat(parts);
}

export function stripMetadata(buf: Buffer, contentType: string): Buffer {
  if (contentType === 'image/jpeg') return stripJpegMetadata(buf);
  if (contentType === 'image/png') return stripPngMetadata(buf);
  return buf; // PDF and HEIC are stored as sent (no maintained HEIC rewriter for Node; docs/messages.md)
}
