//! The client against a peer written here on a plain TCP listener: the headers it sends (cookies, CSRF token,
//! Origin), what it makes of answers (statuses, cookies, bodies that are not JSON, rate limits), and its
//! sockets (the upgrade's headers, messages both ways, timeouts and closes). The real server is tested with
//! this client in `crates/server/tests/api.rs`.

use std::time::Duration;

use serde_json::{Value, json};
use tesuji_client::{Action, Client, Error, Options, SocketOptions};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};

/// A request as the peer read it: the request line, the headers (names in lower case) and the body.
#[derive(Debug)]
struct Seen {
    line: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

async fn read_request(stream: &mut BufReader<TcpStream>) -> Option<Seen> {
    let mut line = String::new();
    if stream.read_line(&mut line).await.ok()? == 0 {
        return None;
    }
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        stream.read_line(&mut h).await.ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (name, value) = h.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.ok()?;
    Some(Seen {
        line: line.trim_end().to_owned(),
        headers,
        body: String::from_utf8(body).unwrap(),
    })
}

/// A canned answer: the status, extra headers, the body.
type Canned = (u16, Vec<(&'static str, &'static str)>, &'static str);

/// An HTTP peer answering each request with the next of `answers`; every request it read goes to the channel.
async fn http_peer(answers: Vec<Canned>) -> (String, mpsc::UnboundedReceiver<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::unbounded_channel();
    let answers = std::sync::Arc::new(std::sync::Mutex::new(answers.into_iter()));
    tokio::spawn(async move {
        // A task per connection: a client keeps its connection open while another opens one.
        while let Ok((stream, _)) = listener.accept().await {
            let (tx, answers) = (tx.clone(), answers.clone());
            tokio::spawn(async move {
                let mut stream = BufReader::new(stream);
                while let Some(seen) = read_request(&mut stream).await {
                    let _ = tx.send(seen);
                    let Some((status, headers, body)) = answers.lock().unwrap().next() else {
                        return;
                    };
                    let mut text = format!(
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
                        body.len()
                    );
                    for (name, value) in headers {
                        text.push_str(&format!("{name}: {value}\r\n"));
                    }
                    text.push_str("\r\n");
                    text.push_str(body);
                    stream.get_mut().write_all(text.as_bytes()).await.unwrap();
                }
            });
        }
    });
    (base, rx)
}

const SIGNED_IN: &str = r#"{"user": {"id": 7, "name": "ann", "guest": true}, "csrf": "c5"}"#;

#[tokio::test]
async fn requests_carry_the_session_cookie_the_csrf_token_and_the_origin() {
    let (base, mut seen) = http_peer(vec![
        (
            201,
            vec![(
                "set-cookie",
                "tesuji_session=abc; HttpOnly; SameSite=Lax; Path=/",
            )],
            SIGNED_IN,
        ),
        (200, vec![], r#"{"version": 2}"#),
        (
            422,
            vec![],
            r#"{"error": "occupied", "reason": "occupied"}"#,
        ),
        (200, vec![], r#"{"user": null}"#),
        (200, vec![], "not json"),
    ])
    .await;
    let mut c = Client::new(&format!("{base}/")).unwrap();
    assert_eq!(c.base(), base);
    let session = c.guest("ann").await.unwrap();
    assert_eq!(session.user.id, 7);
    assert_eq!(session.csrf, "c5");
    assert_eq!(
        session.set_cookie.as_deref(),
        Some("tesuji_session=abc; HttpOnly; SameSite=Lax; Path=/")
    );
    assert_eq!((c.user_id(), c.csrf()), (Some(7), Some("c5")));
    let r = seen.recv().await.unwrap();
    assert_eq!(r.line, "POST /api/guest HTTP/1.1");
    assert_eq!(r.header("origin"), Some(base.as_str()));
    assert_eq!(r.header("cookie"), None);
    assert_eq!(
        serde_json::from_str::<Value>(&r.body).unwrap(),
        json!({"name": "ann"})
    );

    // An action over HTTP: its path and body, the cookie, the CSRF token and the Origin.
    let answer = c.act(3, Action::Dead("C3"), Some(5)).await.unwrap();
    assert_eq!(answer, (200, json!({"version": 2})));
    let r = seen.recv().await.unwrap();
    assert_eq!(r.line, "POST /api/games/3/dead HTTP/1.1");
    assert_eq!(r.header("cookie"), Some("tesuji_session=abc"));
    assert_eq!(r.header("x-csrf-token"), Some("c5"));
    assert_eq!(r.header("origin"), Some(base.as_str()));
    assert_eq!(
        serde_json::from_str::<Value>(&r.body).unwrap(),
        json!({"point": "C3", "version": 5})
    );
    // A refusal is an answer like any other.
    let (status, body) = c.play(3, "D4").await.unwrap();
    assert_eq!((status, body["reason"].as_str()), (422, Some("occupied")));
    let r = seen.recv().await.unwrap();
    assert_eq!(r.line, "POST /api/games/3/moves HTTP/1.1");
    assert_eq!(
        serde_json::from_str::<Value>(&r.body).unwrap(),
        json!({"move": "D4"})
    );
    // A GET has the cookie, and neither the token nor an Origin.
    assert_eq!(c.get("/api/session").await.unwrap().0, 200);
    let r = seen.recv().await.unwrap();
    assert_eq!(r.line, "GET /api/session HTTP/1.1");
    assert_eq!(r.header("cookie"), Some("tesuji_session=abc"));
    assert_eq!((r.header("x-csrf-token"), r.header("origin")), (None, None));
    // A body that is not JSON is an error that says what it was.
    match c.game(3).await {
        Err(Error::NotJson { status, body, .. }) => {
            assert_eq!((status, body.as_str()), (200, "not json"))
        }
        other => panic!("{other:?}"),
    }
    // Another user agent shares nothing but the connections.
    let other = c.another();
    assert_eq!((other.user_id(), other.csrf()), (None, None));
}

#[tokio::test]
async fn a_refused_sign_in_and_rate_limits() {
    let (base, mut seen) = http_peer(vec![
        (
            429,
            vec![("retry-after", "1")],
            r#"{"reason": "rate_limited"}"#,
        ),
        (
            429,
            vec![("retry-after", "1")],
            r#"{"reason": "rate_limited"}"#,
        ),
        (
            201,
            vec![("set-cookie", "tesuji_session=xyz; Path=/")],
            SIGNED_IN,
        ),
        (
            200,
            vec![("set-cookie", "tesuji_session=; Path=/; Max-Age=0")],
            "{}",
        ),
        (200, vec![], "{}"),
    ])
    .await;
    let mut c = Client::new(&base).unwrap();
    match c.guest("ann").await {
        Err(Error::Refused { status, body, .. }) => {
            assert_eq!(
                (status, body["reason"].as_str()),
                (429, Some("rate_limited"))
            )
        }
        other => panic!("{other:?}"),
    }
    assert!(c.session().is_none());
    // With retries the client waits the second out and signs in.
    let mut patient = Client::with_options(
        &base,
        Options {
            rate_limit_retries: 2,
            ..Options::default()
        },
    )
    .unwrap();
    let started = std::time::Instant::now();
    patient.guest("ann").await.unwrap();
    assert!(started.elapsed() >= Duration::from_secs(1));
    for _ in 0..3 {
        seen.recv().await.unwrap();
    }
    // Signing out forgets the session, and the cookie the server cleared is sent no more.
    assert_eq!(patient.log_out().await.unwrap().0, 200);
    let r = seen.recv().await.unwrap();
    assert_eq!(r.header("cookie"), Some("tesuji_session=xyz"));
    assert_eq!(patient.csrf(), None);
    patient.get("/api/session").await.unwrap();
    assert_eq!(seen.recv().await.unwrap().header("cookie"), None);
}

/// A WebSocket peer: the upgrade's headers go to the channel, then it sends `greeting`, forwards what it reads,
/// and closes after reading `bye`.
async fn ws_peer() -> (
    String,
    mpsc::UnboundedReceiver<Vec<(String, String)>>,
    mpsc::UnboundedReceiver<String>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (head_tx, head_rx) = mpsc::unbounded_channel();
    let (text_tx, text_rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        use futures_util::{SinkExt, StreamExt};
        let (stream, _) = listener.accept().await.unwrap();
        // The signature is tungstenite's, its large error type included.
        #[allow(clippy::result_large_err)]
        let callback = |request: &Request, response: Response| {
            let headers = request
                .headers()
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_str().unwrap().to_owned()))
                .collect();
            head_tx.send(headers).unwrap();
            Ok(response)
        };
        let mut ws = tokio_tungstenite::accept_hdr_async(stream, callback)
            .await
            .unwrap();
        ws.send(Message::Ping(vec![1].into())).await.unwrap();
        ws.send(Message::Text(r#"{"type":"state","version":4}"#.into()))
            .await
            .unwrap();
        while let Some(Ok(m)) = ws.next().await {
            if let Message::Text(t) = m {
                if t.as_str() == "bye" {
                    ws.send(Message::Text(r#"{"type":"presence"}"#.into()))
                        .await
                        .unwrap();
                    ws.send(Message::Text(r#"{"type":"move","version":5}"#.into()))
                        .await
                        .unwrap();
                    ws.close(None).await.unwrap();
                    return;
                }
                text_tx.send(t.as_str().to_owned()).unwrap();
            }
        }
    });
    (base, head_rx, text_rx)
}

#[tokio::test]
async fn sockets_carry_the_cookie_and_origin_and_speak_json() {
    let (base, mut heads, mut texts) = ws_peer().await;
    // A sign-in at one address plants the cookie; the same user agent at another port sends it on the socket
    // (cookies know hosts, not ports).
    let cookie = "tesuji_session=s1; HttpOnly; Path=/";
    let (http_base, _seen) = http_peer(vec![(201, vec![("set-cookie", cookie)], SIGNED_IN)]).await;
    let mut signer = Client::new(&http_base).unwrap();
    signer.guest("ann").await.unwrap();
    assert_eq!(
        signer.session().unwrap().set_cookie.as_deref(),
        Some(cookie)
    );
    let c = signer.at(&base).unwrap();
    assert_eq!(c.csrf(), Some("c5"));

    let mut ws = c.game_socket(12).await.unwrap();
    let head = heads.recv().await.unwrap();
    let get = |name: &str| head.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    assert_eq!(get("cookie").as_deref(), Some("tesuji_session=s1"));
    assert_eq!(get("origin"), Some(base.clone()));
    // The ping is skipped; the state comes as JSON.
    assert_eq!(
        ws.next_json().await.unwrap(),
        json!({"type": "state", "version": 4})
    );
    ws.act(Action::Play("D4"), Some(4), 9).await.unwrap();
    ws.act(Action::Accept, None, "a").await.unwrap();
    ws.resync().await.unwrap();
    for want in [
        json!({"type": "play", "move": "D4", "version": 4, "ref": 9}),
        json!({"type": "accept", "ref": "a"}),
        json!({"type": "resync"}),
    ] {
        let got: Value = serde_json::from_str(&texts.recv().await.unwrap()).unwrap();
        assert_eq!(got, want);
    }
    // Nothing comes: a timeout, typed.
    ws.set_timeout(Some(Duration::from_millis(50)));
    assert!(matches!(ws.next_json().await, Err(Error::Timeout)));
    ws.set_timeout(Some(Duration::from_secs(5)));
    ws.send_text("bye").await.unwrap();
    let m = ws.next_matching(|m| m["type"] == "move").await.unwrap();
    assert_eq!(m["version"], 5);
    assert!(matches!(ws.next_json().await, Err(Error::Closed)));
}

#[tokio::test]
async fn a_socket_can_name_another_origin() {
    let (base, mut heads, _texts) = ws_peer().await;
    let c = Client::new(&base).unwrap();
    let options = SocketOptions {
        origin: Some("http://elsewhere.example".to_owned()),
        read_buffer: Some(4096),
        write_buffer: Some(0),
    };
    let mut ws = c.socket("/api/lobby/ws", &options).await.unwrap();
    let head = heads.recv().await.unwrap();
    assert!(
        head.contains(&("origin".to_owned(), "http://elsewhere.example".to_owned())),
        "{head:?}"
    );
    assert!(!head.iter().any(|(n, _)| n == "cookie"));
    assert_eq!(ws.next_json().await.unwrap()["version"], 4);
}

#[test]
fn only_http_urls_are_clients() {
    assert!(matches!(
        Client::new("ftp://example.com"),
        Err(Error::Url { .. })
    ));
    assert!(matches!(Client::new("not a url"), Err(Error::Url { .. })));
    let c = Client::new("https://example.com/").unwrap();
    assert_eq!(c.url("/api/lobby"), "https://example.com/api/lobby");
}
