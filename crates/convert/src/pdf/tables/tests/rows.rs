//! The table builder's tests of rows: which lines are a row, a head, or the rest of a row.

use super::*;

#[test]
fn a_head_wrapped_onto_a_date_line_stays_a_head() {
    // eBay's restructuring reserve: "Three Months Ended June / 30, 2023", centred over a column of
    // amounts whose "$" stands at the column's left, "30," no amount, and clear of the amounts'
    // own extent.
    let lines = vec![
        line(
            700.0,
            &[(377.8, 469.5, "Three Months Ended June"), (483.5, 578.5, "Six Months Ended June 30,")],
        ),
        line(692.2, &[(409.4, 437.9, "30, 2023"), (522.8, 539.1, "2023")]),
        line(
            681.6,
            &[
                (50.0, 200.0, "Accrued liability, beginning of period"),
                (373.3, 377.6, "$"),
                (462.7, 471.4, "28"),
                (480.5, 484.9, "$"),
                (570.9, 578.7, "—"),
            ],
        ),
        line(671.2, &[(55.0, 90.0, "Charges"), (463.6, 471.4, "—"), (569.0, 578.7, "42")]),
        line(660.8, &[(55.0, 95.0, "Payments"), (455.0, 471.4, "(22)"), (563.0, 578.7, "(36)")]),
        line(
            638.9,
            &[
                (50.0, 180.0, "Accrued liability, end of period"),
                (373.3, 377.6, "$"),
                (466.5, 471.4, "5"),
                (480.5, 484.9, "$"),
                (574.0, 578.7, "5"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.header, vec!["", "Three Months Ended June 30, 2023", "Six Months Ended June 30, 2023"]);
    assert_eq!(t.rows[0], vec!["Accrued liability, beginning of period", "$28", "$—"]);
    assert_eq!(t.rows.len(), 4, "{:?}", t.rows);
}

#[test]
fn a_row_set_on_two_baselines_is_one_row() {
    // Adobe's currency impact: "Euro  $  $" a twentieth of a point under "(50.2)  (104.3)", read
    // after them; the signs open the amounts, and the table goes on under them.
    let lines = vec![
        line(720.0, &[(480.0, 505.0, "Fiscal"), (540.0, 565.0, "Fiscal")]),
        line(710.0, &[(50.0, 110.0, "(in millions)"), (482.0, 502.0, "2016"), (542.0, 562.0, "2015")]),
        line(695.0, &[(55.0, 85.0, "EMEA:")]),
        line(680.05, &[(462.8, 487.0, "(50.2)"), (531.8, 561.0, "(104.3)")]),
        line(680.0, &[(70.0, 89.4, "Euro"), (420.0, 425.0, "$"), (494.0, 499.0, "$")]),
        line(665.0, &[(70.0, 97.2, "British Pound"), (462.8, 487.0, "(36.2)"), (536.8, 561.0, "(16.1)")]),
        line(650.0, &[(70.0, 120.0, "Other currencies"), (467.8, 487.0, "(3.8)"), (536.8, 561.0, "(12.3)")]),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.header, vec!["(in millions)", "Fiscal 2016", "Fiscal 2015"]);
    assert_eq!(t.rows[1], vec!["Euro", "$(50.2)", "$(104.3)"]);
    assert_eq!(t.rows[3], vec!["Other currencies", "(3.8)", "(12.3)"]);
}

#[test]
fn two_currency_signs_in_a_row_are_two_columns() {
    // Adobe's investments: "$ 1,282,076  $  $ 1,112,883  $", the bracketed losses a point lower.
    let l = line(
        536.0,
        &[
            (53.0, 210.7, "Corporate bonds and commercial paper"),
            (273.0, 278.0, "$"),
            (296.7, 336.7, "1,282,076"),
            (347.0, 352.0, "$"),
            (421.0, 426.0, "$"),
            (444.7, 484.7, "1,112,883"),
            (495.0, 500.0, "$"),
        ],
    );
    let texts: Vec<String> = cells(&l).into_iter().map(|c| c.text).collect();
    assert_eq!(texts, vec!["Corporate bonds and commercial paper", "$1,282,076", "$", "$1,112,883", "$"]);
}

#[test]
fn a_sign_ending_a_row_label_opens_its_value() {
    // Apple's total-return table: "Dow Jones U.S. Technology Supersector Index $" and "100" are
    // fragments of their own; Oracle's "* $  12,122" after a change not given; and Nike's label
    // whose "$" belongs to "(374)" set on another baseline, "$ —" after it its own column's.
    let texts = |l: &Line| cells(l).into_iter().map(|c| c.text).collect::<Vec<_>>();
    let apple =
        line(500.0, &[(50.0, 250.0, "Dow Jones U.S. Technology Supersector Index $"), (265.0, 280.0, "100")]);
    assert_eq!(texts(&apple), vec!["Dow Jones U.S. Technology Supersector Index", "$100"]);
    let oracle = line(
        500.0,
        &[
            (50.0, 120.0, "Working capital"),
            (300.0, 330.0, "$ (2,086)"),
            (380.0, 400.0, "* $"),
            (450.0, 480.0, "12,122"),
        ],
    );
    assert_eq!(texts(&oracle), vec!["Working capital", "$(2,086)", "*", "$12,122"]);
    let nike = line(
        500.0,
        &[
            (55.6, 285.3, "Gains (losses) on foreign currency translation adjustment $"),
            (346.6, 351.3, "$"),
            (397.9, 406.4, "—"),
        ],
    );
    let cs = cells(&nike);
    assert_eq!(
        cs.iter().map(|c| c.text.as_str()).collect::<Vec<_>>(),
        vec!["Gains (losses) on foreign currency translation adjustment", "$", "$—"]
    );
    assert!(cs[1].x0 > 270.0 && cs[1].x1 <= 285.3, "{:?}", cs[1]);
}

#[test]
fn a_head_line_level_with_a_head_over_words_is_read_with_it() {
    // Oracle's property table: "Estimated" over the useful lives, a point under "May 31,", which
    // is centred on the amounts and their signs; read alone, "Estimated" stands over no amounts
    // and ended the heads there.
    let lines = vec![
        line(644.5, &[(482.6, 504.7, "May 31,")]),
        line(643.8, &[(335.2, 362.7, "Estimated")]),
        line(
            633.8,
            &[
                (18.6, 72.0, "(Dollars in millions)"),
                (334.5, 363.4, "Useful Life"),
                (437.0, 450.5, "2023"),
                (536.7, 550.2, "2022"),
            ],
        ),
        line(
            620.0,
            &[
                (18.6, 187.7, "Computer, network, machinery and equipment"),
                (358.8, 391.6, "1-5 years"),
                (403.2, 407.7, "$"),
                (459.5, 484.2, "17,258"),
                (502.7, 507.2, "$"),
                (559.4, 584.1, "12,844"),
            ],
        ),
        line(
            607.0,
            &[
                (18.6, 130.0, "Buildings and improvements"),
                (354.0, 391.6, "1-40 years"),
                (462.0, 484.2, "5,880"),
                (562.0, 584.1, "4,729"),
            ],
        ),
        line(
            594.0,
            &[
                (18.6, 140.0, "Furniture, fixtures and other"),
                (354.0, 391.6, "5-15 years"),
                (470.0, 484.2, "447"),
                (570.0, 584.1, "423"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    let n = t.header.len();
    // (The useful lives, words, are no column: their head joins the first amounts'.)
    assert_eq!(t.header[n - 1], "May 31, 2022", "{:?}", t.header);
    assert!(t.header[n - 2].contains("May 31,") && t.header[n - 2].ends_with("2023"), "{:?}", t.header);
    assert!(t.header.iter().any(|h| h.contains("Estimated")), "{:?}", t.header);
}

#[test]
fn a_long_label_wrapped_above_the_first_row_is_the_row_s() {
    // eBay's gains by location: the first row's label, over 60 characters, goes on in lower case
    // on the line of its amounts; the heads above it are the table's.
    let lines = vec![
        line(720.0, &[(330.0, 420.0, "Three Months Ended"), (470.0, 560.0, "Six Months Ended")]),
        line(
            710.0,
            &[(350.0, 375.0, "2023"), (395.0, 420.0, "2022"), (490.0, 515.0, "2023"), (535.0, 560.0, "2022")],
        ),
        line(
            698.0,
            &[(19.0, 300.0, "Foreign exchange contracts designated as cash flow hedges recognized in net")],
        ),
        line(
            688.0,
            &[
                (19.0, 60.0, "revenues"),
                (355.0, 375.0, "$14"),
                (405.0, 420.0, "$9"),
                (495.0, 515.0, "$43"),
                (540.0, 560.0, "$15"),
            ],
        ),
        line(
            676.0,
            &[(
                19.0,
                300.0,
                "Foreign exchange contracts designated as cash flow hedges recognized in cost of",
            )],
        ),
        line(
            666.0,
            &[
                (19.0, 70.0, "net revenues"),
                (365.0, 375.0, "—"),
                (410.0, 420.0, "—"),
                (500.0, 515.0, "(1)"),
                (550.0, 560.0, "—"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(
        t.header,
        vec![
            "",
            "Three Months Ended 2023",
            "Three Months Ended 2022",
            "Six Months Ended 2023",
            "Six Months Ended 2022"
        ]
    );
    assert_eq!(
        t.rows[0][..2],
        ["Foreign exchange contracts designated as cash flow hedges recognized in net revenues", "$14"]
    );
}

#[test]
fn a_label_wrapped_over_two_label_lines_is_one() {
    // Nike's derivatives: "Derivatives formally designated as hedging" / "instruments:" over the
    // rows it introduces.
    let lines = vec![
        line(700.0, &[(460.0, 480.0, "2023"), (540.0, 560.0, "2022")]),
        line(688.0, &[(56.0, 220.0, "Derivatives formally designated as hedging")]),
        line(678.0, &[(56.0, 102.0, "instruments:")]),
        line(
            666.0,
            &[
                (62.0, 212.0, "Foreign exchange forwards and options"),
                (465.0, 480.0, "480"),
                (545.0, 560.0, "639"),
            ],
        ),
        line(654.0, &[(62.0, 130.0, "Interest rate swaps"), (470.0, 480.0, "64"), (545.0, 560.0, "206")]),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.rows[0], vec!["Derivatives formally designated as hedging instruments:", "", ""]);
    assert_eq!(t.rows[1], vec!["Foreign exchange forwards and options", "480", "639"]);
}
