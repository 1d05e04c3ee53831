//! The table builder's tests of heads set on several lines under a head spanning some of them.

use super::*;

#[test]
fn a_lone_head_over_some_stacked_heads_heads_their_columns_only() {
    // Adobe's commitments: "Operating Leases" centred over "Future / Minimum / Lease / Payments"
    // and "Future / Minimum / Sublease / Income", not over "Purchase / Obligations" beside them,
    // nor centred on all three.
    let lines = vec![
        line(424.0, &[(451.9, 511.6, "Operating Leases")]),
        line(411.0, &[(426.8, 450.2, "Future"), (510.8, 534.2, "Future")]),
        line(403.0, &[(421.4, 455.6, "Minimum"), (505.4, 539.6, "Minimum")]),
        line(395.0, &[(338.8, 370.2, "Purchase"), (428.7, 448.3, "Lease"), (507.6, 537.4, "Sublease")]),
        line(
            387.0,
            &[
                (52.5, 91.4, "Fiscal Year"),
                (334.7, 374.3, "Obligations"),
                (421.8, 455.1, "Payments"),
                (509.8, 535.1, "Income"),
            ],
        ),
        line(
            373.0,
            &[
                (52.5, 72.5, "2017"),
                (317.5, 322.5, "$"),
                (358.6, 391.1, "275,066"),
                (401.5, 406.5, "$"),
                (447.6, 475.1, "45,201"),
                (485.5, 490.5, "$"),
                (536.6, 559.1, "1,701"),
            ],
        ),
        line(
            361.0,
            &[
                (52.5, 72.5, "2018"),
                (363.6, 391.1, "18,510"),
                (447.6, 475.1, "40,777"),
                (536.6, 559.1, "1,263"),
            ],
        ),
        line(
            349.0,
            &[
                (52.5, 72.5, "2019"),
                (368.6, 391.1, "4,810"),
                (447.6, 475.1, "41,342"),
                (536.6, 559.1, "1,315"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(
        t.header,
        vec![
            "Fiscal Year",
            "Purchase Obligations",
            "Operating Leases Future Minimum Lease Payments",
            "Operating Leases Future Minimum Sublease Income"
        ]
    );
    assert_eq!(t.rows[0], vec!["2017", "$275,066", "$45,201", "$1,701"]);
}

/// eBay's fair value hierarchy (its coordinates): each level's head over four lines, the first
/// ("Quoted Prices in") set a little further above the rest than they are apart, the last
/// ("(Level 1)") centred on its column's "$" and amounts but clear of the amounts themselves.
fn fair_value_lines() -> Vec<Line> {
    let amounts = |y: f32, label: &str, v: [&str; 4], signs: bool| {
        let mut cells = vec![(23.5, 150.0, label)];
        let right = [277.6, 375.5, 473.6, 578.4];
        let sign_at = [191.2, 286.7, 384.8, 482.9];
        for k in 0..4 {
            if signs {
                cells.push((sign_at[k], sign_at[k] + 4.4, "$"));
            }
            cells.push((right[k] - 5.0 * v[k].chars().count() as f32, right[k], v[k]));
        }
        line(y, &cells)
    };
    vec![
        line(701.0, &[(303.3, 361.7, "Quoted Prices in")]),
        line(
            685.8,
            &[
                (300.7, 364.3, "Active Markets for"),
                (401.0, 460.2, "Significant Other"),
                (513.4, 550.9, "Significant"),
            ],
        ),
        line(
            678.0,
            &[
                (304.7, 360.3, "Identical Assets"),
                (398.6, 462.6, "Observable Inputs"),
                (495.8, 568.4, "Unobservable Inputs"),
            ],
        ),
        line(
            670.9,
            &[
                (202.7, 268.8, "December 31, 2022"),
                (317.6, 347.4, "(Level 1)"),
                (415.7, 445.5, "(Level 2)"),
                (517.3, 547.0, "(Level 3)"),
            ],
        ),
        line(660.0, &[(19.0, 47.1, "Assets:")]),
        amounts(649.0, "Cash and cash equivalents", ["2,154", "2,154", "—", "—"], true),
        amounts(638.0, "Customer accounts", ["69", "69", "—", "—"], false),
        amounts(627.0, "Derivatives", ["336", "—", "122", "214"], false),
    ]
}

#[test]
fn a_head_s_top_line_set_apart_and_its_bracketed_last_line_stay_over_its_column() {
    let t = one_table(&fair_value_lines(), &[]);
    assert_eq!(
        t.header,
        vec![
            "",
            "December 31, 2022",
            "Quoted Prices in Active Markets for Identical Assets (Level 1)",
            "Significant Other Observable Inputs (Level 2)",
            "Significant Unobservable Inputs (Level 3)"
        ]
    );
}

#[test]
fn a_head_centred_on_the_whole_leaf_row_spans_it_though_set_apart() {
    // "Years ended" over three dates, a little further above them than they are apart, centred on
    // the middle one as on all three.
    let lines = vec![
        line(726.0, &[(395.0, 445.0, "Years ended")]),
        line(
            710.0,
            &[
                (290.0, 350.0, "September 24, 2022"),
                (390.0, 450.0, "September 25, 2021"),
                (490.0, 550.0, "September 26, 2020"),
            ],
        ),
        line(
            698.0,
            &[
                (50.0, 120.0, "Net sales"),
                (320.0, 350.0, "394,328"),
                (420.0, 450.0, "365,817"),
                (520.0, 550.0, "274,515"),
            ],
        ),
        line(
            686.0,
            &[
                (50.0, 120.0, "Cost of sales"),
                (320.0, 350.0, "223,546"),
                (420.0, 450.0, "212,981"),
                (520.0, 550.0, "169,559"),
            ],
        ),
    ];
    let t = one_table(&lines, &[]);
    assert_eq!(
        t.header,
        vec![
            "",
            "Years ended September 24, 2022",
            "Years ended September 25, 2021",
            "Years ended September 26, 2020"
        ]
    );
}
