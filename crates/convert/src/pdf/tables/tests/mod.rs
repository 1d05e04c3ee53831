//! The table builder's unit tests.

use super::*;
use crate::pdf::binding::HRule;
use crate::pdf::chars::WordGap;

fn line(y: f32, cells: &[(f32, f32, &str)]) -> Line {
    let cs: Vec<Cell> = cells.iter().map(|&(x0, x1, t)| Cell::new(x0, x1, t)).collect();
    let text = cs.iter().map(|c| c.text.as_str()).collect::<Vec<_>>().join(" ");
    Line {
        x0: cs[0].x0,
        x1: cs.last().unwrap().x1,
        top: y + 9.0,
        col_x0: 50.0,
        col_x1: 560.0,
        cells: if cs.len() > 1 { cs } else { Vec::new() },
        ..Line::printed(0, y, 9.0, &text)
    }
}

#[test]
fn values() {
    for v in [
        "3,954,687",
        "$ 1,234",
        "(12)",
        "4 %",
        "—",
        "$(1,234.5)",
        "12.5%",
        "n/a",
        "2022",
        "$ —",
        "$—",
        "N.A.",
        "N.A",
    ] {
        assert!(is_value(v), "{v}");
    }
    for v in ["Total assets", "March 31,", "1A.", "Item 7"] {
        assert!(!is_value(v), "{v}");
    }
}

#[test]
fn a_balance_sheet_with_a_two_row_header() {
    let lines = vec![
        line(700.0, &[(50.0, 300.0, "This paragraph introduces the table and runs wide across the page.")]),
        line(680.0, &[(380.0, 520.0, "Three months ended March 31,")]),
        line(668.0, &[(400.0, 420.0, "2022"), (480.0, 500.0, "2021")]),
        line(656.0, &[(50.0, 120.0, "Current assets:")]),
        line(
            644.0,
            &[(60.0, 150.0, "Cash"), (390.0, 395.0, "$"), (400.0, 420.0, "1,234"), (480.0, 500.0, "987")],
        ),
        line(632.0, &[(60.0, 150.0, "Receivables"), (400.0, 420.0, "55"), (480.0, 500.0, "(12)")]),
        line(
            620.0,
            &[(50.0, 150.0, "Total assets"), (395.0, 420.0, "3,954,687"), (470.0, 500.0, "3,743,567")],
        ),
        line(590.0, &[(50.0, 500.0, "A paragraph after the table, set across the whole column width.")]),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.lines, vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(t.header, vec!["", "Three months ended March 31, 2022", "Three months ended March 31, 2021"]);
    assert_eq!(t.rows[0], vec!["Current assets:", "", ""]);
    assert_eq!(t.rows[1], vec!["Cash", "$1,234", "987"]);
    assert_eq!(t.rows[2], vec!["Receivables", "55", "(12)"]);
    assert_eq!(t.rows[3], vec!["Total assets", "3,954,687", "3,743,567"]);
    assert!(t.to_tsv().starts_with("\tThree months ended March 31, 2022\t"));
}

/// The one table `lines` make, given the page's rules; fails unless there is exactly one.
fn one_table(lines: &[Line], rules: &[Vec<HRule>]) -> Table {
    let order: Vec<usize> = (0..lines.len()).collect();
    let mut t = find_tables(lines, &order, rules);
    assert_eq!(t.len(), 1, "{t:?}");
    t.remove(0)
}

/// Random cases a property test runs: `default`, or `PROPTEST_CASES` for a longer run without
/// cargo-fuzz (proptest shrinks a failing case to a small one).
fn cases(default: u32) -> proptest::test_runner::Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    proptest::test_runner::Config::with_cases(cases)
}

proptest::proptest! {
    #![proptest_config(cases(300))]
    #[test]
    fn arbitrary_lines_keep_the_invariants(data in proptest::collection::vec(proptest::num::u8::ANY, 200)) {
        fuzz(&data);
    }
}

#[test]
fn the_sentence_introducing_a_table_of_years_is_no_header() {
    // FedEx's jet fuel table: years in the first column (no label column), and the sentence
    // above it, which spans the columns, ends with a colon.
    let lines = vec![
        line(
            720.0,
            &[(50.0, 540.0, "The following table sets forth the costs for jet fuel and their share of")],
        ),
        line(708.0, &[(50.0, 200.0, "revenues for the last five fiscal years:")]),
        line(690.0, &[(380.0, 440.0, "Total Jet"), (470.0, 540.0, "Percentage of")]),
        line(678.0, &[(50.0, 110.0, "Fiscal Year"), (380.0, 440.0, "Fuel Cost"), (470.0, 540.0, "Revenue")]),
        line(666.0, &[(50.0, 70.0, "2023"), (400.0, 430.0, "$4,515"), (500.0, 520.0, "5.0%")]),
        line(654.0, &[(50.0, 70.0, "2022"), (400.0, 430.0, "3,867"), (500.0, 520.0, "4.1")]),
        line(642.0, &[(50.0, 70.0, "2021"), (400.0, 430.0, "2,065"), (500.0, 520.0, "2.5")]),
    ];
    let t = one_table(&lines, &[]);
    assert!(
        t.header.iter().all(|h| !h.contains("following") && !h.contains("fiscal years:")),
        "{:?}",
        t.header
    );
    assert!(!t.lines.contains(&0) && !t.lines.contains(&1), "{:?}", t.lines);
}

#[test]
fn what_is_set_level_with_the_last_row_belongs_to_it() {
    // eBay's income statement: "Diluted" sits a point under "537 556" and comes after it.
    let lines = vec![
        line(680.0, &[(400.0, 420.0, "2023"), (480.0, 500.0, "2022")]),
        line(668.0, &[(50.0, 150.0, "Weighted-average shares:")]),
        line(656.0, &[(60.0, 90.0, "Basic"), (400.0, 420.0, "534"), (480.0, 500.0, "556")]),
        line(644.0, &[(400.0, 420.0, "537"), (480.0, 500.0, "556")]),
        line(643.0, &[(60.0, 95.0, "Diluted")]),
        line(600.0, &[(50.0, 500.0, "The accompanying notes are an integral part of these statements.")]),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.rows.last().unwrap(), &vec!["Diluted", "537", "556"], "{:?}", t.rows);
    assert!(t.lines.contains(&4) && !t.lines.contains(&5));

    // Oracle's repurchases: "$ 93.29" two points under "Total 1.6 1.6", read after it.
    let lines = vec![
        line(680.0, &[(60.0, 200.0, "March 2023"), (280.0, 292.0, "0.6"), (370.0, 390.0, "$87.46")]),
        line(668.0, &[(60.0, 200.0, "April 2023"), (280.0, 292.0, "0.5"), (370.0, 390.0, "$94.72")]),
        line(656.0, &[(60.0, 90.0, "Total"), (280.0, 292.0, "1.6")]),
        line(654.0, &[(370.0, 390.0, "$93.29")]),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.rows.last().unwrap(), &vec!["Total", "1.6", "$93.29"], "{:?}", t.rows);
}

#[test]
fn a_label_closed_by_a_colon_introduces_the_rows_under_it() {
    // eBay's investments: a group's total, printed without a label, then the next group's
    // caption; and FedEx's debt: a caption, a line of values under it, the next caption.
    let lines = vec![
        line(680.0, &[(400.0, 420.0, "2023"), (480.0, 500.0, "2022")]),
        line(668.0, &[(50.0, 150.0, "Short-term investments:")]),
        line(
            656.0,
            &[(60.0, 150.0, "Corporate debt securities"), (400.0, 420.0, "1,945"), (480.0, 500.0, "1,936")],
        ),
        line(644.0, &[(400.0, 420.0, "$2,123"), (480.0, 500.0, "$2,111")]),
        line(632.0, &[(50.0, 150.0, "Long-term investments:")]),
        line(
            620.0,
            &[(60.0, 150.0, "Corporate debt securities"), (400.0, 420.0, "403"), (480.0, 500.0, "378")],
        ),
        line(608.0, &[(50.0, 150.0, "Senior secured debt:")]),
        line(596.0, &[(400.0, 420.0, "$831"), (480.0, 500.0, "$881")]),
        line(585.0, &[(50.0, 150.0, "Senior unsecured debt:")]),
        line(573.0, &[(400.0, 420.0, "748"), (480.0, 500.0, "747")]),
        // A label with no colon set just below its values is still theirs.
        line(561.0, &[(400.0, 420.0, "$1,579"), (480.0, 500.0, "$1,628")]),
        line(551.0, &[(50.0, 150.0, "Total debt")]),
        line(539.0, &[(50.0, 150.0, "Leases:")]),
        line(527.0, &[(60.0, 150.0, "Operating"), (400.0, 420.0, "12"), (480.0, 500.0, "14")]),
    ];
    let t = one_table(&lines, &[]);
    let rows: Vec<Vec<&str>> = t.rows.iter().map(|r| r.iter().map(String::as_str).collect()).collect();
    assert_eq!(
        rows,
        vec![
            vec!["Short-term investments:", "", ""],
            vec!["Corporate debt securities", "1,945", "1,936"],
            vec!["", "$2,123", "$2,111"],
            vec!["Long-term investments:", "", ""],
            vec!["Corporate debt securities", "403", "378"],
            vec!["Senior secured debt:", "", ""],
            vec!["", "$831", "$881"],
            vec!["Senior unsecured debt:", "", ""],
            vec!["", "748", "747"],
            vec!["Total debt", "$1,579", "$1,628"],
            vec!["Leases:", "", ""],
            vec!["Operating", "12", "14"],
        ]
    );
}

#[test]
fn a_change_only_the_total_gives_is_a_column_between_the_years() {
    // Apple's other income: the change columns hold the total row's percentages alone.
    let lines = vec![
        line(
            680.0,
            &[
                (300.0, 320.0, "2022"),
                (350.0, 380.0, "Change"),
                (410.0, 430.0, "2021"),
                (460.0, 490.0, "Change"),
                (520.0, 540.0, "2020"),
            ],
        ),
        line(
            668.0,
            &[
                (60.0, 200.0, "Interest and dividend income"),
                (290.0, 320.0, "$ 2,825"),
                (400.0, 430.0, "$ 2,843"),
                (510.0, 540.0, "$ 3,763"),
            ],
        ),
        line(
            656.0,
            &[
                (60.0, 200.0, "Interest expense"),
                (290.0, 320.0, "(2,931)"),
                (400.0, 430.0, "(2,645)"),
                (510.0, 540.0, "(2,873)"),
            ],
        ),
        line(
            644.0,
            &[
                (60.0, 200.0, "Other income/(expense), net"),
                (300.0, 320.0, "(228)"),
                (415.0, 430.0, "60"),
                (520.0, 540.0, "(87)"),
            ],
        ),
        line(
            632.0,
            &[
                (60.0, 200.0, "Total other income/(expense), net"),
                (290.0, 320.0, "$ (334)"),
                (352.0, 378.0, "(229)%"),
                (400.0, 430.0, "$ 258"),
                (462.0, 484.0, "(68)%"),
                (510.0, 540.0, "$ 803"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.header, vec!["", "2022", "Change", "2021", "Change", "2020"]);
    assert_eq!(
        t.rows.last().unwrap(),
        &vec!["Total other income/(expense), net", "$(334)", "(229)%", "$258", "(68)%", "$803"]
    );
    assert_eq!(t.rows[0], vec!["Interest and dividend income", "$2,825", "", "$2,843", "", "$3,763"]);
}

#[test]
fn a_sign_ending_a_fragment_leaves_the_value_before_it_its_own_extent() {
    // Nike's segment table: "-43 % $" is one fragment, its sign the next column's ("$ 25"); the
    // "-43%" ends at its last character, clear of "$ (3,656)" in the row below.
    let lines = vec![
        line(
            680.0,
            &[
                (55.0, 94.0, "Revenues"),
                (338.0, 358.0, "-43 %"),
                (383.0, 411.0, "-43 % $"),
                (436.0, 445.0, "25"),
                (472.0, 493.0, "308 %"),
            ],
        ),
        line(
            668.0,
            &[
                (55.0, 120.0, "Earnings"),
                (338.0, 358.0, "-14 %"),
                (406.0, 448.0, "$ (3,656)"),
                (473.0, 493.0, "-17 %"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.rows[0], vec!["Revenues", "-43%", "-43%", "$25", "308%"]);
    assert_eq!(t.rows[1], vec!["Earnings", "-14%", "", "$(3,656)", "-17%"]);
}

#[test]
fn a_total_only_the_last_row_gives_is_a_column_of_its_own() {
    // Apple's repurchases: the dollar value left is printed on the total row alone, right of
    // every other column.
    let mut lines = Vec::new();
    for (k, month) in ["June", "July", "August", "September"].iter().enumerate() {
        let y = 680.0 - 12.0 * k as f32;
        lines.push(line(y, &[(60.0, 200.0, month), (300.0, 330.0, "41,690"), (380.0, 410.0, "$145.91")]));
    }
    lines.push(line(632.0, &[(60.0, 90.0, "Total"), (300.0, 330.0, "160,172"), (520.0, 560.0, "$60,665")]));
    let t = one_table(&lines, &[]);
    assert_eq!(t.rows.last().unwrap(), &vec!["Total", "160,172", "", "$60,665"], "{:?}", t.rows);
}

#[test]
fn a_header_set_on_two_lines_over_one_column() {
    // FedEx's segment tables: "Percent" over "Change", the second line a point under the row
    // "2023  2022  Percent of Revenue".
    let lines = vec![
        line(700.0, &[(452.0, 478.0, "Percent")]),
        line(690.0, &[(331.0, 347.0, "2023"), (395.0, 411.0, "2022"), (519.0, 585.0, "Percent of Revenue")]),
        line(689.0, &[(452.0, 478.0, "Change")]),
        line(680.0, &[(520.0, 536.0, "2023"), (568.0, 584.0, "2022")]),
        line(
            668.0,
            &[
                (60.0, 150.0, "Revenue"),
                (337.0, 372.0, "$9,632"),
                (401.0, 437.0, "$9,532"),
                (476.0, 492.0, "1"),
                (523.0, 553.0, "100.0%"),
                (571.0, 601.0, "100.0%"),
            ],
        ),
        line(
            656.0,
            &[
                (60.0, 150.0, "Rentals"),
                (337.0, 372.0, "1,661"),
                (401.0, 437.0, "1,410"),
                (476.0, 492.0, "18"),
                (523.0, 553.0, "5.0"),
                (571.0, 601.0, "4.2"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(
        t.header,
        vec!["", "2023", "2022", "Percent Change", "Percent of Revenue 2023", "Percent of Revenue 2022"]
    );
}

#[test]
fn changes_printed_as_words_and_percent_headers() {
    // Intel's revenue bridge: "%" heads a column of "down (11)%", "up 2%"; a fragment ends in
    // the "$" of the next value.
    let lines = vec![
        line(700.0, &[(300.0, 380.0, "2020 vs. 2019"), (440.0, 520.0, "2019 vs. 2018")]),
        line(
            688.0,
            &[
                (50.0, 110.0, "(In Millions)"),
                (300.0, 310.0, "%"),
                (350.0, 385.0, "$ Impact"),
                (440.0, 450.0, "%"),
                (490.0, 525.0, "$ Impact"),
            ],
        ),
        line(
            676.0,
            &[
                (50.0, 200.0, "Desktop platform volume"),
                (290.0, 345.0, "down (11)% $"),
                (360.0, 475.0, "(1,316) down (6)%"),
                (505.0, 525.0, "(705)"),
            ],
        ),
        line(
            664.0,
            &[
                (50.0, 200.0, "Desktop platform ASP"),
                (295.0, 320.0, "up 2%"),
                (365.0, 385.0, "186"),
                (435.0, 460.0, "up 3%"),
                (505.0, 525.0, "307"),
            ],
        ),
        line(
            652.0,
            &[
                (50.0, 200.0, "Notebook platform volume"),
                (295.0, 320.0, "up 28%"),
                (360.0, 385.0, "5,770"),
                (430.0, 475.0, "down (5)%"),
                (500.0, 525.0, "(1,080)"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(
        t.header,
        vec![
            "(In Millions)",
            "2020 vs. 2019 %",
            "2020 vs. 2019 $ Impact",
            "2019 vs. 2018 %",
            "2019 vs. 2018 $ Impact"
        ]
    );
    assert_eq!(t.rows[0], vec!["Desktop platform volume", "down (11)%", "$(1,316)", "down (6)%", "(705)"]);
    assert_eq!(t.rows[1], vec!["Desktop platform ASP", "up 2%", "186", "up 3%", "307"]);
}

#[test]
fn prose_with_numbers_is_no_table() {
    let lines = vec![
        line(700.0, &[(50.0, 500.0, "In 2022 net sales rose 8% to $394 billion, while the")]),
        line(688.0, &[(50.0, 500.0, "number of employees was about 164,000 at year end.")]),
    ];
    let order: Vec<usize> = (0..lines.len()).collect();
    assert!(find_tables(&lines, &order, &[]).is_empty());
}

#[test]
fn cells_split_values_between_characters() {
    // Currency signs of two and three bytes, glued to their values or apart, and a sign ending a
    // fragment: every split falls between characters, and every cell keeps a sound extent.
    for text in [
        "€ 5 € 6",
        "1 € 2",
        "£1,234 £ 5,678",
        "down (11)% €",
        "€ 3,587.5 € 3,262.8",
        "¥ 12 ¥",
        "— € 1",
        "12.5 % € 4 £",
        "€€ 1 2",
        "$ 1 € 2 £ 3 ¥ 4",
        "$ — $ 1,000",
        "— $ —",
    ] {
        check_cells(&[(300.0, 420.0, text)]);
    }
}

/// Words, currency signs and values that table cells are made of, in random runs.
const CELL_WORDS: [&str; 16] =
    ["€", "£", "¥", "$", "1,234", "(5)", "—", "–", "-", "%", ")", "down", "up", "12.5", "€1", "Δ"];

proptest::proptest! {
    #![proptest_config(cases(3000))]
    /// Random runs: one to three fragments of one to seven words, signs and values each, glued or
    /// apart. Every split falls between characters, and every cell keeps a sound extent.
    #[test]
    fn random_fragments_split_between_characters(
        fragments in proptest::collection::vec(
            (proptest::collection::vec(proptest::sample::select(&CELL_WORDS[..]), 1..8), proptest::bool::ANY),
            1..4,
        )
    ) {
        let texts: Vec<String> =
            fragments.iter().map(|(words, glued)| words.join(if *glued { "" } else { " " })).collect();
        let spans: Vec<(f32, f32, &str)> = texts
            .iter()
            .enumerate()
            .map(|(i, f)| (300.0 + 60.0 * i as f32, 350.0 + 60.0 * i as f32, f.as_str()))
            .collect();
        check_cells(&spans);
    }
}

/// Every cell of a line of these fragments has a sound extent, and there is one at least.
fn check_cells(spans: &[(f32, f32, &str)]) {
    let got = cells::cells(&line(100.0, spans));
    assert!(!got.is_empty(), "{spans:?}");
    for c in &got {
        assert!(c.x0.is_finite() && c.x1.is_finite() && c.x0 <= c.x1 + 1e-3, "{spans:?}: {c:?}");
    }
}

#[test]
fn a_range_of_numbers_is_one_value_and_a_dash_a_column_apart_is_none() {
    // Apple's term debt: "2022 – 2061" and "0.03% – 4.78%" set with word spaces are one cell each.
    let texts = |l: &Line| cells::cells(l).into_iter().map(|c| c.text).collect::<Vec<_>>();
    let apple = line(
        100.0,
        &[(60.0, 200.0, "Fixed-rate notes"), (300.0, 340.0, "2022 – 2061"), (440.0, 490.0, "0.03% – 4.78%")],
    );
    assert_eq!(texts(&apple), vec!["Fixed-rate notes", "2022 – 2061", "0.03% – 4.78%"]);
    assert!(is_value("0.0% - 55.0%") && is_value("2022–2061"));
    assert!(!is_value("Fixed-rate 0.000% – 4.650% notes") && !is_value("— – —"));
    // A dash for none a column gap from the values either side is a cell of its own.
    let mut tight = line(100.0, &[(60.0, 200.0, "Notes"), (300.0, 400.0, "12 – 34")]);
    tight.cells[1].loose =
        vec![WordGap { at: 3, x0: 311.0, x1: 340.0 }, WordGap { at: 7, x0: 348.0, x1: 380.0 }];
    assert_eq!(texts(&tight), vec!["Notes", "12", "–", "34"]);
}

mod heads;
mod rows;
mod stacked;
mod words;

#[test]
fn a_label_and_its_first_amount_a_loose_gap_apart_are_two_cells() {
    // Lockheed Martin's tax rate reconciliation: the label and "$ 1,403" are one fragment, a
    // loose gap before the sign and one after it.
    let spans = |l: &Line| {
        cells::cells(l).into_iter().map(|c| (c.text, c.x0.round(), c.x1.round())).collect::<Vec<_>>()
    };
    let text = "Income tax expense at the U.S. federal statutory tax rate $ 1,403";
    let sign = text.find('$').unwrap();
    let mut lockheed = line(100.0, &[(60.0, 330.0, text), (360.0, 380.0, "21.0 %")]);
    lockheed.cells[0].loose =
        vec![WordGap { at: sign, x0: 250.0, x1: 290.0 }, WordGap { at: sign + 2, x0: 295.0, x1: 305.0 }];
    assert_eq!(
        spans(&lockheed),
        vec![
            ("Income tax expense at the U.S. federal statutory tax rate".to_string(), 60.0, 250.0),
            ("$1,403".to_string(), 290.0, 330.0),
            ("21.0%".to_string(), 360.0, 380.0),
        ]
    );
    // A bare number after a loose gap (a contents line's page, a listing's mode) stays in its line.
    let mut contents = line(100.0, &[(60.0, 330.0, "Defined Terms 1.01 1")]);
    contents.cells = vec![Cell {
        loose: vec![WordGap { at: 14, x0: 120.0, x1: 300.0 }],
        ..Cell::new(60.0, 330.0, "Defined Terms 1.01 1")
    }];
    assert_eq!(spans(&contents).len(), 1, "{:?}", spans(&contents));
}

#[test]
fn years_that_open_their_rows_label_them() {
    // FedEx's segment reconciliation: "Revenue" heads a group of rows labelled by year, left of
    // the segments' columns; the years are no column of values and "Revenue" no column's head.
    let lines = vec![
        line(700.0, &[(200.0, 240.0, "Express"), (300.0, 340.0, "Ground"), (400.0, 440.0, "Total")]),
        line(688.0, &[(50.0, 100.0, "Revenue")]),
        line(
            676.0,
            &[
                (50.0, 70.0, "2023"),
                (200.0, 240.0, "$ 42,743"),
                (300.0, 340.0, "$ 33,507"),
                (400.0, 440.0, "$ 90,155"),
            ],
        ),
        line(
            664.0,
            &[
                (50.0, 70.0, "2022"),
                (205.0, 240.0, "45,814"),
                (305.0, 340.0, "33,232"),
                (405.0, 440.0, "93,512"),
            ],
        ),
        line(652.0, &[(50.0, 150.0, "Operating income (loss)")]),
        line(
            640.0,
            &[
                (50.0, 70.0, "2023"),
                (205.0, 240.0, "1,064"),
                (305.0, 340.0, "3,140"),
                (405.0, 440.0, "4,912"),
            ],
        ),
        line(
            628.0,
            &[
                (50.0, 70.0, "2022"),
                (205.0, 240.0, "2,922"),
                (305.0, 340.0, "2,642"),
                (405.0, 440.0, "6,245"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.header, vec!["", "Express", "Ground", "Total"]);
    assert_eq!(t.rows[0], vec!["Revenue", "", "", ""]);
    assert_eq!(t.rows[1], vec!["2023", "$42,743", "$33,507", "$90,155"]);
    assert_eq!(t.rows[4], vec!["2023", "1,064", "3,140", "4,912"]);
}
