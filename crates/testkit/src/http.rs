//! A local HTTP/1.1 server for the HTTP clients' tests: every connection on its own thread, each
//! request answered by a handler, requests logged with their arrival time, and the largest number
//! of requests in flight at once recorded. No external network.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the server does with one request.
pub enum Reply {
    /// A status, extra headers and a body, after a delay.
    Json {
        /// The HTTP status code (200, 429, 529, …).
        status: u16,
        /// Headers sent besides `content-type: application/json`, `content-length` and
        /// `connection: close`.
        headers: Vec<(String, String)>,
        /// The body, as sent.
        body: String,
        /// How long the server waits before it answers.
        delay: Duration,
    },
    /// Never answers; closes after the time given (the client must time out first).
    Hang(Duration),
    /// Closes the connection without an answer.
    Drop,
}

impl Reply {
    /// A 200 answer with a JSON body, at once.
    pub fn ok(body: serde_json::Value) -> Reply {
        Reply::Json { status: 200, headers: Vec::new(), body: body.to_string(), delay: Duration::ZERO }
    }
    /// An answer with a status, headers and a body, at once.
    pub fn status(status: u16, headers: &[(&str, &str)], body: &str) -> Reply {
        Reply::Json {
            status,
            headers: headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            body: body.to_string(),
            delay: Duration::ZERO,
        }
    }
    /// A 200 answer with a JSON body, after `delay`.
    pub fn slow(body: serde_json::Value, delay: Duration) -> Reply {
        Reply::Json { status: 200, headers: Vec::new(), body: body.to_string(), delay }
    }
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request target from the request line (`/v1/messages`).
    pub path: String,
    /// The headers as sent, names and values trimmed.
    pub headers: Vec<(String, String)>,
    /// The JSON body; `Null` when there is none or it is not JSON.
    pub body: serde_json::Value,
    /// When the request had been read whole.
    pub at: Instant,
}

impl Request {
    /// The value of a header, its name in any case; `None` when it was not sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

type Handler = dyn Fn(&Request, usize) -> Reply + Send + Sync;

/// A server on a free port of 127.0.0.1, serving on its own threads until the process ends.
pub struct Server {
    /// Its root URL, `http://127.0.0.1:PORT`, without a trailing slash.
    pub url: String,
    log: Arc<Mutex<Vec<Request>>>,
    max_in_flight: Arc<AtomicUsize>,
}

impl Server {
    /// Serves until the process ends; `handler(request, n)` answers the n-th request (from 0).
    pub fn start(handler: impl Fn(&Request, usize) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let log = Arc::new(Mutex::new(Vec::new()));
        let in_flight = Arc::new(AtomicUsize::new(0));
        let max_in_flight = Arc::new(AtomicUsize::new(0));
        let handler: Arc<Handler> = Arc::new(handler);
        let counter = Arc::new(AtomicUsize::new(0));
        let (l, f, m) = (log.clone(), in_flight.clone(), max_in_flight.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (l, f, m, h, c) = (l.clone(), f.clone(), m.clone(), handler.clone(), counter.clone());
                std::thread::spawn(move || serve(stream, &l, &f, &m, h.as_ref(), &c));
            }
        });
        Server { url, log, max_in_flight }
    }

    /// The requests received so far, in the order they were read.
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }

    /// The most requests handled at once (read, and not yet answered).
    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }
}

fn serve(
    stream: TcpStream,
    log: &Mutex<Vec<Request>>,
    in_flight: &AtomicUsize,
    max_in_flight: &AtomicUsize,
    handler: &Handler,
    counter: &AtomicUsize,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 {
            return;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let req = Request {
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
        at: Instant::now(),
    };
    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    max_in_flight.fetch_max(now, Ordering::SeqCst);
    log.lock().unwrap().push(req.clone());
    let n = counter.fetch_add(1, Ordering::SeqCst);
    let reply = handler(&req, n);
    let mut stream = &stream;
    let done = |f: &AtomicUsize| {
        f.fetch_sub(1, Ordering::SeqCst);
    };
    match reply {
        Reply::Json { status, headers, body, delay } => {
            std::thread::sleep(delay);
            let mut head = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            done(in_flight);
            // A client that gave up (a timeout under test) has hung up: nothing to answer.
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
            let _ = stream.flush();
        }
        Reply::Hang(d) => {
            std::thread::sleep(d);
            done(in_flight);
        }
        Reply::Drop => {
            done(in_flight);
            // The connection is dropped on purpose; one the client closed first is dropped too.
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
    }
}

/// An Anthropic Messages answer with prompt-cache usage.
pub fn anthropic_answer(text: &str, cache_write: u64, cache_read: u64) -> serde_json::Value {
    serde_json::json!({
        "id": "msg_test", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 40, "output_tokens": 20,
                  "cache_creation_input_tokens": cache_write, "cache_read_input_tokens": cache_read}
    })
}

/// An OpenAI chat-completions answer.
pub fn openai_answer(text: &str) -> serde_json::Value {
    serde_json::json!({
        "id": "chatcmpl-test", "object": "chat.completion", "model": "llama3.2",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 500, "completion_tokens": 30, "prompt_tokens_details": {"cached_tokens": 400}}
    })
}

/// The chunk a context request asks about.
pub fn chunk_of(req: &Request) -> String {
    let text = if let Some(parts) = req.body["messages"][0]["content"].as_array() {
        parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n")
    } else {
        req.body["messages"][0]["content"].as_str().unwrap_or("").to_string()
    };
    let start = text.find("<chunk>\n").map(|i| i + 8).unwrap_or(0);
    let end = text.find("\n</chunk>").unwrap_or(text.len());
    text[start..end].to_string()
}
