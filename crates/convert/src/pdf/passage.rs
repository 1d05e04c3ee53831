//! Where a passage (a chunk's text) is printed on a page: the run of the page's characters that
//! reads as the passage, compared by letters and digits alone (so that line breaks, hyphens at
//! line ends, tab-separated table cells and spacing differ freely). A passage that began on an
//! earlier page is found from where the page takes it up; one that goes on to a later page up to
//! the page's end; a line the page puts inside it (a running header, a footnote marker) is stepped
//! over, and cells the page prints in another order than the passage holds them are followed.

/// Characters compared: letters and digits, lower case.
fn key(c: char) -> Option<char> {
    c.is_alphanumeric().then(|| c.to_lowercase().next().unwrap_or(c))
}

/// The letters and digits of a text, lower case.
fn keys(text: &str) -> Vec<char> {
    text.chars().filter_map(key).collect()
}

/// How many characters anchor a match: enough to be unlikely anywhere else on a page.
const ANCHOR: usize = 24;
/// How far a match may step over characters the page puts inside the passage (a running header
/// between two columns' halves, a footnote) and take it up again.
const RESYNC_WINDOW: usize = 400;

/// Where `haystack` holds `needle`, from `from`.
fn find(haystack: &[char], needle: &[char], from: usize) -> Option<usize> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return None;
    }
    (from..=haystack.len() - needle.len()).find(|&i| haystack[i..i + needle.len()] == *needle)
}

/// The ranges of the page's characters (indices into `page`, end exclusive) printing `passage`.
/// `page` holds the page's characters in their reading order, as the PDF's text gives them.
pub fn passage_ranges(page: &[char], passage: &str) -> Vec<(usize, usize)> {
    // The page's letters and digits, each with its index among the page's characters.
    let (p, at): (Vec<char>, Vec<usize>) =
        page.iter().enumerate().filter_map(|(i, c)| key(*c).map(|k| (k, i))).unzip();
    let c = keys(passage);
    if p.is_empty() || c.is_empty() {
        return Vec::new();
    }
    let anchor = ANCHOR.min(c.len());
    // Where the match starts: the passage's opening on this page (its first line may be short:
    // shorter openings are tried too, down to half an anchor), else the first stretch of the page
    // found in the passage (the passage began on an earlier page).
    let opening = [anchor, anchor * 2 / 3, anchor / 2]
        .into_iter()
        .filter(|n| *n > 0)
        .find_map(|n| find(&p, &c[..n], 0).map(|i| (i, 0)));
    let start = opening.or_else(|| {
        (0..p.len().saturating_sub(anchor)).find_map(|j| find(&c, &p[j..j + anchor], 0).map(|q| (j, q)))
    });
    let Some((mut i, mut k)) = start else { return Vec::new() };
    let mut spans: Vec<(usize, usize)> = Vec::new();
    while i < p.len() && k < c.len() {
        let from = i;
        while i < p.len() && k < c.len() && p[i] == c[k] {
            i += 1;
            k += 1;
        }
        if i > from {
            spans.push((at[from], at[i - 1] + 1));
        }
        if k >= c.len() || i >= p.len() {
            break;
        }
        // A mismatch: take the passage up again a little further on the page; else anywhere on
        // it (a table's header cells the converter read in another order than the page gives
        // them), where the next stretch of the passage is printed once; else stop.
        let next = ANCHOR.min(c.len() - k);
        let limit = (i + RESYNC_WINDOW).min(p.len());
        let key = &c[k..k + next];
        let elsewhere = || {
            let first = find(&p, key, 0)?;
            (next == ANCHOR && find(&p, key, first + 1).is_none()).then_some(first)
        };
        match find(&p[..limit], key, i).or_else(elsewhere) {
            Some(j) => i = j,
            None => {
                // The page may have dropped a few of the passage's characters (a ligature, a
                // footnote number): skip them in the passage instead.
                let skipped = (1..=8).find(|s| k + s < c.len() && i < p.len() && c[k + s] == p[i]);
                match skipped {
                    Some(s) => k += s,
                    None => break,
                }
            }
        }
    }
    // Ranges that meet (only spacing between them) are one.
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (s, e) in spans {
        match merged.last_mut() {
            Some(last) if s <= last.1 || page[last.1..s].iter().all(|ch| key(*ch).is_none()) => {
                last.1 = last.1.max(e)
            }
            _ => merged.push((s, e)),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    fn text_of(page: &str, ranges: &[(usize, usize)]) -> Vec<String> {
        let c = chars(page);
        ranges.iter().map(|(s, e)| c[*s..*e].iter().collect()).collect()
    }

    #[test]
    fn a_passage_over_several_lines_is_found_whole_across_breaks_and_hyphens() {
        let page = "5.5 Mandatory appointments\r\n5.5.1 (1) An Authorised Person must appoint an indi-\r\nvidual to the position of Senior Executive Officer.\r\n(2) It must notify the Regulator.\r\nPage 12";
        let passage = "5.5.1 (1) An Authorised Person must appoint an individual to the position of Senior Executive Officer. (2) It must notify the Regulator.";
        let r = passage_ranges(&chars(page), passage);
        assert_eq!(r.len(), 1, "{:?}", text_of(page, &r));
        let got = &text_of(page, &r)[0];
        assert!(got.starts_with("5.5.1 (1)") && got.ends_with("Regulator"), "{got}");
    }

    #[test]
    fn a_passage_begun_on_an_earlier_page_is_found_from_the_page_s_top() {
        let page = "officer of the firm for the purposes of this Rule. (3) A person may hold both offices.\r\nChapter 6";
        let passage = "An Authorised Person must appoint a compliance officer, who must be an officer of the firm for the purposes of this Rule. (3) A person may hold both offices.";
        let r = passage_ranges(&chars(page), passage);
        let got = text_of(page, &r).join("|");
        assert!(got.starts_with("officer of the firm") && got.ends_with("both offices"), "{got}");
    }

    #[test]
    fn a_table_s_cells_are_found_in_their_rows_and_a_running_header_is_stepped_over() {
        let page = "Revenue 1,234 1,100\r\nACME CORP ANNUAL REPORT\r\nCost of sales (600) (550)\r\nGross margin 634 550";
        let passage = "Revenue\t1,234\t1,100\nCost of sales\t(600)\t(550)\nGross margin\t634\t550";
        let r = passage_ranges(&chars(page), passage);
        let got = text_of(page, &r);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(
            got[0].starts_with("Revenue") && got[1].starts_with("Cost of sales") && got[1].ends_with("550"),
            "{got:?}"
        );
    }

    #[test]
    fn text_that_is_not_on_the_page_gives_nothing() {
        assert!(passage_ranges(
            &chars("Nothing of the kind is printed here at all."),
            "A Fund Manager must keep records of every dealing."
        )
        .is_empty());
        assert!(passage_ranges(&[], "x").is_empty());
    }
}
