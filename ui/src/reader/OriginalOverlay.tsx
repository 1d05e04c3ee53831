import { useEffect, useRef, useState } from 'react';
import { useBackend } from '../backend';
import type { PageImage, SectionView } from '../backend/types';
import { ErrorNote } from '../components/ErrorNote';
import { BackIcon, CloseIcon, ForwardIcon } from '../components/Icons';
import { useQuery } from '../state/query';
import { formatPages } from '../text/format';
import { sectionName } from '../text/sections';

type Props = {
  view: SectionView;
  pageCount: number | null;
  chunkId: number | null;
  /** The page to open at (the hit's passage's first); null: the section's first. */
  page: number | null;
  onClose(): void;
};

/** How wide the quick first image of a page is drawn (pixels): enough to see the page and where the passage is. */
export const QUICK_PAGE_WIDTH = 360;

/** A PNG page image as an image source. */
const pngSrc = (image: PageImage) => `data:image/png;base64,${image.png_base64}`;

/** A page image with the page it shows. */
type Drawn = { page: number; image: PageImage };

/**
 * The original document: the PDF page with the passage's lines highlighted, or for other formats the
 * path and text. A page is asked for twice: a narrow image, quick to draw, shown at once in the
 * page's frame, then the full one, which replaces it when it arrives. Both fill the same frame, and
 * each image's highlights (in its own pixels) are placed as shares of it.
 */
export function OriginalOverlay({ view, pageCount, chunkId, page: opening, onClose }: Props) {
  const backend = useBackend();
  const isPdf = view.format.toLowerCase() === 'pdf';
  const first = opening ?? view.pages?.start ?? view.section.pages?.start ?? 1;
  const [page, setPage] = useState(first);
  const doc = String(view.doc_id);
  const options = { library: false, enabled: isPdf, keepPrevious: true };
  const quick = useQuery(
    async (): Promise<Drawn> => ({ page, image: await backend.pageImage(doc, page, chunkId, QUICK_PAGE_WIDTH) }),
    [backend, doc, page, chunkId],
    options,
  );
  const full = useQuery(async (): Promise<Drawn> => ({ page, image: await backend.pageImage(doc, page, chunkId, null) }), [backend, doc, page, chunkId], options);
  // The sharpest image of this page there is; while there is none, the last page shown stays
  // (dimmed). A page that fails shows why instead.
  const error = full.error;
  const sharp = full.data?.page === page ? full.data : null;
  const rough = quick.data?.page === page ? quick.data : null;
  const drawn = error ? null : (sharp ?? rough ?? full.data ?? quick.data ?? null);
  const image = drawn?.image ?? null;
  const loading = full.loading;
  const dialogRef = useRef<HTMLDivElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    closeRef.current?.focus();
    return () => previous?.focus?.();
  }, []);

  const last = pageCount ?? view.pages?.end ?? page;
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onClose();
    } else if (isPdf && (e.key === 'PageDown' || e.key === 'ArrowRight') && page < last) {
      setPage(page + 1);
    } else if (isPdf && (e.key === 'PageUp' || e.key === 'ArrowLeft') && page > 1) {
      setPage(page - 1);
    } else if (e.key === 'Tab' && dialogRef.current) {
      // Keep focus inside the dialog.
      const focusable = Array.from(dialogRef.current.querySelectorAll<HTMLElement>('button:not([disabled]), [href], [tabindex="0"]'));
      if (focusable.length === 0) return;
      const firstEl = focusable[0];
      const lastEl = focusable[focusable.length - 1];
      if (e.shiftKey && document.activeElement === firstEl) {
        e.preventDefault();
        lastEl.focus();
      } else if (!e.shiftKey && document.activeElement === lastEl) {
        e.preventDefault();
        firstEl.focus();
      }
    }
  };

  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        className="overlay-dialog"
        role="dialog"
        aria-modal="true"
        aria-label={`Original of ${view.label} ${sectionName(view.section)}`}
        data-testid="original-dialog"
        ref={dialogRef}
        onKeyDown={onKeyDown}
      >
        <header className="overlay-head">
          <div className="overlay-title">
            <strong>{view.label}</strong> {view.document}
            <div className="muted path" title={view.path}>
              {view.path}
            </div>
          </div>
          {isPdf && (
            <div className="pager">
              <button type="button" className="icon-button" aria-label="Previous page" data-testid="prev-page" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                <BackIcon />
              </button>
              <span data-testid="page-number">
                Page {page}
                {pageCount ? ` of ${pageCount}` : ''}
              </span>
              <button type="button" className="icon-button" aria-label="Next page" data-testid="next-page" disabled={page >= last} onClick={() => setPage(page + 1)}>
                <ForwardIcon />
              </button>
            </div>
          )}
          <button type="button" className="icon-button" aria-label="Close" ref={closeRef} onClick={onClose}>
            <CloseIcon />
          </button>
        </header>
        <div className="overlay-body">
          {isPdf ? (
            <>
              <ErrorNote error={error} />
              {loading && !image && <p className="muted">Rendering page {page}…</p>}
              {image && (
                <div
                  className={`page-frame${drawn?.page !== page ? ' loading' : ''}`}
                  data-testid="page-frame"
                  data-page={drawn?.page}
                  data-resolution={drawn === sharp ? 'full' : drawn === rough ? 'quick' : 'previous'}
                  style={{ aspectRatio: `${image.width} / ${image.height}` }}
                >
                  {/* The quick image stays under the full one, so nothing blanks while the full one decodes. */}
                  {sharp && rough && <img className="page-under" src={pngSrc(rough.image)} alt="" aria-hidden="true" draggable={false} />}
                  <img
                    data-testid="page-image"
                    src={pngSrc(image)}
                    width={image.width}
                    height={image.height}
                    alt={`Page ${drawn?.page ?? page} of ${view.document}`}
                    draggable={false}
                  />
                  {image.highlights.map((h, i) => (
                    <div
                      key={i}
                      className="page-highlight"
                      data-testid="page-highlight"
                      style={{
                        left: `${(h.x / image.width) * 100}%`,
                        top: `${(h.y / image.height) * 100}%`,
                        width: `${(h.w / image.width) * 100}%`,
                        height: `${(h.h / image.height) * 100}%`,
                      }}
                    />
                  ))}
                </div>
              )}
            </>
          ) : (
            <div className="original-text">
              <p className="muted">
                {view.format.toUpperCase()} file{view.pages ? ` · ${formatPages(view.pages)}` : ''}: <span className="path">{view.path}</span>
              </p>
              <h2>{sectionName(view.section)}</h2>
              <div className="reader-text plain">{view.text}</div>
            </div>
          )}
        </div>
      </div>
    </div>
  );
}
