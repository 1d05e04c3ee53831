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
