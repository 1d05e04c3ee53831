//! Documents are titled as a reader would cite them. The titles below were read by hand from each
//! file's first pages (a filing's cover: issuer, form, period; a press release's headline; a
//! regulation's title line; a title the text declares), not from Folio's output.

use folio_convert::{convert_file, ConvertOptions};

fn title(path: &std::path::Path) -> String {
    convert_file(path, &ConvertOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .meta
        .title
}

#[test]
#[ignore = "needs ../shared and .assets (PDFium); scripts/test.sh runs it"]
fn filings_and_rulebooks_are_titled_as_their_first_pages_name_them() {
    folio_testkit::paths::require_asset("pdfium/libpdfium.so");
    let filings = folio_testkit::paths::require_shared("data/filings");
    let by_hand = [
        ("APPLE_2022_10K.pdf", "Apple Inc. — Form 10-K, fiscal 2022"),
        ("INTEL_2020_10K.pdf", "Intel Corporation — Form 10-K, fiscal 2020"),
        ("ADOBE_2016_10K.pdf", "Adobe Systems Incorporated — Form 10-K, fiscal 2016"),
        ("LOCKHEEDMARTIN_2022_10K.pdf", "Lockheed Martin Corporation — Form 10-K, fiscal 2022"),
        ("NIKE_2023_10K.pdf", "NIKE, Inc. — Form 10-K, fiscal 2023"),
        ("ORACLE_2023_10K.pdf", "Oracle Corporation — Form 10-K, fiscal 2023"),
        ("EBAY_2023Q2_10Q.pdf", "eBay Inc. — Form 10-Q, quarter ended June 30, 2023"),
        ("FEDEX_2023_annualreport.pdf", "FedEx Corporation — 2023 Annual Report"),
        ("MCDONALDS_2023Q1_EARNINGS.pdf", "McDonald's Reports First Quarter 2023 Results"),
        (
            "PEPSICO_2023Q1_EARNINGS.pdf",
            "PepsiCo Reports First-Quarter 2023 Results; Raises Full-Year Guidance",
        ),
        (
            "AMCOR_2023Q4_EARNINGS.pdf",
            "Amcor reports fiscal 2023 results and provides outlook for fiscal 2024",
        ),
    ];
    let rules = folio_testkit::paths::require_shared("data/obliqa/documents");
    let rulebooks = [
        ("FSMR (Consolidated_December 2023).txt", "Financial Services and Markets Regulations 2015"),
        ("BRR Regulations (December 2018).txt", "Bank Recovery and Resolution Regulations 2018"),
        ("FUNDS_VER08.040723.txt", "Fund Rules (FUNDS)"),
        ("FP_VER01.110319.txt", "Fund Passporting Rules"),
        ("GPM VER03.120623.txt", "Guidance and Policies Manual (GPM)"),
        ("CMC_VER03.270922.txt", "Code of Market Conduct (CMC)"),
        ("Guidance - Private Credit Funds_VER01.040523.txt", "Guidance - Private Credit Funds"),
        (
            "CRS Regulations 2017 (Consolidated_October 2023) v6.txt",
            "Common Reporting Standard Regulations 2017",
        ),
    ];
    let mut wrong = Vec::new();
    for (file, want) in by_hand
        .iter()
        .map(|(f, w)| (filings.join(f), *w))
        .chain(rulebooks.iter().map(|(f, w)| (rules.join(f), *w)))
    {
        let got = title(&file);
        if got != want {
            wrong.push(format!("{}: {got:?}, read by hand {want:?}", file.display()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
