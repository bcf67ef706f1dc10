// The text of a PDF, extracted with pdf.js (legacy build, runs on Node 20): what a reader copies.
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

export async function pdfText(pdf: Buffer | Uint8Array): Promise<string> {
  const doc = await getDocument({ data: new Uint8Array(pdf), verbosity: 0, useSystemFonts: false, isEvalSupported: false }).promise;
  const pages: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    pages.push(content.items.map((i: any) => `${i.str ?? ''}${i.hasEOL ? '\n' : ''}`).join(''));
  }
  await doc.destroy();
  return pages.join('\n');
}
