//! Health and monitoring (docs/API.md, "Health and metrics"): `GET /healthz` answers whether the store does,
//! within its 2 s, and `GET /metrics` is Prometheus text whose counters follow the actions played and the
//! sockets opened.

mod support;

use support::faulty::Faulty;

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tesuji_client::reqwest::Method;
use tesuji_client::{Action, Client};
use tesuji_server::{Database, Running, ServerConfig, start, start_with_stores};

/// The counters are the process's: the tests that read them take turns (the others play no action and open
/// no socket).
static COUNTED: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn config(dir: &Path) -> ServerConfig {
    ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        database: Database::Sqlite(dir.to_path_buf()),
        ..ServerConfig::default()
    }
}

async fn guest(running: &Running, name: &str) -> Client {
    let mut c = Client::new(&format!("http://{}", running.address)).unwrap();
    c.guest(name).await.unwrap();
    c
}

/// A started game on 9×9: Black created it, White joined.
async fn seated(running: &Running) -> (i64, Client, Client) {
    let black = guest(running, "black").await;
    let white = guest(running, "white").await;
    let (status, table) = black
        .create_game(
            json!({"rules": "tromp-taylor:size=9", "color": "black", "opponent": "anyone"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 201, "{table}");
    let id = table["id"].as_i64().unwrap();
    let (status, state) = white.join(id, None).await.unwrap();
    assert_eq!(status, 200, "{state}");
    (id, black, white)
}

/// A GET without a session: status, headers and body.
async fn fetch(c: &Client, path: &str) -> (u16, tesuji_client::reqwest::header::HeaderMap, String) {
    let response = c.request(Method::GET, path).send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.text().await.unwrap())
}

fn header<'a>(headers: &'a tesuji_client::reqwest::header::HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .to_str()
        .unwrap()
}

async fn healthz(c: &Client) -> (u16, Value) {
    let (status, headers, body) = fetch(c, "/healthz").await;
    assert_eq!(header(&headers, "cache-control"), "no-store");
    assert!(
        header(&headers, "content-type").starts_with("application/json"),
        "{headers:?}"
    );
    (status, serde_json::from_str(&body).unwrap())
}

// ---- a store whose ping can fail or hang ----

async fn sick_server(dir: &Path) -> (Running, Arc<Faulty>) {
    let store = Arc::new(Faulty::open(dir).await);
    let running = start_with_stores(config(dir), store.stores())
        .await
        .unwrap();
    (running, store)
}

// ---- Prometheus text ----

/// The samples of a scrape, by name and labels as written (`tesuji_sockets`, `x_bucket{le="0.1"}`), after
/// checking the format: every line a comment or `name{labels} value`, every sample's family with a `# HELP`
/// and a `# TYPE` before it, no family described twice, no sample twice.
fn parse_prometheus(text: &str) -> BTreeMap<String, f64> {
    fn is_name(s: &str) -> bool {
        let mut chars = s.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
    }
    /// The end of a label set that starts at `s[0] == '{'`, checking each `name="value"`.
    fn labels_end(s: &str, line: &str) -> usize {
        let bytes = s.as_bytes();
        let mut i = 1;
        loop {
            if bytes.get(i) == Some(&b'}') {
                return i + 1;
            }
            let eq = s[i..]
                .find('=')
                .unwrap_or_else(|| panic!("a label without a value: {line}"));
            assert!(is_name(&s[i..i + eq]), "a bad label name: {line}");
            i += eq + 1;
            assert_eq!(bytes.get(i), Some(&b'"'), "an unquoted label value: {line}");
            i += 1;
            loop {
                match bytes.get(i) {
                    Some(b'\\') => {
                        assert!(
                            matches!(bytes.get(i + 1), Some(b'\\' | b'"' | b'n')),
                            "a bad escape: {line}"
                        );
                        i += 2;
                    }
                    Some(b'"') => break,
                    Some(b'\n') | None => panic!("an unterminated label value: {line}"),
                    Some(_) => i += 1,
                }
            }
            i += 1;
            match bytes.get(i) {
                Some(b',') => i += 1,
                Some(b'}') => {}
                _ => panic!("labels not separated by commas: {line}"),
            }
        }
    }

    let mut help = HashMap::new();
    let mut kind: HashMap<String, String> = HashMap::new();
    let mut samples = BTreeMap::new();
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, doc) = rest.split_once(' ').unwrap_or((rest, ""));
            assert!(is_name(name) && !doc.trim().is_empty(), "{line}");
            assert!(
                help.insert(name.to_owned(), ()).is_none(),
                "two HELPs: {line}"
            );
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, t) = rest.split_once(' ').unwrap_or_else(|| panic!("{line}"));
            assert!(is_name(name), "{line}");
            assert!(
                ["counter", "gauge", "histogram", "summary", "untyped"].contains(&t),
                "{line}"
            );
            assert!(
                kind.insert(name.to_owned(), t.to_owned()).is_none(),
                "two TYPEs: {line}"
            );
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let name_end = line.find(['{', ' ']).unwrap_or_else(|| panic!("{line}"));
        let name = &line[..name_end];
        assert!(is_name(name), "a bad metric name: {line}");
        let key_end = if line[name_end..].starts_with('{') {
            name_end + labels_end(&line[name_end..], line)
        } else {
            name_end
        };
        let rest = line[key_end..]
            .strip_prefix(' ')
            .unwrap_or_else(|| panic!("no space before the value: {line}"));
        let mut fields = rest.split(' ');
        let value = match fields.next().unwrap() {
            "+Inf" => f64::INFINITY,
            "-Inf" => f64::NEG_INFINITY,
            v => v
                .parse::<f64>()
                .unwrap_or_else(|_| panic!("a value that is no number: {line}")),
        };
        // An optional timestamp, and nothing after it.
        if let Some(t) = fields.next() {
            t.parse::<i64>().unwrap_or_else(|_| panic!("{line}"));
        }
        assert_eq!(fields.next(), None, "{line}");
        // A histogram's samples belong to the family named without their suffix.
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .filter_map(|s| name.strip_suffix(s))
            .find(|f| kind.get(*f).is_some_and(|t| t == "histogram"))
            .unwrap_or(name);
        assert!(
            help.contains_key(family) && kind.contains_key(family),
            "no HELP and TYPE before {line}"
        );
        assert!(
            samples.insert(line[..key_end].to_owned(), value).is_none(),
            "a sample twice: {line}"
        );
    }
    assert!(!samples.is_empty(), "no samples in\n{text}");
    samples
}

/// A scrape of `/metrics`, checked and parsed.
async fn scrape(c: &Client) -> BTreeMap<String, f64> {
    let (status, headers, text) = fetch(c, "/metrics").await;
    assert_eq!(status, 200, "{text}");
    assert!(
        header(&headers, "content-type").starts_with("text/plain; version=0.0.4"),
        "{headers:?}"
    );
    assert_eq!(header(&headers, "cache-control"), "no-store");
    parse_prometheus(&text)
}

fn sample(samples: &BTreeMap<String, f64>, key: &str) -> f64 {
    *samples
        .get(key)
        .unwrap_or_else(|| panic!("no {key} among {samples:?}"))
}

/// The ack histogram's buckets in the order of their bounds, checked to rise with them and to end at `+Inf`
/// with the count.
fn ack_buckets(samples: &BTreeMap<String, f64>) -> Vec<(f64, f64)> {
    let mut buckets: Vec<(f64, f64)> = samples
        .iter()
        .filter_map(|(k, &v)| {
            let le = k
                .strip_prefix("tesuji_action_ack_seconds_bucket{le=\"")?
                .strip_suffix("\"}")?;
            let le = if le == "+Inf" {
                f64::INFINITY
            } else {
                le.parse().unwrap()
            };
            Some((le, v))
        })
        .collect();
    buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert_eq!(buckets.first().map(|b| b.0), Some(0.001), "{buckets:?}");
    assert!(buckets.iter().any(|b| b.0 == 1.0), "{buckets:?}");
    assert_eq!(buckets.last().map(|b| b.0), Some(f64::INFINITY));
    assert!(
        buckets.windows(2).all(|w| w[0].1 <= w[1].1),
        "buckets that fall: {buckets:?}"
    );
    assert_eq!(
        buckets.last().unwrap().1,
        sample(samples, "tesuji_action_ack_seconds_count"),
        "+Inf is not the count"
    );
    buckets
}

/// Polls `check` until it holds, failing after `within`.
async fn eventually<F: Future<Output = bool>>(within: Duration, mut check: impl FnMut() -> F) {
    let deadline = Instant::now() + within;
    while !check().await {
        assert!(Instant::now() < deadline, "not so within {within:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

// ---- the tests ----

#[tokio::test]
async fn healthz_is_ok_without_a_session_and_to_every_probe() {
    let dir = tempfile::tempdir().unwrap();
    let running = start(config(dir.path())).await.unwrap();
    let c = Client::new(&format!("http://{}", running.address)).unwrap();
    let (status, body) = healthz(&c).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"ok": true, "checks": {"store": "ok"}}));
    // Far more probes than any per-address limit lets through, at once: a load balancer's are never refused.
    let probes = (0..100).map(|_| healthz(&c));
    for (status, body) in futures_util::future::join_all(probes).await {
        assert_eq!(status, 200, "{body}");
    }
    // HEAD too, as some balancers probe.
    let head = c.request(Method::HEAD, "/healthz").send().await.unwrap();
    assert_eq!(head.status().as_u16(), 200);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn healthz_is_503_with_the_reason_while_the_store_fails() {
    let dir = tempfile::tempdir().unwrap();
    let (running, store) = sick_server(dir.path()).await;
    let c = Client::new(&format!("http://{}", running.address)).unwrap();
    assert_eq!(healthz(&c).await.0, 200);

    store.ping_fails.store(true, Ordering::SeqCst);
    let (status, body) = healthz(&c).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["ok"], false, "{body}");
    let why = body["checks"]["store"].as_str().unwrap();
    assert!(why.contains("pool") && why.contains("closed"), "{body}");

    // Each check asks the store again: it is healthy as soon as the store answers.
    store.ping_fails.store(false, Ordering::SeqCst);
    let (status, body) = healthz(&c).await;
    assert_eq!(
        (status, body),
        (200, json!({"ok": true, "checks": {"store": "ok"}}))
    );
    running.stop().await.unwrap();
}

#[tokio::test]
async fn healthz_is_503_after_2_s_when_the_store_never_answers_and_probes_share_a_ping() {
    let dir = tempfile::tempdir().unwrap();
    let (running, store) = sick_server(dir.path()).await;
    let c = Client::new(&format!("http://{}", running.address)).unwrap();
    store.ping_hangs.store(true, Ordering::SeqCst);
    let pings = store.pings.load(Ordering::SeqCst);
    let started = Instant::now();
    let probes = (0..5).map(|_| healthz(&c));
    for (status, body) in futures_util::future::join_all(probes).await {
        assert_eq!(status, 503, "{body}");
        assert_eq!(
            body,
            json!({"ok": false, "checks": {"store": "no answer to a ping within 2 s"}})
        );
    }
    let took = started.elapsed();
    assert!(
        (Duration::from_secs(2)..Duration::from_secs(4)).contains(&took),
        "{took:?}"
    );
    // The probes that came while a ping was unanswered took its answer rather than queueing pings of their own.
    assert_eq!(store.pings.load(Ordering::SeqCst) - pings, 1);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn metrics_count_every_committed_action_and_its_ack_time() {
    let _turn = COUNTED.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let running = start(config(dir.path())).await.unwrap();
    let anyone = Client::new(&format!("http://{}", running.address)).unwrap();
    let before = scrape(&anyone).await;
    ack_buckets(&before);
    for family in [
        "tesuji_build_info",
        "tesuji_actions_total",
        "tesuji_action_ack_seconds",
        "tesuji_store_errors_total",
        "tesuji_sockets",
        "tesuji_live_games",
    ] {
        assert!(
            before.keys().any(|k| k.starts_with(family)),
            "no {family} in {before:?}"
        );
    }
    assert_eq!(
        sample(
            &before,
            &format!(
                "tesuji_build_info{{version=\"{}\"}}",
                env!("CARGO_PKG_VERSION")
            )
        ),
        1.0
    );
    assert_eq!(sample(&before, "tesuji_live_games"), 0.0);

    let (id, black, white) = seated(&running).await;
    // Over HTTP, a refused action between them (it counts nowhere), then over the socket.
    let moves = ["E5", "C3", "G7", "pass"];
    for (i, mv) in moves.iter().enumerate() {
        let player = if i % 2 == 0 { &black } else { &white };
        let (status, state) = player.play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{state}");
    }
    let (status, refused) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 422, "{refused}");
    let mut socket = black.game_socket(id).await.unwrap();
    socket.next_json().await.unwrap();
    socket.act(Action::Play("D4"), None, 1).await.unwrap();
    let ack = socket
        .next_matching(|m| m["ref"] == 1 && m["type"] != "move")
        .await
        .unwrap();
    assert_eq!(ack["type"], "ack", "{ack}");
    socket.close().await.unwrap();
    let played = moves.len() as f64 + 1.0;

    let after = scrape(&anyone).await;
    let delta = |key: &str| sample(&after, key) - sample(&before, key);
    assert_eq!(delta("tesuji_actions_total"), played);
    assert_eq!(delta("tesuji_action_ack_seconds_count"), played);
    assert!(delta("tesuji_action_ack_seconds_sum") > 0.0);
    assert_eq!(delta("tesuji_store_errors_total"), 0.0);
    let buckets = ack_buckets(&after);
    assert_eq!(
        buckets.last().unwrap().1,
        sample(&after, "tesuji_actions_total")
    );
    assert_eq!(sample(&after, "tesuji_live_games"), 1.0);

    // The game ends: it is no longer live (its resignation counted like any action).
    assert_eq!(white.act(id, Action::Resign, None).await.unwrap().0, 200);
    let ended = scrape(&anyone).await;
    assert_eq!(
        sample(&ended, "tesuji_actions_total") - sample(&after, "tesuji_actions_total"),
        1.0
    );
    assert_eq!(sample(&ended, "tesuji_live_games"), 0.0);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn the_socket_gauge_follows_a_socket_opened_and_closed() {
    let _turn = COUNTED.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let running = start(config(dir.path())).await.unwrap();
    let (id, black, _white) = seated(&running).await;
    let anyone = Client::new(&format!("http://{}", running.address)).unwrap();
    let sockets = || async { sample(&scrape(&anyone).await, "tesuji_sockets") };
    let before = sockets().await;
    let mut socket = black.game_socket(id).await.unwrap();
    // The first state has come: the socket is being served, so it is counted.
    socket.next_json().await.unwrap();
    assert_eq!(sockets().await, before + 1.0);
    let mut watcher = anyone.game_socket(id).await.unwrap();
    watcher.next_json().await.unwrap();
    assert_eq!(sockets().await, before + 2.0);
    socket.close().await.unwrap();
    eventually(Duration::from_secs(5), || async {
        sockets().await == before + 1.0
    })
    .await;
    // A socket dropped without a close frame counts as closed too.
    drop(watcher);
    eventually(Duration::from_secs(5), || async {
        sockets().await == before
    })
    .await;
    running.stop().await.unwrap();
}
