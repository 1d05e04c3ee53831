//! The table builder's tests of columns of words between the row labels and the values.

use super::*;

/// Intel's derivative gains: "Location of Gains (Losses) / Recognized in Income on Derivatives"
/// over a left-aligned column of words, three years of amounts right of it.
fn intel_lines() -> Vec<Line> {
    vec![
        line(700.0, &[(190.0, 300.0, "Location of Gains (Losses)")]),
        line(
            690.0,
            &[
                (50.0, 160.0, "Years Ended (In Millions)"),
                (180.0, 330.0, "Recognized in Income on Derivatives"),
                (390.0, 430.0, "Dec 26, 2020"),
                (460.0, 500.0, "Dec 28, 2019"),
                (530.0, 570.0, "Dec 29, 2018"),
            ],
        ),
        line(
            678.0,
            &[
                (50.0, 150.0, "Foreign currency contracts"),
                (188.6, 280.0, "Interest and other, net"),
                (395.0, 430.0, "$(572)"),
                (475.0, 500.0, "$204"),
                (545.0, 570.0, "$372"),
            ],
        ),
        line(
            666.0,
            &[
                (50.0, 140.0, "Interest rate contracts"),
                (188.6, 280.0, "Interest and other, net"),
                (410.0, 430.0, "(90)"),
                (480.0, 500.0, "(32)"),
                (560.0, 570.0, "9"),
            ],
        ),
        line(
            654.0,
            &[
                (50.0, 75.0, "Other"),
                (188.6, 220.0, "Various"),
                (415.0, 430.0, "284"),
                (485.0, 500.0, "297"),
                (545.0, 570.0, "(147)"),
            ],
        ),
        line(
            642.0,
            &[
                (50.0, 70.0, "Total"),
                (395.0, 430.0, "$(378)"),
                (475.0, 500.0, "$469"),
                (545.0, 570.0, "$234"),
            ],
        ),
    ]
}

#[test]
fn a_column_of_words_is_a_column_with_its_own_head() {
    let t = one_table(&intel_lines(), &[]);
    assert_eq!(
        t.header,
        vec![
            "Years Ended (In Millions)",
            "Location of Gains (Losses) Recognized in Income on Derivatives",
            "Dec 26, 2020",
            "Dec 28, 2019",
            "Dec 29, 2018"
        ]
    );
    assert_eq!(
        t.rows[0],
        vec!["Foreign currency contracts", "Interest and other, net", "$(572)", "$204", "$372"]
    );
    assert_eq!(t.rows[2], vec!["Other", "Various", "284", "297", "(147)"]);
    assert_eq!(t.rows[3], vec!["Total", "", "$(378)", "$469", "$234"]);
}

#[test]
fn a_right_aligned_column_of_words_under_a_title_across_the_table() {
    // Nike's derivative assets (its coordinates): "BALANCE SHEET LOCATION" over words set flush
    // right, a title ("DERIVATIVE ASSETS") across the words and the first amounts' "$", "MAY 31,"
    // centred on the years with their signs.
    let row = |y: f32, label: &str, location: (f32, &str), a: &str, b: &str, signs: bool| {
        let mut cells = vec![(62.7, 212.0, label), (location.0, 410.9, location.1)];
        if signs {
            cells.push((416.0, 420.7, "$"));
        }
        cells.push((451.6 - 5.0 * a.len() as f32, 451.6, a));
        if signs {
            cells.push((481.0, 485.7, "$"));
        }
        cells.push((516.1 - 5.0 * b.len() as f32, 516.1, b));
        line(y, &cells)
    };
    let lines = vec![
        line(712.0, &[(359.6, 422.1, "DERIVATIVE ASSETS")]),
        line(702.0, &[(462.3, 489.7, "MAY 31,")]),
        line(
            692.0,
            &[
                (56.0, 114.8, "(Dollars in millions)"),
                (324.2, 410.8, "BALANCE SHEET LOCATION"),
                (435.9, 451.6, "2023"),
                (500.4, 516.1, "2022"),
            ],
        ),
        row(
            680.0,
            "Foreign exchange forwards and options",
            (248.8, "Prepaid expenses and other current assets"),
            "480",
            "639",
            true,
        ),
        row(
            668.0,
            "Foreign exchange forwards and options",
            (253.4, "Deferred income taxes and other assets"),
            "64",
            "206",
            false,
        ),
        row(
            656.0,
            "Embedded derivatives",
            (248.8, "Prepaid expenses and other current assets"),
            "13",
            "35",
            false,
        ),
        line(
            644.0,
            &[
                (56.0, 180.0, "TOTAL DERIVATIVE ASSETS"),
                (416.0, 420.7, "$"),
                (436.6, 451.6, "557"),
                (481.0, 485.7, "$"),
                (501.1, 516.1, "880"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.lines[0], 1, "the title across words and amounts heads no column");
    assert_eq!(
        t.header,
        vec!["(Dollars in millions)", "BALANCE SHEET LOCATION", "MAY 31, 2023", "MAY 31, 2022"]
    );
    assert_eq!(
        t.rows[1],
        vec!["Foreign exchange forwards and options", "Deferred income taxes and other assets", "64", "206"]
    );
    assert_eq!(t.rows[3], vec!["TOTAL DERIVATIVE ASSETS", "", "$557", "$880"]);
}

#[test]
fn words_with_numbers_in_a_column_stay_whole() {
    // FedEx's depreciable lives: "15 to 30 years" under "Range", no amount with a label after it.
    let row = |y: f32, label: &str, range: (f32, &str), a: &str, b: &str| {
        line(y, &[(50.0, 250.0, label), (range.0, 400.0, range.1), (470.0, 490.0, a), (540.0, 560.0, b)])
    };
    let lines = vec![
        line(702.0, &[(460.0, 560.0, "Net Book Value at May 31,")]),
        line(692.0, &[(370.0, 395.0, "Range"), (470.0, 490.0, "2023"), (540.0, 560.0, "2022")]),
        row(680.0, "Wide-body aircraft and related equipment", (352.0, "15 to 30 years"), "16,973", "15,949"),
        row(668.0, "Information technology", (357.0, "3 to 7 years"), "1,859", "1,907"),
        row(656.0, "Facilities and other", (352.0, "1 to 33 years"), "8,270", "7,621"),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(
        t.header,
        vec!["", "Range", "Net Book Value at May 31, 2023", "Net Book Value at May 31, 2022"]
    );
    assert_eq!(
        t.rows[0],
        vec!["Wide-body aircraft and related equipment", "15 to 30 years", "16,973", "15,949"]
    );
}

#[test]
fn footnote_marks_and_words_out_of_line_make_no_column() {
    // Marks after labels, and words that line up in two rows only, stay in the labels.
    let row = |y: f32, label: &str, aside: (f32, f32, &'static str), a: &str, b: &str| {
        line(y, &[(50.0, 150.0, label), aside, (470.0, 490.0, a), (540.0, 560.0, b)])
    };
    let lines = vec![
        line(692.0, &[(470.0, 490.0, "2023"), (540.0, 560.0, "2022")]),
        row(680.0, "Net revenues", (300.0, 315.0, "(a)"), "100", "90"),
        row(668.0, "Cost of revenues", (300.0, 315.0, "(b)"), "40", "30"),
        row(656.0, "Repurchases", (300.0, 315.0, "(c)"), "10", "5"),
        row(644.0, "Buy-backs", (330.0, 380.0, "structured"), "20", "6"),
        row(632.0, "Sales", (300.0, 350.0, "structured"), "7", "8"),
        row(620.0, "Returns", (300.0, 350.0, "structured"), "3", "4"),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.header, vec!["", "2023", "2022"]);
    assert_eq!(t.rows[0], vec!["Net revenues (a)", "100", "90"]);
    assert_eq!(t.rows[3], vec!["Buy-backs structured", "20", "6"]);
}

#[test]
fn a_column_set_flush_right_is_found_past_a_chance_alignment_at_its_left() {
    // eBay's equity investments (its coordinates): three locations start at one x by chance, but a
    // wider one ("Equity investment in Adevinta") reaches across it; set flush right, they are one
    // column.
    let row = |y: f32, label: (f32, &str), location: (f32, f32, &str), a: &str, b: &str| {
        line(
            y,
            &[
                (18.0, label.0, label.1),
                location,
                (488.0 - 3.0 * a.len() as f32, 496.0, a),
                (565.0, 578.0, b),
            ],
        )
    };
    let lines = vec![
        line(
            702.0,
            &[
                (330.0, 418.0, "Balance Sheet Location"),
                (455.0, 500.0, "June 30, 2023"),
                (520.0, 578.0, "December 31, 2022"),
            ],
        ),
        row(
            690.0,
            (209.0, "Equity investments with readily determinable fair values"),
            (337.0, 421.0, "Short-term investments"),
            "$97",
            "$104",
        ),
        row(
            680.0,
            (120.0, "Equity investment in Adevinta"),
            (316.0, 418.0, "Equity investment in Adevinta"),
            "2,656",
            "2,692",
        ),
        row(
            670.0,
            (176.0, "Equity investments under the fair value option"),
            (338.5, 418.0, "Long-term investments"),
            "431",
            "461",
        ),
        row(
            660.0,
            (218.0, "Equity investments under the equity method of accounting"),
            (338.5, 418.0, "Long-term investments"),
            "34",
            "34",
        ),
        line(
            650.0,
            &[(18.0, 130.0, "Total equity investments"), (477.0, 496.0, "$3,308"), (559.0, 578.0, "$3,377")],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.header, vec!["", "Balance Sheet Location", "June 30, 2023", "December 31, 2022"]);
    assert_eq!(
        t.rows[1],
        vec!["Equity investment in Adevinta", "Equity investment in Adevinta", "2,656", "2,692"]
    );
    assert_eq!(t.rows[0][1], "Short-term investments");
}

#[test]
fn a_column_of_words_wraps_and_its_rows_may_lie_off_their_values() {
    // eBay's AOCI reclassifications (its coordinates): "Interest rate contracts  Interest and
    // other, net" a point under its amounts, an affected line item wrapped onto a second line
    // with the amounts, and rows with no label of their own.
    let amounts = |y: f32, v: [&str; 4]| {
        line(y, &[(359.0, 368.0, v[0]), (430.0, 438.0, v[1]), (499.0, 508.0, v[2]), (569.0, 578.0, v[3])])
    };
    let with_words = |y: f32, label: Option<&str>, words: &str, v: [&str; 4]| {
        let mut cells: Vec<(f32, f32, &str)> = label.map(|l| (19.0, 115.0, l)).into_iter().collect();
        cells.push((161.0, 161.0 + 4.5 * words.len() as f32, words));
        cells.extend([
            (359.0, 368.0, v[0]),
            (430.0, 438.0, v[1]),
            (499.0, 508.0, v[2]),
            (569.0, 578.0, v[3]),
        ]);
        line(y, &cells)
    };
    let lines = vec![
        line(
            720.0,
            &[
                (19.0, 140.0, "Details about AOCI Components"),
                (161.0, 330.0, "Affected Line Item in the Statement of Income"),
            ],
        ),
        line(710.0, &[(359.0, 438.0, "Three Months Ended"), (499.0, 578.0, "Six Months Ended")]),
        line(
            700.0,
            &[(359.0, 368.0, "2023"), (430.0, 438.0, "2022"), (499.0, 508.0, "2023"), (569.0, 578.0, "2022")],
        ),
        line(690.0, &[(19.0, 140.0, "Gains (losses) on cash flow hedges:")]),
        with_words(680.0, Some("Foreign exchange contracts"), "Net revenues", ["$14", "$9", "$43", "$15"]),
        with_words(670.0, Some("Foreign exchange contracts"), "Cost of net revenues", ["—", "—", "(1)", "—"]),
        amounts(660.0, ["3", "(2)", "7", "(1)"]),
        line(659.5, &[(19.0, 110.0, "Interest rate contracts"), (161.0, 260.0, "Interest and other, net")]),
        line(650.0, &[(161.0, 330.0, "Total, from continuing operations before")]),
        with_words(640.0, None, "income taxes", ["17", "7", "49", "14"]),
        with_words(630.0, None, "Provision for income taxes", ["(4)", "(2)", "(11)", "(3)"]),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(
        t.header[..2],
        ["Details about AOCI Components", "Affected Line Item in the Statement of Income"]
    );
    assert_eq!(t.header[2], "Three Months Ended 2023");
    assert_eq!(t.rows[3], vec!["Interest rate contracts", "Interest and other, net", "3", "(2)", "7", "(1)"]);
    assert_eq!(
        t.rows[4],
        vec!["", "Total, from continuing operations before income taxes", "17", "7", "49", "14"]
    );
    assert_eq!(t.rows[5][1], "Provision for income taxes");
}

#[test]
fn two_columns_of_words_side_by_side() {
    // Oracle's market risk: "Hypothetical Change" and "Impact" between the labels and the years.
    let row = |y: f32, label: &str, change: &str, impact: &str, a: &str, b: &str| {
        line(
            y,
            &[
                (20.0, 150.0, label),
                (200.0, 330.0, change),
                (360.0, 400.0, impact),
                (450.0, 480.0, a),
                (530.0, 560.0, b),
            ],
        )
    };
    let lines = vec![
        line(
            700.0,
            &[
                (20.0, 70.0, "(in millions)"),
                (200.0, 290.0, "Hypothetical Change"),
                (360.0, 390.0, "Impact"),
                (455.0, 480.0, "2023"),
                (535.0, 560.0, "2022"),
            ],
        ),
        line(690.0, &[(20.0, 100.0, "Equity price risk:")]),
        row(680.0, "Equity investments", "25% decrease in market price", "Earnings", "$(243)", "$(277)"),
        line(670.0, &[(20.0, 110.0, "Foreign currency risk:")]),
        row(
            660.0,
            "Total revenues",
            "10% decrease in foreign exchange rates",
            "Earnings",
            "$(2,037)",
            "$(2,107)",
        ),
        row(
            650.0,
            "Cash and receivables",
            "10% decrease in foreign exchange rates",
            "Fair values",
            "$(1,407)",
            "$(1,131)",
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.header, vec!["(in millions)", "Hypothetical Change", "Impact", "2023", "2022"]);
    assert_eq!(
        t.rows[4],
        vec![
            "Cash and receivables",
            "10% decrease in foreign exchange rates",
            "Fair values",
            "$(1,407)",
            "$(1,131)"
        ]
    );
}
