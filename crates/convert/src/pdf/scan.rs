//! Scanned pages: a page whose text layer holds (almost) no text is rendered and read with
//! Tesseract ([`crate::ocr`]), and its words become fragments in page space, so that the rest of
//! the conversion (lines, columns, headings, tables, pages) treats it as a text page.
//!
//! Pages are rendered one at a time on the converting thread (pdfium is single-threaded) and
//! recognised by up to two worker threads, each with an engine of its own, through a channel
//! that holds at most two images: memory stays at a few page images whatever the page count.

use super::binding::Page;
use super::chars::{Frag, StyleStats, WordGap};
use crate::ocr::{OcrEngine, OcrError, OcrOptions, OcrWord};
use std::collections::HashMap;
use std::sync::mpsc;

/// The resolution pages are rendered at for OCR. Tesseract reads body text best at 200–300 dpi;
/// 200 keeps a page near half a second on one core.
pub(super) const OCR_DPI: u32 = 200;

/// A text layer with fewer letters and digits than this is no text layer (a scan may carry a
/// page number or a stamp as text).
const MIN_TEXT_CHARS: usize = 16;

/// Images must cover this share of a page for it to be read as a scan: a blank page, or one of
/// graphics with a few labels, is not worth a second of OCR.
const MIN_IMAGE_COVER: f32 = 0.3;

/// Whether the page needs OCR: its text layer has (almost) no letters or digits, and images
/// cover much of it.
pub(super) fn needs_ocr(page: &Page) -> bool {
    text_layer_is_empty(page) && page.image_cover() >= MIN_IMAGE_COVER
}

fn text_layer_is_empty(page: &Page) -> bool {
    let n = page.char_count();
    let mut seen = 0;
    for i in 0..n {
        if char::from_u32(page.unicode(i)).is_some_and(char::is_alphanumeric) {
            seen += 1;
            if seen >= MIN_TEXT_CHARS {
                return false;
            }
        }
    }
    true
}

/// A page image on its way to OCR.
pub(super) struct PageImage {
    /// 0-based page index.
    pub page: u32,
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

/// Renders a page in gray at [`OCR_DPI`].
pub(super) fn render(page: &Page, index: u32) -> Result<PageImage, String> {
    let (w, h) = page.size();
    let scale = OCR_DPI as f32 / 72.0;
    let (pw, ph) = ((w * scale).round() as i32, (h * scale).round() as i32);
    let pixels = page.render_gray(pw, ph).map_err(|e| e.to_string())?;
    Ok(PageImage { page: index, width: pw as u32, height: ph as u32, pixels })
}

/// A recognised word and its stroke: the mean length of the dark runs across its rows, in
/// pixels. Bold type has wider strokes than regular type of the same size, which is how a scan's
/// bold headings are told.
#[derive(Debug, Clone)]
pub(super) struct ScanWord {
    pub word: OcrWord,
    pub stroke: f32,
}

/// What OCR gave for one page.
pub(super) type PageWords = (u32, Result<Vec<ScanWord>, OcrError>);

/// A line Tesseract reads with a mean confidence below this is suspect: a chart, a logo, a
/// photograph or stylised lettering on a graphic page reads as "Tale=y hl", "OO as", "WAV
/// oolaoucla" at 0–35, where printed text reads at 60–97; but a heading in small capitals can
/// read as low ("7 ~FEEDBACK" at 32).
const LOW_LINE_CONF: f32 = 50.0;

/// A word read with at least this confidence can vouch for its line.
const WORD_CONF: f32 = 30.0;

/// Whether a word is a word: three letters or more once the punctuation around it is trimmed,
/// nothing but letters inside. OCR of a graphic gives "Tale=y", "[arelUisimavalstclel=ie", "ee".
fn is_wordlike(text: &str) -> bool {
    let core = text.trim_matches(|c: char| !c.is_alphanumeric());
    core.chars().count() >= 3 && core.chars().all(char::is_alphabetic)
}

/// The words that are text. A line read with a low mean confidence is kept only where at least
/// half of its words with letters are wordlike and read with some confidence; the rest of such
/// lines (what OCR makes of a graphic) is left out.
fn readable(words: Vec<OcrWord>) -> Vec<OcrWord> {
    #[derive(Default)]
    struct Tally {
        conf: f32,
        words: u32,
        lettered: u32,
        vouching: u32,
    }
    let mut lines: HashMap<(u32, u32, u32), Tally> = HashMap::new();
    for w in &words {
        let e = lines.entry((w.block, w.par, w.line)).or_default();
        e.conf += w.conf;
        e.words += 1;
        e.lettered += w.text.chars().any(char::is_alphabetic) as u32;
        e.vouching += (is_wordlike(&w.text) && w.conf >= WORD_CONF) as u32;
    }
    words
        .into_iter()
        .filter(|w| {
            let t = &lines[&(w.block, w.par, w.line)];
            t.conf / t.words as f32 >= LOW_LINE_CONF || (t.vouching > 0 && t.vouching * 2 >= t.lettered)
        })
        .collect()
}

/// Each word's stroke width: dark pixels over dark runs, row by row through its box.
fn with_ink(words: Vec<OcrWord>, image: &PageImage) -> Vec<ScanWord> {
    let (w, h) = (image.width as usize, image.height as usize);
    words
        .into_iter()
        .map(|word| {
            let (x0, y0) = ((word.left as usize).min(w), (word.top as usize).min(h));
            let (x1, y1) = ((x0 + word.width as usize).min(w), (y0 + word.height as usize).min(h));
            let (mut dark, mut runs) = (0usize, 0usize);
            for y in y0..y1 {
                let row = &image.pixels[y * w + x0..y * w + x1];
                let mut inside = false;
                for &p in row {
                    let d = p < 128;
                    dark += d as usize;
                    runs += (d && !inside) as usize;
                    inside = d;
                }
            }
            ScanWord { word, stroke: dark as f32 / runs.max(1) as f32 }
        })
        .collect()
}

/// How many pages are read at once: one engine per core, at most two (each holds a language
/// model of some 30 MB and a page image).
pub(super) fn ocr_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).clamp(1, 2)
}

/// A pool of OCR workers fed page images through a bounded channel.
pub(super) struct Recognizer {
    tx: Option<mpsc::SyncSender<PageImage>>,
    rx: mpsc::Receiver<PageWords>,
    workers: Vec<std::thread::JoinHandle<()>>,
    sent: usize,
    /// Pages answered so far, by page index.
    answered: HashMap<u32, Result<Vec<ScanWord>, OcrError>>,
}

impl Recognizer {
    /// Starts `threads` workers, each loading its own engine; a worker whose engine does not
    /// load answers every page it takes with the error.
    pub fn start(options: &OcrOptions, threads: usize) -> Recognizer {
        let (tx, job_rx) = mpsc::sync_channel::<PageImage>(2);
        let (res_tx, rx) = mpsc::channel::<PageWords>();
        let job_rx = std::sync::Arc::new(std::sync::Mutex::new(job_rx));
        let workers = (0..threads.max(1))
            .map(|_| {
                let (job_rx, res_tx, options) = (job_rx.clone(), res_tx.clone(), options.clone());
                std::thread::spawn(move || {
                    let mut engine = OcrEngine::load(&options);
                    loop {
                        let job = job_rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
                        let Ok(img) = job else { break };
                        let words = match engine.as_mut() {
                            Ok(e) => e
                                .recognize(&img.pixels, img.width, img.height, img.width, OCR_DPI)
                                .map(|words| with_ink(readable(words), &img)),
                            Err(err) => Err(err.clone()),
                        };
                        if res_tx.send((img.page, words)).is_err() {
                            break;
                        }
                    }
                })
            })
            .collect();
        Recognizer { tx: Some(tx), rx, workers, sent: 0, answered: HashMap::new() }
    }

    /// Queues a page image; blocks while two are waiting.
    pub fn send(&mut self, image: PageImage) {
        if let Some(tx) = &self.tx {
            if tx.send(image).is_ok() {
                self.sent += 1;
            }
        }
    }

    /// Takes the answers that have arrived, without waiting; returns how many.
    pub fn collect_ready(&mut self) -> u32 {
        let mut n = 0;
        while let Ok((page, words)) = self.rx.try_recv() {
            self.answered.insert(page, words);
            n += 1;
        }
        n
    }

    /// Waits for every queued page, calling `on_page` as each of those not yet collected is
    /// answered; results by page index.
    pub fn finish(mut self, mut on_page: impl FnMut()) -> HashMap<u32, Result<Vec<ScanWord>, OcrError>> {
        self.tx = None;
        let mut out = std::mem::take(&mut self.answered);
        while out.len() < self.sent {
            match self.rx.recv() {
                Ok((page, words)) => {
                    out.insert(page, words);
                    on_page();
                }
                Err(_) => break,
            }
        }
        for w in self.workers.drain(..) {
            // A worker that panicked answered no page: those pages are read without OCR text,
            // and the pages answered are kept.
            if w.join().is_err() {
                tracing::warn!("an OCR worker stopped; its pages are left without OCR text");
            }
        }
        out
    }
}

/// A word's type size (em) in pixels from its box height and which letters it has: ascenders
/// and capitals reach about 0.72 em above the baseline, descenders 0.21 em below it, lower-case
/// letters alone 0.5 em.
fn em_size(w: &OcrWord) -> f32 {
    let (mut asc, mut desc, mut any) = (false, false, false);
    for c in w.text.chars() {
        if c.is_ascii_digit() || c.is_uppercase() || "bdfhklt".contains(c) {
            asc = true;
        }
        if "gjpqy".contains(c) {
            desc = true;
        }
        any |= c.is_alphanumeric();
    }
    let share = match (asc, desc) {
        (true, true) => 0.93,
        (true, false) => 0.72,
        (false, true) => 0.71,
        (false, false) if any => 0.5,
        _ => 0.72,
    };
    w.height as f32 / share
}

/// A font id for text that OCR read (no font name or weight is known).
fn ocr_font(stats: &mut StyleStats) -> u16 {
    stats.intern_font("OCR", 0)
}

/// The words of one page as fragments in page space (points, y upwards), one per run of words
/// on a Tesseract line without a wide gap. A line's font size is estimated from its tallest
/// word, smoothed over the paragraph (the median of its lines) so that body text is one size.
pub(super) fn word_frags(words: &[ScanWord], page_height: f32, stats: &mut StyleStats) -> Vec<Frag> {
    let scale = OCR_DPI as f32 / 72.0;
    let font = ocr_font(stats);
    // Each word's type size from its box and the letters in it, and its stroke relative to it;
    // the page's usual stroke, over words long enough to measure.
    let em: Vec<f32> = words.iter().map(|w| em_size(&w.word) / scale).collect();
    let rel: Vec<f32> = words.iter().zip(&em).map(|(w, e)| w.stroke / (e * scale).max(1.0)).collect();
    let mut usual: Vec<f32> = words
        .iter()
        .zip(&rel)
        .filter(|(w, _)| w.word.text.chars().filter(|c| c.is_alphabetic()).count() >= 3)
        .map(|(_, r)| *r)
        .collect();
    usual.sort_by(|a, b| a.total_cmp(b));
    let usual_stroke = usual.get(usual.len() / 2).copied().unwrap_or(0.0);
    // Lines and their paragraphs, in Tesseract's order.
    let mut lines: Vec<((u32, u32, u32), Vec<usize>)> = Vec::new();
    for (i, w) in words.iter().enumerate().filter(|(_, w)| !w.word.text.trim().is_empty()) {
        let key = (w.word.block, w.word.par, w.word.line);
        match lines.last_mut() {
            Some((k, ws)) if *k == key => ws.push(i),
            _ => lines.push((key, vec![i])),
        }
    }
    let line_size = |ws: &[usize]| {
        let mut v: Vec<f32> = ws.iter().map(|&i| em[i]).collect();
        v.sort_by(|a, b| a.total_cmp(b));
        v.get(v.len() / 2).copied().unwrap_or(10.0)
    };
    let mut par_sizes: HashMap<(u32, u32), Vec<f32>> = HashMap::new();
    for ((b, p, _), ws) in &lines {
        par_sizes.entry((*b, *p)).or_default().push(line_size(ws));
    }
    let par_size: HashMap<(u32, u32), f32> = par_sizes
        .into_iter()
        .map(|(k, mut v)| {
            v.sort_by(|a, b| a.total_cmp(b));
            (k, v[v.len() / 2])
        })
        .collect();
    let mut frags = Vec::new();
    for ((b, p, _), ws) in &lines {
        // A line near its paragraph's size takes it (noise); one far from it keeps its own (a
        // heading Tesseract set in the paragraph below it). Half-point steps, as for text.
        let own = line_size(ws);
        let par = par_size.get(&(*b, *p)).copied().unwrap_or(own);
        let size = if (own - par).abs() <= 0.12 * par { par } else { own };
        let size = ((size * 2.0).round() / 2.0).max(1.0);
        // A line whose strokes are wider, for its size, than the page's text is bold.
        let mut strokes: Vec<f32> = ws.iter().map(|&i| rel[i]).collect();
        strokes.sort_by(|a, b| a.total_cmp(b));
        let stroke = strokes.get(strokes.len() / 2).copied().unwrap_or(0.0);
        let weight: i16 = if usual_stroke > 0.0 && stroke >= 1.3 * usual_stroke { 700 } else { 400 };
        let key = ((size * 2.0).round().clamp(0.0, 4000.0) as u16, weight, font);
        // One baseline for the line: the highest word bottom (a descender drops a word's box).
        let base = ws
            .iter()
            .map(|&i| page_height - (words[i].word.top + words[i].word.height) as f32 / scale)
            .fold(f32::MIN, f32::max);
        let mut cur: Option<Frag> = None;
        for w in ws.iter().map(|&i| &words[i].word) {
            let x0 = w.left as f32 / scale;
            let x1 = (w.left + w.width) as f32 / scale;
            let top = page_height - w.top as f32 / scale;
            let bottom = page_height - (w.top + w.height) as f32 / scale;
            let n = w.text.chars().count() as u32;
            *stats.style_chars.entry(key).or_insert(0) += n as u64;
            if let Some(f) = cur.as_mut() {
                if x0 - f.x1 < 1.6 * size {
                    f.text.push(' ');
                    f.gaps.push(WordGap { at: f.text.len(), x0: f.x1, x1: x0 });
                    f.text.push_str(&w.text);
                    f.x1 = x1;
                    f.top = f.top.max(top);
                    f.bottom = f.bottom.min(bottom);
                    f.nchars += n;
                    f.last_left = x0;
                    f.styles[0].1 += n;
                    continue;
                }
                frags.push(cur.take().expect("a fragment is open"));
            }
            cur = Some(Frag {
                x0,
                x1,
                y: base,
                top,
                bottom,
                size,
                text: w.text.clone(),
                styles: vec![(key, n)],
                nchars: n,
                last_left: x0,
                fixed_chars: 0,
                tag: None,
                gaps: Vec::new(),
            });
        }
        frags.extend(cur);
    }
    frags
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, left: u32, top: u32, width: u32, height: u32, line: u32) -> ScanWord {
        ScanWord {
            word: OcrWord { text: text.into(), left, top, width, height, conf: 90.0, block: 1, par: 1, line },
            stroke: 3.0,
        }
    }

    #[test]
    fn lines_read_with_low_confidence_are_no_text() {
        let w = |text: &str, conf: f32, line: u32| OcrWord {
            text: text.into(),
            left: 0,
            top: 0,
            width: 10,
            height: 10,
            conf,
            block: 1,
            par: 1,
            line,
        };
        let words = vec![
            w("Tale=y", 0.0, 1),
            w("WAV", 22.0, 1),
            w("OO", 29.0, 2),
            w("as", 23.0, 2),
            w("£", 0.0, 3),
            w("Today,", 97.0, 3),
            w("Intel", 96.0, 3),
            w("is", 96.0, 3),
            w("7", 32.0, 4),
            w("~FEEDBACK", 32.0, 4),
            w("ead", 13.0, 5),
        ];
        let kept: Vec<String> = readable(words).into_iter().map(|w| w.text).collect();
        assert_eq!(kept, ["£", "Today,", "Intel", "is", "7", "~FEEDBACK"]);
        assert!(is_wordlike("(Feedback),") && !is_wordlike("ee") && !is_wordlike("Tale=y"));
    }

    #[test]
    fn words_become_fragments_in_page_space() {
        let words = vec![
            word("Scope", 200, 300, 120, 30, 1),
            word("of", 330, 300, 40, 30, 1),
            word("work", 380, 300, 90, 30, 1),
            word("12", 1400, 300, 50, 30, 1),
            word("Next", 200, 350, 90, 30, 2),
        ];
        let mut stats = StyleStats::default();
        let frags = word_frags(&words, 792.0, &mut stats);
        assert_eq!(frags.len(), 3, "{frags:?}");
        assert_eq!(frags[0].text, "Scope of work");
        assert_eq!(frags[1].text, "12");
        let scale = OCR_DPI as f32 / 72.0;
        assert!((frags[0].x0 - 200.0 / scale).abs() < 0.01);
        assert!((frags[0].top - (792.0 - 300.0 / scale)).abs() < 0.01);
        assert!(frags[2].y < frags[0].y, "the second line lies below the first");
        assert_eq!(stats.style_chars.values().sum::<u64>(), 17);
    }
}
