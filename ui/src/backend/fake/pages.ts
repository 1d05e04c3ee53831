// Page images of the sample library's PDFs: each section starting on the page drawn as grey text
// lines, and the lines of the chunk asked about highlighted, as the engine renders the original
// page. Drawn at the width asked for (a quick narrow one, or the full one), the highlights in that
// image's own pixels, as the engine gives them.
import type { PageImage } from '../types';
import { backendError } from '../errors';
import { encodeGrayPng } from '../png';
import type { FakeDoc } from './samples';

/** The page as the sample lays it out (its own units; an image `width` wide scales them). */
const W = 408;
const H = 528;
/** The width drawn when none is asked for (the engine's default is 1200; the sample's pages are plain). */
export const SAMPLE_PAGE_WIDTH = 612;

/** The page's image `width` pixels wide (`cache` keeps each page's pixels) with the chunk's highlights. */
export function pageImage(d: FakeDoc, page: number, chunkId: number | null, width: number | null, cache: Map<string, PageImage>): PageImage {
  if (d.row.format !== 'pdf' || d.row.page_count === null) {
    throw backendError('invalid', `${d.row.label} is not a PDF; it has no page images.`);
  }
  if (page < 1 || page > d.row.page_count) {
    throw backendError('invalid', `Page ${page} is outside 1–${d.row.page_count}.`);
  }
  // As the engine clamps it.
  const w = Math.min(4000, Math.max(100, Math.round(width ?? SAMPLE_PAGE_WIDTH)));
  const scale = w / W;
  const h = Math.round(H * scale);
  const px = (v: number) => Math.round(v * scale);
  const key = `${d.row.id}:${page}:${w}`;
  // Lay the sections starting on this page out as grey text lines (in page units).
  const layout: { ord: number; lines: [number, number][] }[] = [];
  let y = 40;
  const lines: [number, number, number, number][] = []; // y, height, width, shade
  for (const s of d.sections) {
    if (!s.pages || s.pages.start !== page) continue;
    lines.push([y, 10, Math.min(W - 80, 40 + s.heading.length * 6), 60]);
    const own: [number, number][] = [[y, Math.min(W - 80, 40 + s.heading.length * 6)]];
    y += 22;
    const n = Math.max(1, Math.ceil((s.span.end - s.span.start) / 70));
    for (let i = 0; i < n && y < H - 40; i++) {
      const lw = i === n - 1 ? 120 + ((s.ord * 37) % 150) : W - 80;
      lines.push([y, 6, lw, 170]);
      own.push([y, lw]);
      y += 13;
    }
    layout.push({ ord: s.ord, lines: own });
    y += 14;
  }
  let image = cache.get(key);
  if (!image) {
    const pixels = new Uint8Array(w * h).fill(255);
    for (const [ly, lh, lw, shade] of lines) {
      for (let r = px(ly); r < Math.min(h, px(ly + lh)); r++) pixels.fill(shade, r * w + px(40), r * w + px(40) + Math.min(px(lw), w - px(80)));
    }
    // Page number.
    for (let r = px(H - 24); r < px(H - 18); r++) pixels.fill(150, r * w + px(W / 2 - 8), r * w + px(W / 2 + 8));
    image = { png_base64: encodeGrayPng(w, h, pixels), width: w, height: h, highlights: [] };
    cache.set(key, image);
  }
  // One rectangle per line of the chunk's section, as the engine marks every line of a passage.
  const highlights: PageImage['highlights'] = [];
  if (chunkId !== null && Math.floor(chunkId / 1000) === d.row.id) {
    const chunk = d.chunks.find((c) => c.index === chunkId % 1000);
    const box = chunk && layout.find((l) => d.sections[l.ord].section_id === chunk.section_id);
    for (const [ly, lw] of box?.lines ?? []) highlights.push({ x: px(37), y: px(ly - 3), w: px(lw + 6), h: px(13) });
  }
  return { ...image, highlights };
}
