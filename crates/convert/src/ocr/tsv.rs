//! Tesseract's TSV output to words.

use super::OcrWord;

/// The words of Tesseract's TSV output (`TessBaseAPIGetTsvText`, `tesseract … tsv`), in order.
///
/// Each line has twelve tab-separated fields: `level page_num block_num par_num line_num word_num
/// left top width height conf text`. Kept: word rows (level 5) with a confidence from 0 to 100
/// and non-blank text (trimmed). Dropped without a fuss: the header, page/block/paragraph/line rows
/// (level 1–4, confidence -1), and any line that does not parse. Never panics.
pub fn parse_tsv(tsv: &str) -> Vec<OcrWord> {
    tsv.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<OcrWord> {
    let fields: Vec<&str> = line.splitn(12, '\t').collect();
    if fields.len() != 12 {
        return None;
    }
    let int = |i: usize| fields[i].trim().parse::<u32>().ok();
    if int(0)? != 5 {
        return None;
    }
    // The page and word numbers are not kept, but a line where they are not numbers is not a word.
    int(1)?;
    int(5)?;
    let conf: f32 = fields[10].trim().parse().ok()?;
    if !(0.0..=100.0).contains(&conf) {
        return None;
    }
    let text = fields[11].trim();
    if text.is_empty() || text.contains('\t') {
        return None;
    }
    Some(OcrWord {
        text: text.to_string(),
        left: int(6)?,
        top: int(7)?,
        width: int(8)?,
        height: int(9)?,
        conf,
        block: int(2)?,
        par: int(3)?,
        line: int(4)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str =
        "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext";

    /// Real `tesseract page.png - tsv` output (Tesseract 5.3), two lines of one paragraph.
    const SAMPLE: &str = "\
1\t1\t0\t0\t0\t0\t0\t0\t1275\t1650\t-1\t
2\t1\t1\t0\t0\t0\t150\t149\t622\t58\t-1\t
3\t1\t1\t1\t0\t0\t150\t149\t622\t58\t-1\t
4\t1\t1\t1\t1\t0\t150\t149\t622\t23\t-1\t
5\t1\t1\t1\t1\t1\t150\t150\t91\t22\t96.452377\tSection
5\t1\t1\t1\t1\t2\t253\t149\t27\t23\t96.883690\t12
4\t1\t1\t1\t2\t0\t150\t184\t479\t23\t-1\t
5\t1\t1\t1\t2\t1\t150\t184\t67\t18\t95.950851\tEvery
5\t1\t1\t1\t2\t2\t228\t184\t126\t23\t91.209061\tapplicant.
";

    #[test]
    fn words_of_normal_output() {
        let words = parse_tsv(SAMPLE);
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["Section", "12", "Every", "applicant."]);
        let w = &words[2];
        assert_eq!((w.left, w.top, w.width, w.height), (150, 184, 67, 18));
        assert_eq!((w.block, w.par, w.line), (1, 1, 2));
        assert!((w.conf - 95.95085).abs() < 1e-4);
        assert!(words[0].top < words[2].top);
    }

    #[test]
    fn header_and_crlf_are_ignored() {
        assert!(parse_tsv(HEADER).is_empty());
        assert!(parse_tsv("").is_empty());
        let with_header = format!("{HEADER}\r\n{}", SAMPLE.replace('\n', "\r\n"));
        assert_eq!(parse_tsv(&with_header), parse_tsv(SAMPLE));
        assert_eq!(parse_tsv(&with_header)[3].text, "applicant.");
    }

    #[test]
    fn negative_confidence_and_blank_text_are_dropped() {
        let tsv = "5\t1\t1\t1\t1\t1\t10\t10\t5\t5\t-1\tghost\n\
                   5\t1\t1\t1\t1\t2\t10\t10\t5\t5\t95\t   \n\
                   5\t1\t1\t1\t1\t3\t10\t10\t5\t5\t0\tfaint\n";
        let words = parse_tsv(tsv);
        assert_eq!(words.len(), 1);
        assert_eq!(words[0].text, "faint");
        assert_eq!(words[0].conf, 0.0);
    }

    #[test]
    fn malformed_lines_are_skipped() {
        let good = "5\t1\t1\t1\t1\t1\t10\t20\t30\t40\t90\tword";
        let bad = [
            "5\t1\t1\t1\t1\t1\t10\t20\t30\t40\t90",             // eleven fields
            "5 1 1 1 1 1 10 20 30 40 90 word",                  // spaces, not tabs
            "5\t1\t1\t1\t1\t1\t-10\t20\t30\t40\t90\tw",         // negative left
            "5\t1\t1\t1\t1\t1\t10\t20\t30\t40\tNaN\tw",         // NaN confidence
            "5\t1\t1\t1\t1\t1\t10\t20\t30\t40\tinf\tw",         // infinite confidence
            "5\t1\t1\t1\t1\t1\t10\t20\t30\t40\t101\tw",         // confidence over 100
            "5\t1\t1\t1\t1\t1\t10\t20\t99999999999\t40\t90\tw", // over u32
            "6\t1\t1\t1\t1\t1\t10\t20\t30\t40\t90\tw",          // unknown level
            "five\t1\t1\t1\t1\t1\t10\t20\t30\t40\t90\tw",
            "5\t1\t1\t1\t1\t1\t10\t20\t30\t40\t90\ttab\tinside",
            "\t\t\t\t\t\t\t\t\t\t\t",
        ];
        for b in bad {
            assert!(parse_tsv(b).is_empty(), "kept {b:?}");
            let mixed = format!("{b}\n{good}\n{b}");
            let words = parse_tsv(&mixed);
            assert_eq!(words.len(), 1, "{b:?}");
            assert_eq!((words[0].left, words[0].top, words[0].width, words[0].height), (10, 20, 30, 40));
        }
    }

    #[test]
    fn junk_never_panics() {
        let junk = [
            "\u{FFFD}\u{FFFD}\t\u{0}\t\u{7f}",
            "5\t\u{FFFD}\t1\t1\t1\t1\t1\t1\t1\t1\t1\t\u{FFFD}x",
            "\n\n\r\r\t\t\n",
            "5\t1\t1\t1\t1\t1\t1\t1\t1\t1\t1\té\u{301}\u{200B}",
            "5\t1\t1\t1\t1\t1\t1\t1\t1\t1\t+1e2\t\u{1F600}",
        ];
        for j in junk {
            for w in parse_tsv(j) {
                assert!(!w.text.is_empty() && (0.0..=100.0).contains(&w.conf));
            }
        }
        assert_eq!(parse_tsv(junk[1]).len(), 0, "a non-number page field is still a bad line");
        assert_eq!(parse_tsv(junk[3])[0].text, "é\u{301}\u{200B}");
        assert_eq!(parse_tsv(junk[4])[0].conf, 100.0);
    }
}
