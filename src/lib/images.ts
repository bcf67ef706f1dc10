// Patient photos (clinical photos, identity documents, a photo on the scales): accepted by their
// content, never by name or declared type, and re-encoded before anything keeps them. Re-encoding
// (rather than deleting known metadata blocks) is what guarantees that no EXIF, GPS, XMP, IPTC or
// maker note survives, whatever the camera wrote; it also turns a HEIC or WebP from a phone into a
// JPEG every browser on the desk can show, and it bounds the pixels a decoder will touch, so a
// "decompression bomb" is refused before it is decoded whole.
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';

/** What a patient may upload as a photo (by magic bytes). */
export const ACCEPTED_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif'] as const;
/** Largest upload, before re-encoding. */
export const MAX_IMAGE_BYTES = 15 * 1024 * 1024;
/** Largest picture a decoder is allowed to open (a 48-megapixel phone camera is 8000 x 6000). */
export const MAX_IMAGE_PIXELS = 50_000_000;
/** The longest side kept: enough to read a scale or a hairline, small enough for the desk. */
export const MAX_KEPT_SIDE = 3000;

export type ImageRejection = 'unsupported_type' | 'too_large' | 'unreadable';

export class ImageRejectedError extends Error {
  constructor(readonly reason: ImageRejection) {
    super(`image rejected: ${reason}`);
    this.name = 'ImageRejectedError';
  }
}

export interface SanitisedImage {
  /** Always a baseline JPEG without any metadata block. */
  data: Buffer;
  contentType: 'image/jpeg';
  width: number;
  height: number;
}

/**
 * Sniffs, decodes and re-encodes a photo. Throws ImageRejectedError for anything that is not one of
 * ACCEPTED_IMAGE_TYPES, is over MAX_IMAGE_BYTES or MAX_IMAGE_PIXELS, or cannot be decoded (a HEIC
 * whose codec this build of libvips lacks is "unreadable", never stored as it came).
 */
export async function sanitiseImage(input: Buffer): Promise<SanitisedImage> {
  if (input.length > MAX_IMAGE_BYTES) throw new ImageRejectedError('too_large');
  const detected = await fileTypeFromBuffer(input);
  if (!detected || !(ACCEPTED_IMAGE_TYPES as readonly string[]).includes(detected.mime)) {
    throw new ImageRejectedError('unsupported_type');
  }
  try {
    const { data, info } = await sharp(input, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error' })
      // Applies the camera's orientation to the pixels, since the tag that carried it is dropped.
      .rotate()
      .resize({ width: MAX_KEPT_SIDE, height: MAX_KEPT_SIDE, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 88, mozjpeg: true })
      .toBuffer({ resolveWithObject: true });
    return { data, contentType: 'image/jpeg', width: info.width, height: info.height };
  } catch (error) {
    if (error instanceof Error && /pixel limit/i.test(error.message)) throw new ImageRejectedError('too_large');
    throw new ImageRejectedError('unreadable');
  }
}
