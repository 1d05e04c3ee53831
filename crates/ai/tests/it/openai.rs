//! The OpenAI-compatible client against a scripted HTTP server on 127.0.0.1 (no external network).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use folio_ai::{AiError, Embedder, OpenAiConfig, OpenAiEmbedder};

/// What the server answers to one request.
enum Reply {
    /// A well-formed response: input `i` of length `n` gets `[n, i, 1, 0]`, items listed in reverse.
    Embeddings,
    /// Any status, extra headers and body.
    Status(u16, Vec<(&'static str, &'static str)>, &'static str),
    /// Never answer (the client must time out); closes after a while.
    Hang(Duration),
}

#[derive(Debug, Clone)]
struct Request {
    request_line: String,
    headers: Vec<(String, String)>,
    body: serde_json::Value,
    at: Instant,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    fn inputs(&self) -> Vec<String> {
        self.body["input"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
    }
}

struct Server {
    base: String,
    requests: Arc<Mutex<Vec<Request>>>,
    handle: Option<JoinHandle<()>>,
}

impl Server {
    /// Serves the replies in order, one connection each, then stops.
    fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&requests);
        // One thread per connection, so that a hanging answer does not hold up the retry.
        let handle = std::thread::spawn(move || {
            let mut served = Vec::new();
            for reply in replies {
                let (stream, _) = listener.accept().unwrap();
                let log = Arc::clone(&log);
                served.push(std::thread::spawn(move || serve(stream, reply, &log)));
            }
            for s in served {
                s.join().unwrap();
            }
        });
        Server { base, requests, handle: Some(handle) }
    }

    fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// Waits for the script to be used up.
    fn finish(mut self) -> Vec<Request> {
        self.handle.take().unwrap().join().unwrap();
        self.requests()
    }
}

fn serve(stream: TcpStream, reply: Reply, log: &Mutex<Vec<Request>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    reader.read_line(&mut request_line).unwrap();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (k, v) = line.split_once(':').unwrap();
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .map(|(_, v)| v.parse().unwrap())
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).unwrap();
    let req = Request {
        request_line: request_line.trim_end().to_string(),
        headers,
        body: serde_json::from_slice(&body).unwrap(),
        at: Instant::now(),
    };
    let inputs = req.inputs();
    log.lock().unwrap().push(req);
    let mut stream = stream;
    let (status, extra, body) = match reply {
        Reply::Embeddings => {
            let data: Vec<_> = inputs
                .iter()
                .enumerate()
                .rev()
                .map(|(i, s)| {
                    serde_json::json!({
                        "object": "embedding",
                        "index": i,
                        "embedding": [s.chars().count() as f32, i as f32, 1.0, 0.0],
                    })
                })
                .collect();
            let body = serde_json::json!({
                "object": "list",
                "data": data,
                "model": "test-embed",
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            });
            (200, Vec::new(), body.to_string())
        }
        Reply::Status(status, extra, body) => (status, extra, body.to_string()),
        Reply::Hang(d) => {
            std::thread::sleep(d);
            return;
        }
    };
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in extra {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    // The client may have given up (timeouts); ignore write errors.
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
    let _ = stream.flush();
}

fn config(base: &str) -> OpenAiConfig {
    OpenAiConfig::new(base, "test-embed")
        .timeout(Duration::from_secs(5))
        .backoff(Duration::from_millis(20), Duration::from_secs(5))
}

#[test]
fn normal_answer_batched_in_order() {
    let server = Server::start(vec![Reply::Embeddings, Reply::Embeddings, Reply::Embeddings]);
    let e = OpenAiEmbedder::new(config(&server.base).batch_size(2).api_key("sk-test-key")).unwrap();
    assert_eq!(e.dim(), 0, "unknown before the first response");
    assert_eq!(e.id(), "test-embed");
    let v = e.embed_documents(&["a", "bb", "ccc", "", "eeeee"]).unwrap();
    let reqs = server.finish();
    assert_eq!(reqs.len(), 3);
    // Back in input order despite the reversed listing: [len, index within batch, 1, 0].
    let got: Vec<(f32, f32)> = v.iter().map(|x| (x[0], x[1])).collect();
    assert_eq!(got, vec![(1.0, 0.0), (2.0, 1.0), (3.0, 0.0), (1.0, 1.0), (5.0, 0.0)]);
    assert_eq!(e.dim(), 4);
    let r = &reqs[0];
    assert_eq!(r.request_line, "POST /v1/embeddings HTTP/1.1");
    assert_eq!(r.header("authorization"), Some("Bearer sk-test-key"));
    assert_eq!(r.body["model"], "test-embed");
    assert_eq!(r.body["encoding_format"], "float");
    assert_eq!(r.inputs(), vec!["a", "bb"]);
    assert_eq!(reqs[1].inputs(), vec!["ccc", " "], "an empty text goes as a space");
    assert_eq!(reqs[2].inputs(), vec!["eeeee"]);
}

#[test]
fn prefixes_and_no_key() {
    let server = Server::start(vec![Reply::Embeddings, Reply::Embeddings]);
    let e =
        OpenAiEmbedder::new(config(&server.base).prefixes("search_document: ", "search_query: ")).unwrap();
    e.embed_documents(&["x"]).unwrap();
    let q = e.embed_query("y").unwrap();
    assert_eq!(q.len(), 4);
    let reqs = server.finish();
    assert_eq!(reqs[0].inputs(), vec!["search_document: x"]);
    assert_eq!(reqs[1].inputs(), vec!["search_query: y"]);
    assert_eq!(reqs[0].header("authorization"), None);
}

#[test]
fn retry_after_429_is_honoured() {
    let server = Server::start(vec![
        Reply::Status(429, vec![("retry-after", "1")], r#"{"error":{"message":"rate limited"}}"#),
        Reply::Embeddings,
    ]);
    let e = OpenAiEmbedder::new(config(&server.base)).unwrap();
    let start = Instant::now();
    let v = e.embed_query("hello").unwrap();
    assert_eq!(v, vec![5.0, 0.0, 1.0, 0.0]);
    let reqs = server.finish();
    assert_eq!(reqs.len(), 2);
    let gap = reqs[1].at - reqs[0].at;
    assert!(gap >= Duration::from_millis(950), "retried after {gap:?}");
    assert!(start.elapsed() < Duration::from_secs(4));
}

#[test]
fn server_error_then_success() {
    let server = Server::start(vec![
        Reply::Status(500, vec![], "internal error"),
        Reply::Status(503, vec![], ""),
        Reply::Embeddings,
    ]);
    let e = OpenAiEmbedder::new(config(&server.base)).unwrap();
    let v = e.embed_documents(&["one", "two"]).unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(server.finish().len(), 3);
}

#[test]
fn gives_up_after_max_retries() {
    let replies = (0..3).map(|_| Reply::Status(502, vec![], "bad gateway")).collect();
    let server = Server::start(replies);
    let e = OpenAiEmbedder::new(config(&server.base).max_retries(2)).unwrap();
    let err = e.embed_query("x").unwrap_err();
    assert!(matches!(err, AiError::Http { status: 502, .. }), "{err:?}");
    assert_eq!(server.finish().len(), 3);
}

#[test]
fn client_errors_are_not_retried_and_key_is_hidden() {
    let server = Server::start(vec![Reply::Status(
        401,
        vec![],
        r#"{"error":{"message":"Incorrect API key provided: sk-very-secret"}}"#,
    )]);
    let e = OpenAiEmbedder::new(config(&server.base).api_key("sk-very-secret")).unwrap();
    let err = e.embed_query("x").unwrap_err();
    let AiError::Http { status, .. } = &err else { panic!("{err:?}") };
    assert_eq!(*status, 401);
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains("sk-very-secret"), "{shown}");
    assert!(shown.contains("Incorrect API key"), "{shown}");
    assert_eq!(server.finish().len(), 1);
}

#[test]
fn malformed_json_is_a_typed_error() {
    let server = Server::start(vec![
        Reply::Status(200, vec![], r#"{"data": [{"embedding": [1.0, 2.0"#),
        Reply::Status(
            200,
            vec![],
            r#"{"data": [{"embedding": [1.0], "index": 0}, {"embedding": [1.0], "index": 1}]}"#,
        ),
        Reply::Status(200, vec![], r#"{"object": "list", "data": [{"embedding": "AAAA", "index": 0}]}"#),
    ]);
    let e = OpenAiEmbedder::new(config(&server.base)).unwrap();
    assert!(matches!(e.embed_query("x"), Err(AiError::Response(_))), "truncated JSON");
    let err = e.embed_query("x").unwrap_err();
    assert!(matches!(&err, AiError::Response(m) if m.contains("2 embeddings for 1")), "{err:?}");
    assert!(matches!(e.embed_query("x"), Err(AiError::Response(_))), "base64 instead of floats");
    assert_eq!(server.finish().len(), 3, "malformed answers are not retried");
}

#[test]
fn dimension_change_is_an_error() {
    let server = Server::start(vec![
        Reply::Embeddings,
        Reply::Status(200, vec![], r#"{"data": [{"embedding": [1.0, 2.0], "index": 0}]}"#),
    ]);
    let e = OpenAiEmbedder::new(config(&server.base)).unwrap();
    e.embed_query("x").unwrap();
    assert_eq!(e.dim(), 4);
    assert!(matches!(e.embed_query("x"), Err(AiError::Response(_))));
    server.finish();
}

#[test]
fn timeout_then_success() {
    let server = Server::start(vec![Reply::Hang(Duration::from_millis(1000)), Reply::Embeddings]);
    let e = OpenAiEmbedder::new(config(&server.base).timeout(Duration::from_millis(300))).unwrap();
    let v = e.embed_query("abc").unwrap();
    assert_eq!(v[0], 3.0);
    assert_eq!(server.finish().len(), 2);
}

#[test]
fn connection_refused_is_retried_then_reported() {
    // A port that was free a moment ago.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let e = OpenAiEmbedder::new(
        OpenAiConfig::new(format!("http://127.0.0.1:{port}/v1"), "m")
            .api_key("sk-hidden")
            .max_retries(2)
            .backoff(Duration::from_millis(10), Duration::from_millis(50)),
    )
    .unwrap();
    let start = Instant::now();
    let err = e.embed_documents(&["x"]).unwrap_err();
    assert!(matches!(err, AiError::Transport(_)), "{err:?}");
    assert!(!err.to_string().contains("sk-hidden"));
    assert!(start.elapsed() >= Duration::from_millis(15), "two backoffs were waited");
}
