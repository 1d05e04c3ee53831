//! Tables of company filings: cells of their main financial statements, each read by hand from
//! the printed page (row label, column header, value, page), must come out of the PDF converter
//! in the table block of that page, in the row with that label and the column with that header.
//!
//! Needs `../shared/data/filings` and `libpdfium.so`: ignored by a plain `cargo test`.

use folio_convert::pdf::{find_pdfium_library, PdfConverter};
use folio_convert::{ConvertOptions, Converter};
use folio_core::model::{BlockKind, Document};

fn filing(name: &str) -> Vec<u8> {
    let path = folio_testkit::paths::require_shared(&format!("data/filings/{name}"));
    assert!(
        find_pdfium_library(&ConvertOptions::default()).is_some(),
        "libpdfium.so not found (run scripts/setup-assets.sh or set FOLIO_PDFIUM)"
    );
    std::fs::read(&path).expect("the filing reads")
}

/// A table block: its page, column headers (empty without a header row) and rows.
struct Grid {
    page: u32,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn grids(doc: &Document) -> Vec<Grid> {
    doc.blocks_with_text()
        .filter_map(|(b, text)| {
            let BlockKind::Table { header_rows } = b.kind else { return None };
            let mut lines =
                text.lines().map(|l| l.split('\t').map(|c| c.trim().to_string()).collect::<Vec<_>>());
            let header = if header_rows > 0 { lines.next().unwrap_or_default() } else { Vec::new() };
            Some(Grid { page: b.pages?.start, header, rows: lines.collect() })
        })
        .collect()
}

/// One cell read from the page: (page, row label, words of its column header, value).
type Cell = (u32, &'static str, &'static str, &'static str);

/// Finds the value at (row label, column header) on the page; `Err` says what was found.
fn lookup(grids: &[Grid], &(page, label, column, _): &Cell) -> Result<String, String> {
    let on_page: Vec<&Grid> = grids.iter().filter(|g| g.page == page).collect();
    if on_page.is_empty() {
        return Err(format!("no table on page {page}"));
    }
    for g in &on_page {
        let cols: Vec<usize> = (1..g.header.len()).filter(|&i| g.header[i].contains(column)).collect();
        if cols.len() != 1 {
            continue;
        }
        if let Some(row) = g.rows.iter().find(|r| r.first().is_some_and(|l| l == label)) {
            return Ok(row.get(cols[0]).cloned().unwrap_or_default());
        }
    }
    let headers: Vec<String> = on_page.iter().map(|g| g.header.join(" | ")).collect();
    Err(format!("no row {label:?} under a column {column:?} (headers: {headers:?})"))
}

fn check(name: &str, cells: &[Cell]) {
    let bytes = filing(name);
    let doc = PdfConverter.convert(name, &bytes, &ConvertOptions::default()).expect("the filing converts");
    let grids = grids(&doc);
    let mut wrong = Vec::new();
    for cell in cells {
        match lookup(&grids, cell) {
            Ok(v) if v == cell.3 => {}
            Ok(v) => wrong
                .push(format!("p{} {:?} / {:?}: got {v:?}, printed {:?}", cell.0, cell.1, cell.2, cell.3)),
            Err(e) => wrong.push(format!("p{} {:?} / {:?}: {e}", cell.0, cell.1, cell.2)),
        }
    }
    eprintln!("{name}: {} of {} cells right, {} tables", cells.len() - wrong.len(), cells.len(), grids.len());
    assert!(wrong.is_empty(), "{name}:\n  {}", wrong.join("\n  "));
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn apple_statements() {
    check(
        "APPLE_2022_10K.pdf",
        &[
            (32, "Products", "September 24, 2022", "$316,199"),
            (32, "Services", "September 25, 2021", "68,425"),
            (32, "Gross margin", "September 26, 2020", "104,956"),
            (32, "Other income/(expense), net", "September 24, 2022", "(334)"),
            (32, "Research and development", "September 25, 2021", "21,914"),
            (34, "Cash and cash equivalents", "September 24, 2022", "$23,646"),
            (34, "Cash and cash equivalents", "September 25, 2021", "$34,940"),
            (34, "Inventories", "September 25, 2021", "6,580"),
            (34, "Total current assets", "September 24, 2022", "135,405"),
            (34, "Total non-current assets", "September 25, 2021", "216,166"),
            (34, "Total assets", "September 24, 2022", "$352,755"),
            (34, "Accounts payable", "September 25, 2021", "$54,763"),
        ],
    );
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn ebay_statements() {
    check(
        "EBAY_2023Q2_10Q.pdf",
        &[
            (4, "Cash and cash equivalents", "June 30, 2023", "$2,268"),
            (4, "Cash and cash equivalents", "December 31, 2022", "$2,154"),
            (5, "Net revenues", "Three Months Ended June 30, 2023", "$2,540"),
            (5, "Net revenues", "Three Months Ended June 30, 2022", "$2,422"),
            (5, "Net revenues", "Six Months Ended June 30, 2023", "$5,050"),
            (5, "Net revenues", "Six Months Ended June 30, 2022", "$4,905"),
            (5, "Cost of net revenues", "Six Months Ended June 30, 2022", "1,352"),
            (5, "Gross profit", "Three Months Ended June 30, 2023", "1,822"),
            (5, "Sales and marketing", "Six Months Ended June 30, 2023", "1,077"),
            (5, "Interest and other, net", "Six Months Ended June 30, 2023", "(45)"),
            (5, "Income tax benefit (provision)", "Three Months Ended June 30, 2022", "191"),
            (5, "Net income (loss)", "Six Months Ended June 30, 2022", "$(1,872)"),
        ],
    );
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn intel_balance_sheet() {
    check(
        "INTEL_2020_10K.pdf",
        &[
            (78, "Cash and cash equivalents", "Dec 26, 2020", "$5,865"),
            (78, "Cash and cash equivalents", "Dec 28, 2019", "$4,194"),
            (78, "Short-term investments", "Dec 26, 2020", "2,292"),
            (78, "Trading assets", "Dec 28, 2019", "7,847"),
            (78, "Inventories", "Dec 26, 2020", "8,427"),
            (78, "Assets held for sale", "Dec 28, 2019", "—"),
            (78, "Total current assets", "Dec 26, 2020", "47,249"),
            (78, "Equity investments", "Dec 26, 2020", "5,152"),
            (78, "Goodwill", "Dec 28, 2019", "26,276"),
            (78, "Other long-term assets", "Dec 28, 2019", "5,553"),
            (78, "Total assets", "Dec 26, 2020", "$153,091"),
        ],
    );
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn fedex_balance_sheet() {
    check(
        "FEDEX_2023_annualreport.pdf",
        &[
            (81, "Cash and cash equivalents", "2023", "$6,856"),
            (81, "Cash and cash equivalents", "2022", "$6,897"),
            (81, "Receivables, less allowances of $800 and $692", "2023", "10,188"),
            (81, "Prepaid expenses and other", "2022", "968"),
            (81, "Total current assets", "2023", "18,610"),
            (81, "Aircraft and related equipment", "2022", "27,874"),
            (81, "Information technology", "2023", "8,792"),
            (81, "Vehicles and trailers", "2022", "9,806"),
            (81, "Facilities and other", "2023", "15,694"),
            (81, "Total property and equipment, at cost", "2023", "80,624"),
            (81, "Net property and equipment", "2022", "38,091"),
        ],
    );
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn oracle_balance_sheet() {
    check(
        "ORACLE_2023_10K.pdf",
        &[
            (66, "Cash and cash equivalents", "2023", "$9,765"),
            (66, "Cash and cash equivalents", "2022", "$21,383"),
            (66, "Marketable securities", "2023", "422"),
            (66, "Marketable securities", "2022", "519"),
            (66, "Prepaid expenses and other current assets", "2023", "3,902"),
            (66, "Total current assets", "2023", "21,004"),
            (66, "Property, plant and equipment, net", "2023", "17,069"),
            (66, "Intangible assets, net", "2023", "9,837"),
            (66, "Goodwill, net", "2023", "62,261"),
            (66, "Deferred tax assets", "2023", "12,226"),
            (66, "Total non-current assets", "2023", "113,380"),
        ],
    );
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn mcdonalds_income_statement() {
    check(
        "MCDONALDS_2023Q1_EARNINGS.pdf",
        &[
            (4, "Sales by Company-operated restaurants", "2023", "$2,224.3"),
            (4, "Sales by Company-operated restaurants", "2022", "$2,302.4"),
            (4, "Sales by Company-operated restaurants", "Inc/ (Dec)", "$(78.1)"),
            (4, "Revenues from franchised restaurants", "2023", "3,587.5"),
            (4, "Other revenues", "2022", "100.4"),
            (4, "TOTAL REVENUES", "2023", "5,897.8"),
            (4, "TOTAL REVENUES", "Inc/ (Dec)", "232.2"),
            (4, "Company-operated restaurant expenses", "2022", "1,959.2"),
            (4, "Franchised restaurants-occupancy expenses", "2023", "598.3"),
            (4, "Other restaurant expenses", "Inc/ (Dec)", "(9.5)"),
        ],
    );
}

#[test]
#[ignore = "needs ../shared and .assets; scripts/test.sh runs it"]
fn column_heads_set_close_together_or_on_several_lines() {
    // Heads set closer than a fragment break ("FISCAL 2022   % CHANGE", "December 26  September
    // 26", "Total  Level 1  Level 2"), a label set on several lines over one column ("Retained /
    // Earnings"), a year spanning the heads set under it, "$ —" standing for none, and ranges.
    check(
        "NIKE_2023_10K.pdf",
        &[(35, "Revenues", "FISCAL 2022", "$46,710"), (35, "Cost of sales", "FISCAL 2021", "24,576")],
    );
    check(
        "INTEL_2020_10K.pdf",
        &[(114, "Net revenue", "September 26", "$18,333"), (114, "Gross margin", "December 26", "$11,348")],
    );
    check(
        "LOCKHEEDMARTIN_2022_10K.pdf",
        &[
            (93, "U.S. equity securities", "December 31, 2022 Level 3", "96"),
            (93, "U.S. equity securities", "December 31, 2021 Level 2", "5"),
            (93, "Cash and cash equivalents (a)", "December 31, 2022 Level 2", "$—"),
        ],
    );
    check(
        "ADOBE_2016_10K.pdf",
        &[(83, "Trademarks", "2016 Net", "29,509"), (83, "Trademarks", "2015 Cost", "81,219")],
    );
    check("FEDEX_2023_annualreport.pdf", &[(86, "Net income", "Retained Earnings", "5,231")]);
    // A period over heads of up to four lines, one of them set lower than the others.
    check(
        "AMCOR_2023Q4_EARNINGS.pdf",
        &[
            (11, "Net income attributable to Amcor", "June 30, 2022 EPS (Diluted US cents)", "7.3"),
            (11, "Net income attributable to Amcor", "June 30, 2023 Net Income", "181"),
        ],
    );
    // Ranges of numbers are one cell each.
    check(
        "APPLE_2022_10K.pdf",
        &[
            (48, "Fixed-rate 0.000% – 4.650% notes", "Maturities", "2022 – 2061"),
            (48, "Fixed-rate 0.000% – 4.650% notes", "2022 Effective Interest Rate", "0.03% – 4.78%"),
            (48, "Fixed-rate 0.000% – 4.650% notes", "2021 Amount", "116,313"),
        ],
    );
}
