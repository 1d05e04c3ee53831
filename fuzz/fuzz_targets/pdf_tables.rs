//! The PDF table builder on page lines made from arbitrary bytes: rows × cells from aligned
//! cells of values, words, currency signs and brackets.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The builder asserts its invariants itself: lines in order, each in one table at most, a
    // cell per column in every row.
    for tsv in folio_convert::pdf::fuzz_table_builder(data) {
        assert!(!tsv.is_empty(), "an empty table");
    }
});
