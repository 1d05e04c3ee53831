//! The context writers' real HTTP clients against a local server that speaks the Anthropic Messages
//! API and OpenAI chat completions: normal answers with prompt-cache usage, 429 with `retry-after`,
//! 529 overloaded, 500s until the retries run out, answers slower than the timeout, malformed JSON,
//! dropped connections; the retry schedule, the concurrency cap and the cached document prefix.

use folio_core::cancel::Cancel;
use folio_testkit::http as support;

use std::sync::Arc;
use std::time::Duration;

use folio_ai::context::{
    run_document, AnthropicConfig, AnthropicWriter, ContextJob, ContextWriter, OpenAiChatConfig,
    OpenAiChatWriter,
};
use folio_ai::http::RetryPolicy;
use folio_ai::AiError;
use support::{anthropic_answer, chunk_of, openai_answer, Reply, Server};

const KEY: &str = "sk-ant-test-0123456789-SECRET";

fn fast_retry(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        initial_backoff: Duration::from_millis(100),
        max_backoff: Duration::from_secs(2),
    }
}

fn anthropic(server: &Server, retries: u32, timeout: Duration) -> AnthropicWriter {
    let mut c = AnthropicConfig::new(KEY);
    c.base_url = server.url.clone();
    c.retry = fast_retry(retries);
    c.timeout = timeout;
    AnthropicWriter::new(c).unwrap()
}

fn no_cancel() -> Cancel {
    Cancel::new()
}

#[test]
fn anthropic_request_shape_and_cache_usage() {
    let server = Server::start(|_, n| {
        Reply::ok(anthropic_answer(
            "This rule sets the fee.",
            if n == 0 { 900 } else { 0 },
            if n == 0 { 0 } else { 900 },
        ))
    });
    let w = anthropic(&server, 0, Duration::from_secs(5));
    let a = w.write("THE DOCUMENT", "THE CHUNK", &no_cancel()).unwrap();
    assert_eq!(a.text, "This rule sets the fee.");
    assert_eq!((a.usage.input_tokens, a.usage.output_tokens, a.usage.cache_write_tokens), (40, 20, 900));
    let b = w.write("THE DOCUMENT", "ANOTHER", &no_cancel()).unwrap();
    assert_eq!(b.usage.cache_read_tokens, 900);
    let reqs = server.requests();
    let r = &reqs[0];
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.header("x-api-key"), Some(KEY));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.body["model"], "claude-haiku-4-5");
    let content = r.body["messages"][0]["content"].as_array().unwrap();
    assert_eq!(content[0]["text"], "<document>\nTHE DOCUMENT\n</document>");
    assert_eq!(content[0]["cache_control"]["type"], "ephemeral", "the document is the cached prefix");
    assert!(content[1]["text"].as_str().unwrap().contains("<chunk>\nTHE CHUNK\n</chunk>"));
    assert!(content[1].get("cache_control").is_none());
}

#[test]
fn concurrency_cap_and_the_first_request_alone() {
    let server = Server::start(|req, n| {
        let c = chunk_of(req);
        Reply::slow(
            anthropic_answer(
                &format!("context of {c}"),
                if n == 0 { 900 } else { 0 },
                if n == 0 { 0 } else { 900 },
            ),
            Duration::from_millis(60),
        )
    });
    let w = anthropic(&server, 0, Duration::from_secs(5));
    let doc: Arc<str> = "the whole document".into();
    let jobs: Vec<ContextJob> = (0..40)
        .map(|i| ContextJob { index: i, document: doc.clone(), chunk: format!("chunk {i}") })
        .collect();
    let out = run_document(&w, jobs, 10, &no_cancel(), &mut folio_core::progress::ignore);
    assert_eq!(out.len(), 40);
    assert!(out.iter().all(|o| o.result.as_ref().unwrap().text == format!("context of chunk {}", o.index)));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 40);
    println!("most requests in flight: {} (cap 10)", server.max_in_flight());
    assert!(server.max_in_flight() <= 10, "{}", server.max_in_flight());
    assert!(server.max_in_flight() >= 5, "requests did run concurrently: {}", server.max_in_flight());
    // The first request (which writes the cache) was answered before any other was sent.
    let first = reqs[0].at;
    assert!(reqs[1..].iter().all(|r| r.at >= first + Duration::from_millis(55)));
    let read: u64 = out.iter().map(|o| o.result.as_ref().unwrap().usage.cache_read_tokens).sum();
    assert_eq!(read, 39 * 900);
}

#[test]
fn retry_after_on_429_is_honoured() {
    let server = Server::start(|_, n| match n {
        0 => Reply::status(
            429,
            &[("retry-after", "1")],
            r#"{"type":"error","error":{"type":"rate_limit_error"}}"#,
        ),
        _ => Reply::ok(anthropic_answer("ok", 0, 0)),
    });
    let w = anthropic(&server, 3, Duration::from_secs(5));
    assert_eq!(w.write("d", "c", &no_cancel()).unwrap().text, "ok");
    let reqs = server.requests();
    let gap = reqs[1].at - reqs[0].at;
    println!("429 retry-after 1 → retried after {gap:?}");
    assert!(gap >= Duration::from_millis(990), "{gap:?}");
}

#[test]
fn overloaded_529_and_500_are_retried_with_growing_backoff() {
    // 529, 500, 500, then an answer: three retries, backoff 100, 200, 400 ms with equal jitter.
    let server = Server::start(|_, n| match n {
        0 => Reply::status(529, &[], r#"{"type":"error","error":{"type":"overloaded_error"}}"#),
        1 | 2 => Reply::status(500, &[], "internal"),
        _ => Reply::ok(anthropic_answer("ok", 0, 0)),
    });
    let w = anthropic(&server, 4, Duration::from_secs(5));
    assert_eq!(w.write("d", "c", &no_cancel()).unwrap().text, "ok");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 4);
    let gaps: Vec<Duration> = reqs.windows(2).map(|p| p[1].at - p[0].at).collect();
    println!("retry schedule after 529, 500, 500: {gaps:?}");
    for (i, g) in gaps.iter().enumerate() {
        let base = Duration::from_millis(100 << i);
        assert!(*g >= base / 2, "retry {i}: {g:?} < {:?}", base / 2);
        assert!(*g <= base + Duration::from_millis(300), "retry {i}: {g:?}");
    }
}

#[test]
fn gives_up_after_the_retries() {
    let server = Server::start(|_, _| Reply::status(500, &[], "still broken"));
    let w = anthropic(&server, 2, Duration::from_secs(5));
    let err = w.write("d", "c", &no_cancel()).unwrap_err();
    assert!(matches!(err, AiError::Http { status: 500, .. }), "{err}");
    assert_eq!(server.requests().len(), 3, "one attempt and two retries");
}

#[test]
fn slow_answers_time_out_and_are_retried() {
    let server = Server::start(|_, n| match n {
        0 => Reply::Hang(Duration::from_secs(3)),
        _ => Reply::ok(anthropic_answer("ok", 0, 0)),
    });
    let w = anthropic(&server, 2, Duration::from_millis(400));
    let t = std::time::Instant::now();
    assert_eq!(w.write("d", "c", &no_cancel()).unwrap().text, "ok");
    assert!(t.elapsed() < Duration::from_secs(2), "the timeout cut the hanging request: {:?}", t.elapsed());
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn malformed_json_is_a_typed_error_not_retried() {
    let server = Server::start(|_, _| {
        Reply::status(200, &[], "{\"content\": [ {\"type\": \"text\", \"text\": \"unterminated")
    });
    let w = anthropic(&server, 3, Duration::from_secs(5));
    let err = w.write("d", "c", &no_cancel()).unwrap_err();
    assert!(matches!(err, AiError::Response(_)), "{err}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_dropped_connection_is_retried() {
    let server =
        Server::start(|_, n| if n == 0 { Reply::Drop } else { Reply::ok(anthropic_answer("ok", 0, 0)) });
    let w = anthropic(&server, 2, Duration::from_secs(5));
    assert_eq!(w.write("d", "c", &no_cancel()).unwrap().text, "ok");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn the_key_never_appears_in_errors_or_debug() {
    let server =
        Server::start(|_, _| Reply::status(401, &[], &format!("{{\"error\": \"invalid x-api-key {KEY}\"}}")));
    let w = anthropic(&server, 3, Duration::from_secs(5));
    let err = w.write("d", "c", &no_cancel()).unwrap_err();
    assert!(matches!(err, AiError::Http { status: 401, .. }));
    assert_eq!(server.requests().len(), 1, "401 is not retried");
    assert!(!err.to_string().contains(KEY), "{err}");
    assert!(!format!("{w:?}").contains(KEY));
}

#[test]
fn cancel_stops_before_sending() {
    let server = Server::start(|_, _| Reply::ok(anthropic_answer("ok", 0, 0)));
    let w = anthropic(&server, 2, Duration::from_secs(5));
    let err = w.write("d", "c", &Cancel::cancelled()).unwrap_err();
    assert!(matches!(err, AiError::Cancelled));
    assert!(server.requests().is_empty());
}

#[test]
fn openai_chat_completions() {
    let server = Server::start(|req, _| Reply::ok(openai_answer(&format!("about {}", chunk_of(req)))));
    let mut c = OpenAiChatConfig::new("llama3.2");
    c.base_url = format!("{}/v1", server.url);
    c.retry = fast_retry(0);
    let w = OpenAiChatWriter::new(c.clone()).unwrap();
    let a = w.write("THE DOCUMENT", "THE CHUNK", &no_cancel()).unwrap();
    assert_eq!(a.text, "about THE CHUNK");
    assert_eq!((a.usage.input_tokens, a.usage.cache_read_tokens, a.usage.output_tokens), (100, 400, 30));
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("authorization"), None, "no key, no header (local servers)");
    let prompt = r.body["messages"][0]["content"].as_str().unwrap();
    assert_eq!(prompt, folio_ai::context::render("THE DOCUMENT", "THE CHUNK"));
    c.api_key = Some("sk-openai-test".into());
    let w = OpenAiChatWriter::new(c).unwrap();
    w.write("d", "c", &no_cancel()).unwrap();
    assert_eq!(server.requests()[1].header("authorization"), Some("Bearer sk-openai-test"));
}

#[test]
fn openai_errors_and_retries() {
    let server = Server::start(|_, n| match n {
        0 => Reply::status(429, &[("retry-after", "0.2")], "{}"),
        1 => Reply::status(503, &[], "loading model"),
        _ => Reply::status(200, &[], "not json"),
    });
    let mut c = OpenAiChatConfig::new("llama3.2");
    c.base_url = format!("{}/v1", server.url);
    c.retry = fast_retry(3);
    let w = OpenAiChatWriter::new(c).unwrap();
    let err = w.write("d", "c", &no_cancel()).unwrap_err();
    assert!(matches!(err, AiError::Response(_)), "{err}");
    assert_eq!(server.requests().len(), 3);
}
