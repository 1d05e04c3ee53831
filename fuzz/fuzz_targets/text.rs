//! The text converter on arbitrary bytes named `.txt`: no panic, and a consistent document.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    common::convert_and_check("fuzz.txt", data);
});
