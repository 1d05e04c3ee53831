//! What a caught panic said, fit to show and to log: its message up to anything it quotes. The
//! standard library quotes the text it was given ("byte index 9 is not a char boundary; it is
//! inside 'é' … of `…`"), which may be a document's, and neither the log nor an error shown may
//! hold document text.

use std::any::Any;

/// The message a panic carried (a `&str` or a `String` payload), up to the first thing it quotes
/// and at most 200 characters; empty for any other payload.
pub fn message(payload: &(dyn Any + Send)) -> String {
    let full = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    unquoted(&full)
}

/// A message up to the first thing it quotes (and at most 200 characters).
fn unquoted(message: &str) -> String {
    let end = message.find(['`', '\'', '"', '«', '“']).unwrap_or(message.len());
    let mut out: String = message[..end].chars().take(200).collect();
    if end < message.len() {
        out.push_str("[…]");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_s_quoted_text_is_left_out() {
        let m = "byte index 9 is not a char boundary; it is inside 'é' (bytes 8..10) of `Client money rules`";
        assert_eq!(unquoted(m), "byte index 9 is not a char boundary; it is inside […]");
        assert_eq!(unquoted("the converter panicked"), "the converter panicked");
    }

    #[test]
    fn str_and_string_payloads_are_read_and_others_are_empty() {
        let caught = std::panic::catch_unwind(|| panic!("at `{}`", "Client money")).unwrap_err();
        assert_eq!(message(caught.as_ref()), "at […]");
        let caught = std::panic::catch_unwind(|| std::panic::panic_any("plain")).unwrap_err();
        assert_eq!(message(caught.as_ref()), "plain");
        let caught = std::panic::catch_unwind(|| std::panic::panic_any(7u8)).unwrap_err();
        assert_eq!(message(caught.as_ref()), "");
    }
}
