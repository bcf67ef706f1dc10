import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ImageRejectedError, MAX_IMAGE_BYTES, sanitiseImage } from '../src/lib/images.ts';

async function jpegWithGps(): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 48, channels: 3, background: '#884422' } })
    .jpeg()
    .withExif({ IFD0: { Make: 'PhoneMaker', Model: 'X1' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '52/1 31/1 0/1' } })
    .toBuffer();
}

describe('sanitiseImage', () => {
  it('re-encodes a JPEG without any metadata block', async () => {
    const input = await jpegWithGps();
    expect((await sharp(input).metadata()).exif).toBeDefined();
    const out = await sanitiseImage(input);
    const meta = await sharp(out.data).metadata();
    expect(meta.format).toBe('jpeg');
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(meta.iptc).toBeUndefined();
    expect(out.data.includes(Buffer.from('PhoneMaker'))).toBe(false);
    expect([out.width, out.height]).toEqual([64, 48]);
  });

  it('takes PNG and WebP by content and returns JPEG', async () => {
    for (const fmt of ['png', 'webp'] as const) {
      const input = await sharp({ create: { width: 10, height: 10, channels: 4, background: '#00000000' } })
        .toFormat(fmt)
        .toBuffer();
      const out = await sanitiseImage(input);
      expect(out.contentType).toBe('image/jpeg');
      expect((await sharp(out.data).metadata()).format).toBe('jpeg');
    }
  });

  it('refuses what is not an image whatever its name, and what is too large', async () => {
    await expect(sanitiseImage(Buffer.from('%PDF-1.7\n%...'))).rejects.toMatchObject({ reason: 'unsupported_type' });
    await expect(sanitiseImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).rejects.toBeInstanceOf(ImageRejectedError);
    await expect(sanitiseImage(Buffer.alloc(MAX_IMAGE_BYTES + 1))).rejects.toMatchObject({ reason: 'too_large' });
  });

  it('refuses a truncated image and a picture over the pixel limit', async () => {
    const input = await jpegWithGps();
    await expect(sanitiseImage(input.subarray(0, 200))).rejects.toMatchObject({ reason: 'unreadable' });
    const huge = await sharp({ create: { width: 10000, height: 6000, channels: 3, background: '#fff' } }).png({ compressionLevel: 9 }).toBuffer();
    await expect(sanitiseImage(huge)).rejects.toMatchObject({ reason: 'too_large' });
  });
});
