// Page images of the sample library's PDFs: each section starting on the page drawn as grey text
// lines, and the box of the chunk asked about highlighted, as the engine renders the original page.
import type { PageImage } from '../types';
import { backendError } from '../errors';
import { encodeGrayPng } from '../png';
import type { FakeDoc } from './samples';

const W = 408;
const H = 528;

/** The page's image (`cache` keeps each page's pixels) with the chunk's highlight. */
export function pageImage(d: FakeDoc, page: number, chunkId: number | null, cache: Map<string, PageImage>): PageImage {
  if (d.row.format !== 'pdf' || d.row.page_count === null) {
    throw backendError('invalid', `${d.row.label} is not a PDF; it has no page images.`);
  }
  if (page < 1 || page > d.row.page_count) {
    throw backendError('invalid', `Page ${page} is outside 1–${d.row.page_count}.`);
  }
  const key = `${d.row.id}:${page}`;
  // Lay the sections starting on this page out as grey text lines.
  const layout: { ord: number; y0: number; y1: number }[] = [];
  let y = 40;
  const lines: [number, number, number, number][] = []; // y, height, width, shade
  for (const s of d.sections) {
    if (!s.pages || s.pages.start !== page) continue;
    const y0 = y;
    lines.push([y, 10, Math.min(W - 80, 40 + s.heading.length * 6), 60]);
    y += 22;
    const n = Math.max(1, Math.ceil((s.span.end - s.span.start) / 70));
    for (let i = 0; i < n && y < H - 40; i++) {
      lines.push([y, 6, i === n - 1 ? 120 + ((s.ord * 37) % 150) : W - 80, 170]);
      y += 13;
    }
    layout.push({ ord: s.ord, y0: y0 - 4, y1: y - 3 });
    y += 14;
  }
  let image = cache.get(key);
  if (!image) {
    const pixels = new Uint8Array(W * H).fill(255);
    for (const [ly, lh, lw, shade] of lines) {
      for (let r = ly; r < Math.min(H, ly + lh); r++) pixels.fill(shade, r * W + 40, r * W + 40 + Math.min(lw, W - 80));
    }
    // Page number.
    for (let r = H - 24; r < H - 18; r++) pixels.fill(150, r * W + W / 2 - 8, r * W + W / 2 + 8);
    image = { png_base64: encodeGrayPng(W, H, pixels), width: W, height: H, highlights: [] };
    cache.set(key, image);
  }
  const highlights: PageImage['highlights'] = [];
  if (chunkId !== null && Math.floor(chunkId / 1000) === d.row.id) {
    const chunk = d.chunks.find((c) => c.index === chunkId % 1000);
    const box = chunk && layout.find((l) => d.sections[l.ord].section_id === chunk.section_id);
    if (box) highlights.push({ x: 34, y: box.y0, w: W - 68, h: box.y1 - box.y0 });
  }
  return { ...image, highlights };
}
