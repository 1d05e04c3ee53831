//! The table builder's tests of column heads.

use super::*;

/// A line of 8.5 pt bold header cells.
fn header_line(y: f32, cells: &[(f32, f32, &str)]) -> Line {
    Line { size: 8.5, weight: 700, ..line(y, cells) }
}

/// A body row of Nike's revenue table: a label and seven values at the columns' right edges.
fn nike_row(y: f32, label: &str, values: [&str; 7]) -> Line {
    let right = [265.0, 311.0, 356.0, 401.0, 446.0, 491.0, 536.0];
    let cells: Vec<(f32, f32, &str)> = std::iter::once((60.0, 200.0, label))
        .chain(values.iter().zip(right).map(|(v, r)| (r - 5.0 * v.len() as f32, r, *v)))
        .collect();
    line(y, &cells)
}

#[test]
fn heads_set_top_aligned_over_columns_the_leaf_row_leaves_bare() {
    // FedEx's long-term debt: "Interest Rate %" and "Maturity" are the lowest header line, set a
    // line under "2023  2022", which head the amounts under "May 31,".
    let lines = vec![
        header_line(502.0, &[(511.0, 539.0, "May 31,")]),
        header_line(492.0, &[(478.0, 494.0, "2023"), (556.0, 572.0, "2022")]),
        header_line(482.0, &[(302.0, 357.0, "Interest Rate %"), (395.0, 427.0, "Maturity")]),
        line(471.0, &[(62.0, 144.0, "Senior secured debt:")]),
        line(
            459.0,
            &[
                (341.0, 363.0, "1.875"),
                (426.0, 446.0, "2034"),
                (491.0, 518.0, "$ 831"),
                (569.0, 596.0, "$ 881"),
            ],
        ),
        line(448.0, &[(62.0, 150.0, "Senior unsecured debt:")]),
        line(
            436.0,
            &[(346.0, 363.0, "3.25"), (426.0, 446.0, "2026"), (503.0, 518.0, "748"), (581.0, 596.0, "747")],
        ),
        line(
            425.0,
            &[(346.0, 363.0, "3.40"), (426.0, 446.0, "2028"), (503.0, 518.0, "497"), (581.0, 596.0, "497")],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.header, vec!["", "Interest Rate %", "Maturity", "May 31, 2023", "May 31, 2022"]);
    assert_eq!(t.rows[1], vec!["", "1.875", "2034", "$831", "$881"]);
}

#[test]
fn a_change_head_over_the_middle_heads_the_changes_not_the_years() {
    // Oracle's MD&A: "Percent Change" is centred over "Actual  Constant", which stand between
    // "2023" and "2022", as "Year Ended May 31," above it is over them all.
    let lines = vec![
        header_line(727.0, &[(423.0, 477.0, "Year Ended May 31,")]),
        header_line(716.5, &[(432.0, 475.0, "Percent Change")]),
        header_line(
            706.0,
            &[
                (18.0, 71.0, "(Dollars in millions)"),
                (336.0, 349.0, "2023"),
                (409.0, 426.0, "Actual"),
                (476.0, 501.0, "Constant"),
                (550.0, 564.0, "2022"),
            ],
        ),
        line(
            694.0,
            &[
                (19.0, 120.0, "Americas"),
                (339.0, 369.0, "$ 21,456"),
                (434.0, 447.0, "18%"),
                (512.0, 528.0, "20%"),
                (554.0, 584.0, "$ 18,158"),
            ],
        ),
        line(
            683.0,
            &[
                (19.0, 120.0, "EMEA"),
                (342.0, 369.0, "$ 8,170"),
                (437.0, 447.0, "5%"),
                (512.0, 528.0, "13%"),
                (557.0, 584.0, "$ 7,791"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(
        t.header,
        vec![
            "(Dollars in millions)",
            "Year Ended May 31, 2023",
            "Year Ended May 31, Percent Change Actual",
            "Year Ended May 31, Percent Change Constant",
            "Year Ended May 31, 2022",
        ]
    );
    // A change per year, over years alone, heads them all (McDonald's comparable sales).
    let lines = vec![
        header_line(721.0, &[(491.0, 550.0, "Increase/(Decrease)")]),
        header_line(709.0, &[(480.0, 561.0, "Quarters Ended March 31,")]),
        header_line(697.0, &[(500.0, 514.0, "2023"), (568.0, 582.0, "2022")]),
        line(685.0, &[(19.0, 120.0, "U.S."), (490.0, 516.0, "12.6 %"), (558.0, 584.0, "3.5 %")]),
        line(673.0, &[(19.0, 120.0, "International"), (496.0, 516.0, "12.6"), (564.0, 584.0, "20.4")]),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(
        t.header[1..],
        [
            "Increase/(Decrease) Quarters Ended March 31, 2023",
            "Increase/(Decrease) Quarters Ended March 31, 2022"
        ]
    );
}

#[test]
fn a_spanning_head_reaches_the_heads_it_is_centred_on() {
    // Oracle's restructuring: "Year Ended May 31, 2023" is centred over "Initial Costs" to
    // "Others", between two "Accrued / May 31, / 2022" heads; half way to its neighbours falls
    // short of "Initial Costs".
    let lines = vec![
        header_line(
            558.0,
            &[
                (258.0, 281.0, "Accrued"),
                (380.0, 449.0, "Year Ended May 31, 2023"),
                (549.0, 572.0, "Accrued"),
            ],
        ),
        header_line(
            548.0,
            &[
                (259.0, 281.0, "May 31,"),
                (320.0, 335.0, "Initial"),
                (376.0, 395.0, "Adj. to"),
                (437.0, 450.0, "Cash"),
                (550.0, 572.0, "May 31,"),
            ],
        ),
        header_line(
            538.0,
            &[
                (260.0, 274.0, "2022"),
                (318.0, 332.0, "Costs"),
                (377.0, 389.0, "Cost"),
                (430.0, 457.0, "Payments"),
                (490.0, 508.0, "Others"),
                (551.0, 565.0, "2023"),
            ],
        ),
        line(
            526.0,
            &[
                (19.0, 150.0, "Total restructuring plans"),
                (280.0, 291.0, "131"),
                (338.0, 349.0, "497"),
                (400.0, 411.0, "(7)"),
                (451.0, 469.0, "(418)"),
                (516.0, 527.0, "(4)"),
                (572.0, 584.0, "199"),
            ],
        ),
        line(
            514.0,
            &[
                (19.0, 150.0, "Other plans"),
                (286.0, 291.0, "71"),
                (344.0, 349.0, "1"),
                (400.0, 411.0, "(4)"),
                (451.0, 469.0, "(22)"),
                (516.0, 527.0, "(4)"),
                (578.0, 584.0, "42"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(
        t.header[1..],
        [
            "Accrued May 31, 2022",
            "Year Ended May 31, 2023 Initial Costs",
            "Year Ended May 31, 2023 Adj. to Cost",
            "Year Ended May 31, 2023 Cash Payments",
            "Year Ended May 31, 2023 Others",
            "Accrued May 31, 2023",
        ]
    );
}

#[test]
fn headers_set_closer_than_a_fragment_break_and_stacked_lines_head_their_own_columns() {
    // Nike's segment table: "FISCAL 2023 FISCAL 2022 % CHANGE" is one run of text whose wider
    // gaps part the columns, and "% CHANGE EXCLUDING CURRENCY CHANGES" is set on four lines over
    // one column, a line apart.
    let mut leaf = header_line(
        602.6,
        &[
            (227.0, 356.0, "FISCAL 2023 FISCAL 2022 % CHANGE"),
            (366.0, 401.0, "CHANGES"),
            (407.0, 491.0, "FISCAL 2021 % CHANGE"),
            (501.0, 536.0, "CHANGES"),
        ],
    );
    let gap = |at, x0, x1| WordGap { at, x0, x1 };
    leaf.cells[0].loose = vec![gap(12, 266.0, 272.6), gap(24, 310.5, 321.0)];
    leaf.cells[2].loose = vec![gap(12, 446.0, 456.0)];
    let lines = vec![
        header_line(628.1, &[(366.0, 401.0, "% CHANGE"), (501.0, 536.0, "% CHANGE")]),
        header_line(619.6, &[(364.0, 401.0, "EXCLUDING"), (499.0, 536.0, "EXCLUDING")]),
        header_line(611.1, &[(367.0, 401.0, "CURRENCY"), (502.0, 536.0, "CURRENCY")]),
        leaf,
        nike_row(590.0, "North America", ["$21,608", "$18,353", "18%", "18%", "$17,179", "7%", "7%"]),
        nike_row(578.0, "Greater China", ["7,248", "7,547", "-4%", "4%", "8,290", "-9%", "-13%"]),
    ];
    let t = one_table(&lines, &[]);
    let stacked = "% CHANGE EXCLUDING CURRENCY CHANGES";
    assert_eq!(
        t.header,
        vec!["", "FISCAL 2023", "FISCAL 2022", "% CHANGE", stacked, "FISCAL 2021", "% CHANGE", stacked]
    );
    assert_eq!(t.rows[1], vec!["Greater China", "7,248", "7,547", "-4%", "4%", "8,290", "-9%", "-13%"]);
}

#[test]
fn a_year_set_further_above_spans_its_columns() {
    // Adobe's intangible assets: "2016" over "Cost", "Accumulated Amortization" and "Net", set
    // a line and a half above "Accumulated" with a rule between, and "Accumulated" stacked over
    // "Amortization".
    let lines = vec![
        header_line(373.0, &[(290.0, 306.0, "2016"), (466.0, 482.0, "2015")]),
        header_line(360.0, &[(275.0, 320.0, "Accumulated"), (452.0, 497.0, "Accumulated")]),
        header_line(
            352.0,
            &[
                (231.0, 246.0, "Cost"),
                (275.0, 320.0, "Amortization"),
                (350.0, 362.0, "Net"),
                (408.0, 423.0, "Cost"),
                (452.0, 497.0, "Amortization"),
                (528.0, 539.0, "Net"),
            ],
        ),
        line(
            340.0,
            &[
                (60.0, 180.0, "Purchased technology"),
                (228.0, 262.0, "$199.7"),
                (290.0, 324.0, "$(88.7)"),
                (346.0, 380.0, "$111.0"),
                (405.0, 439.0, "$199.7"),
                (467.0, 501.0, "$(64.4)"),
                (524.0, 558.0, "$135.3"),
            ],
        ),
        line(
            328.0,
            &[
                (60.0, 180.0, "Trademarks"),
                (228.0, 262.0, "1.2"),
                (290.0, 324.0, "(0.4)"),
                (346.0, 380.0, "0.8"),
                (405.0, 439.0, "1.2"),
                (467.0, 501.0, "(0.3)"),
                (524.0, 558.0, "0.9"),
            ],
        ),
    ];
    // The rule printed under each year, over the three columns it spans.
    let rules = [vec![HRule { x0: 231.0, x1: 362.0, y: 369.0 }, HRule { x0: 408.0, x1: 539.0, y: 369.0 }]];
    let t = one_table(&lines, &rules);
    assert_eq!(
        t.header,
        vec![
            "",
            "2016 Cost",
            "2016 Accumulated Amortization",
            "2016 Net",
            "2015 Cost",
            "2015 Accumulated Amortization",
            "2015 Net"
        ]
    );
}

#[test]
fn heads_a_point_apart_are_one_row_and_footnote_marks_between_lines_are_passed_over() {
    // eBay's FX-neutral table: "Effect  FX-Neutral" a point above "As Reported … FX-Neutral", a
    // line of 5 pt footnote marks between "Exchange Rate" and "Effect", periods above.
    let small = |y: f32, cells: &[(f32, f32, &str)]| Line { size: 5.0, ..line(y, cells) };
    let head = |y: f32, cells: &[(f32, f32, &str)]| Line { size: 7.5, ..line(y, cells) };
    let lines = vec![
        head(678.0, &[(242.0, 259.0, "2023"), (387.0, 403.0, "2022"), (490.0, 525.0, "% Change")]),
        head(666.4, &[(225.0, 278.0, "Exchange Rate")]),
        small(660.5, &[(257.0, 268.0, "(1)(3)"), (342.0, 347.0, "(2)")]),
        head(657.9, &[(234.0, 255.0, "Effect"), (302.0, 339.0, "FX-Neutral")]),
        head(
            656.6,
            &[
                (155.0, 199.0, "As Reported"),
                (373.0, 417.0, "As Reported"),
                (447.0, 491.0, "As Reported"),
                (528.0, 565.0, "FX-Neutral"),
            ],
        ),
        line(
            645.6,
            &[
                (19.0, 37.0, "GMV"),
                (183.0, 206.0, "$18,214"),
                (268.0, 286.0, "$(176)"),
                (330.0, 354.0, "$18,390"),
                (401.0, 425.0, "$18,549"),
                (488.0, 505.0, "(2)%"),
                (565.0, 581.0, "(1)%"),
            ],
        ),
        line(
            626.8,
            &[
                (19.0, 70.0, "Net Revenues"),
                (187.0, 206.0, "$2,540"),
                (277.0, 286.0, "$(9)"),
                (334.0, 354.0, "$2,549"),
                (405.0, 425.0, "$2,422"),
                (491.0, 505.0, "5%"),
                (568.0, 581.0, "6%"),
            ],
        ),
    ];
    // The rules printed under "2023" and "2022", over the columns they span.
    let rules = [vec![HRule { x0: 155.0, x1: 339.0, y: 675.0 }, HRule { x0: 373.0, x1: 417.0, y: 675.0 }]];
    let t = one_table(&lines, &rules);
    let h = &t.header;
    assert_eq!(
        &h[2..],
        [
            "2023 Exchange Rate Effect",
            "2023 FX-Neutral",
            "2022 As Reported",
            "% Change As Reported",
            "% Change FX-Neutral"
        ]
    );
    assert_eq!(t.rows[1], vec!["Net Revenues", "$2,540", "$(9)", "$2,549", "$2,422", "5%", "6%"]);
}

#[test]
fn a_caption_opening_the_rows_is_the_header_s() {
    // Nike's statements: "(Dollars in millions)" in the label column, level with the column heads.
    let lines = vec![
        line(700.0, &[(300.0, 340.0, "FISCAL 2023"), (400.0, 440.0, "FISCAL 2022")]),
        line(699.0, &[(60.0, 160.0, "(Dollars in millions)")]),
        line(688.0, &[(60.0, 160.0, "Revenues"), (300.0, 340.0, "$51,217"), (400.0, 440.0, "$46,710")]),
        line(676.0, &[(60.0, 160.0, "Cost of sales"), (300.0, 340.0, "28,925"), (400.0, 440.0, "25,231")]),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.header, vec!["(Dollars in millions)", "FISCAL 2023", "FISCAL 2022"]);
    assert_eq!(t.rows[0], vec!["Revenues", "$51,217", "$46,710"]);
}

#[test]
fn a_head_line_and_a_half_above_with_no_rule_between_is_stacked() {
    // Oracle's restructuring table: "Accrued" 1.5 times its size above "May 31," above "2022",
    // beside "Year Ended May 31, 2023" ruled off over the middle columns.
    let head = |y: f32, cells: &[(f32, f32, &str)]| Line { size: 6.5, ..line(y, cells) };
    let row = |y: f32, label: &str, v: [&str; 4]| {
        let cells = [
            (30.0, 150.0, label),
            (255.0, 279.0, v[0]),
            (318.0, 337.0, v[1]),
            (376.0, 395.0, v[2]),
            (548.0, 570.0, v[3]),
        ];
        line(y, &cells)
    };
    let lines = vec![
        head(
            558.4,
            &[
                (259.0, 281.0, "Accrued"),
                (380.0, 450.0, "Year Ended May 31, 2023"),
                (550.0, 572.0, "Accrued"),
            ],
        ),
        head(
            548.4,
            &[
                (259.0, 281.0, "May 31,"),
                (320.0, 336.0, "Initial"),
                (377.0, 395.0, "Adj. to"),
                (550.0, 572.0, "May 31,"),
            ],
        ),
        head(
            539.7,
            &[
                (261.0, 274.0, "2022"),
                (318.0, 333.0, "Costs"),
                (378.0, 389.0, "Cost"),
                (552.0, 565.0, "2023"),
            ],
        ),
        row(528.0, "Cloud and license", ["$34", "$288", "$(6)", "$99"]),
        row(516.0, "Hardware", ["7", "18", "—", "6"]),
    ];
    let rules = [vec![HRule { x0: 300.0, x1: 520.0, y: 555.0 }]];
    let t = one_table(&lines, &rules);
    assert_eq!(t.header[1], "Accrued May 31, 2022");
    assert!(!t.header[2].contains("Accrued"), "{:?}", t.header);
    assert_eq!(t.header[4], "Accrued May 31, 2023");
}

#[test]
fn a_column_two_spanning_heads_reach_goes_to_the_one_it_centres() {
    // Oracle's intangible assets: "Accumulated Amortization" is centred over its four columns
    // ("May 31, 2022" to "May 31, 2023"); "Intangible Assets, Net", half way to it, reached its
    // last column too.
    let lines = vec![
        header_line(
            444.0,
            &[
                (163.0, 215.0, "Intangible Assets, Gross"),
                (349.0, 408.0, "Accumulated Amortization"),
                (482.0, 530.0, "Intangible Assets, Net"),
            ],
        ),
        header_line(
            435.0,
            &[
                (103.0, 120.0, "May 31,"),
                (153.0, 179.0, "Additions &"),
                (262.0, 279.0, "May 31,"),
                (303.0, 320.0, "May 31,"),
                (438.0, 456.0, "May 31,"),
                (479.0, 496.0, "May 31,"),
                (519.0, 536.0, "May 31,"),
            ],
        ),
        header_line(
            429.0,
            &[
                (107.0, 118.0, "2022"),
                (145.0, 183.0, "Adjustments, net"),
                (211.0, 238.0, "Retirements"),
                (266.0, 277.0, "2023"),
                (307.0, 317.0, "2022"),
                (346.0, 364.0, "Expense"),
                (389.0, 416.0, "Retirements"),
                (442.0, 453.0, "2023"),
                (483.0, 494.0, "2022"),
                (523.0, 533.0, "2023"),
            ],
        ),
        line(
            417.0,
            &[
                (18.0, 90.0, "Developed technology"),
                (111.0, 128.0, "3,966"),
                (174.0, 191.0, "2,379"),
                (228.0, 247.0, "(2,045)"),
                (258.0, 283.0, "4,300"),
                (297.0, 329.0, "(3,660)"),
                (353.0, 373.0, "(792)"),
                (406.0, 420.0, "2,045"),
                (435.0, 462.0, "(2,407)"),
                (488.0, 502.0, "306"),
                (516.0, 539.0, "1,893"),
            ],
        ),
        line(
            405.0,
            &[
                (18.0, 90.0, "Trademarks"),
                (111.0, 128.0, "536"),
                (174.0, 191.0, "245"),
                (228.0, 247.0, "(5)"),
                (258.0, 283.0, "776"),
                (297.0, 329.0, "(406)"),
                (353.0, 373.0, "(87)"),
                (406.0, 420.0, "5"),
                (435.0, 462.0, "(488)"),
                (488.0, 502.0, "130"),
                (516.0, 539.0, "288"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(
        t.header[5..],
        [
            "Accumulated Amortization May 31, 2022",
            "Accumulated Amortization Expense",
            "Accumulated Amortization Retirements",
            "Accumulated Amortization May 31, 2023",
            "Intangible Assets, Net May 31, 2022",
            "Intangible Assets, Net May 31, 2023",
        ]
    );
}

#[test]
fn a_head_over_spanning_heads_spans_what_they_span() {
    // Nike's equity statement: "COMMON STOCK" is centred over "CLASS A" and "CLASS B", each over
    // its shares and amount; half way to "CAPITAL IN" it would reach the middle two alone.
    let lines = vec![
        header_line(636.0, &[(254.0, 310.0, "COMMON STOCK"), (358.0, 395.0, "CAPITAL IN")]),
        header_line(623.0, &[(232.0, 258.0, "CLASS A"), (307.0, 333.0, "CLASS B"), (360.0, 395.0, "EXCESS")]),
        header_line(
            610.0,
            &[
                (55.0, 162.0, "(In millions)"),
                (215.0, 240.0, "SHARES"),
                (249.0, 279.0, "AMOUNT"),
                (291.0, 315.0, "SHARES"),
                (322.0, 352.0, "AMOUNT"),
                (374.0, 395.0, "VALUE"),
            ],
        ),
        line(
            598.0,
            &[
                (55.0, 160.0, "Balance at May 31, 2020"),
                (224.0, 241.0, "315"),
                (269.0, 278.0, "$ —"),
                (293.0, 317.0, "1,243"),
                (346.0, 351.0, "$ 3"),
                (357.0, 397.0, "$ 8,299"),
            ],
        ),
        line(586.0, &[(55.0, 160.0, "Stock options exercised"), (304.0, 317.0, "21"), (380.0, 397.0, "954")]),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(
        t.header[1..5],
        [
            "COMMON STOCK CLASS A SHARES",
            "COMMON STOCK CLASS A AMOUNT",
            "COMMON STOCK CLASS B SHARES",
            "COMMON STOCK CLASS B AMOUNT"
        ]
    );
}

#[test]
fn a_change_column_half_way_between_two_periods_stands_with_the_one_before() {
    // eBay's interest table: the first "% Change" lies a point past half way between the two
    // "June 30," heads; it is the change between the years before it.
    let lines = vec![
        header_line(647.0, &[(216.0, 289.0, "Three Months Ended"), (421.0, 485.0, "Six Months Ended")]),
        header_line(640.0, &[(237.0, 267.0, "June 30,"), (438.0, 468.0, "June 30,")]),
        header_line(
            629.0,
            &[
                (209.0, 226.0, "2023"),
                (278.0, 294.0, "2022"),
                (335.0, 371.0, "% Change"),
                (411.0, 427.0, "2023"),
                (478.0, 494.0, "2022"),
                (534.0, 570.0, "% Change"),
            ],
        ),
        line(
            617.0,
            &[
                (20.0, 150.0, "Interest income"),
                (229.0, 249.0, "$ 48"),
                (295.0, 316.0, "$ 10"),
                (358.0, 385.0, "380 %"),
                (424.0, 449.0, "$ 90"),
                (492.0, 516.0, "$ 18"),
                (557.0, 581.0, "400 %"),
            ],
        ),
        line(
            605.0,
            &[
                (20.0, 150.0, "Interest expense"),
                (229.0, 249.0, "(77)"),
                (295.0, 316.0, "(76)"),
                (358.0, 385.0, "1 %"),
                (424.0, 449.0, "(154)"),
                (492.0, 516.0, "(160)"),
                (557.0, 581.0, "(4)%"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.header[3], "Three Months Ended June 30, % Change");
    assert_eq!(t.header[6], "Six Months Ended June 30, % Change");
}

#[test]
fn a_bracketed_last_line_of_a_head_is_the_head_s_not_a_caption() {
    // McDonald's key metrics: "Inc/ (Dec)" set on two lines, the lower in brackets, over the
    // change columns; "(In millions)" in the label column stays a caption.
    let lines = vec![
        header_line(158.0, &[(297.0, 309.0, "Inc/")]),
        header_line(
            151.0,
            &[
                (40.0, 100.0, "(In millions)"),
                (212.0, 226.0, "2023"),
                (259.0, 273.0, "2022"),
                (293.0, 309.0, "(Dec)"),
            ],
        ),
        line(
            139.0,
            &[
                (40.0, 150.0, "Revenues"),
                (189.0, 224.0, "$ 5,897.8"),
                (236.0, 271.0, "$ 5,665.6"),
                (297.0, 322.0, "4 %"),
            ],
        ),
        line(
            127.0,
            &[
                (40.0, 150.0, "Operating income"),
                (189.0, 224.0, "2,532.4"),
                (236.0, 271.0, "2,312.6"),
                (297.0, 322.0, "10"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(t.header, vec!["(In millions)", "2023", "2022", "Inc/ (Dec)"]);
}
