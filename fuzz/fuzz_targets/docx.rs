//! The docx converter on arbitrary bytes named `.docx`: no panic, and a consistent document.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    common::convert_and_check("fuzz.docx", data);
});
