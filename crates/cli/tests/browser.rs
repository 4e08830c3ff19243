//! End to end in a real headless Chromium, driven over WebDriver by Debian's `chromedriver`. The tests share one
//! site, set up once by this file's own `main` (`harness = false`, with `libtest-mimic`): a server on manual
//! time, one chromedriver and three browsers, Ann, Bob and Cat, where a newcomer's lobby is checked and Ann and
//! Bob sign up through the login page. Then the tests run in turn, each window first sized back to the desktop:
//! - two players and a spectator: one creates a 9×9 `bga` table in the lobby and the other joins it from the
//!   live lobby list; they play a game with a capture and a refused ko retake by clicking the board, pass, mark
//!   a dead stone, accept, and both see the same result and count, which the spectator's page shows too (on the
//!   way they chat: each sees the other's messages, markup shown as typed, and Bob mutes Ann and takes it back;
//!   and Ann asks to take back a misplayed stone, which Bob declines, then accepts on a phone-sized page); the
//!   downloaded SGF gives the same result under `tesuji score`;
//! - an invite link shown where the creator looks, and a table cancelled;
//! - two timed games on the server's manual time: one lost on time (`B+T` on both pages), and one claimed from
//!   a player who left, through the page's notice and button; the rematch they start is watched by a guest on
//!   a phone, who asks the engine for an estimate of its position (the players are offered none), sees it on
//!   the board, and sees it go out of date with the next move;
//! - a record opened on the replay page is reviewed by the engine, and its review's address shows it again, on
//!   a phone too; one opened by a visitor not signed in is there again when they come back from signing in;
//! - automatch, then a ranked game ended by a resignation, which moves both ratings on their pages;
//! - Ann takes a vacation and comes back: their correspondence game's page marks her away, her clock standing
//!   still, and running again once she is back;
//! - the pages in Japanese and Korean through the header's language menu, and English back;
//! - the account page on a phone;
//! - in each of the four languages, at 1280 and at 390 px: a newcomer's lobby, a missing page, an invite link, a
//!   ranked game's clock and rules in words, its rating change when it is counted, its count under other rules,
//!   a rematch offer, and the computer's dispute.
//!
//! The WebDriver protocol is spoken directly (a handful of JSON-over-HTTP commands, W3C WebDriver) with reqwest,
//! so no TLS stack or driver download comes in; what the test asks the server itself (the SGF download) goes
//! through `tesuji_client`, as in the other tests.
//!
//! With `TESUJI_SCREENSHOTS=1` the test also saves `lobby.png`, `game.png`, `superko.png` (a refused retake and
//! the position it would repeat), `rulesets.png` (a finished game under other rules), `review.png` (a spectator
//! looking back during the game), `replay-phone.png` (a record's facts and comments on a phone), `analysis.png` and
//! `analysis-phone.png` (a finished game's review), `estimate-phone.png` (a spectator's estimate during play),
//! `replay-analysis.png` and `replay-analysis-phone.png` (an opened record's review) in `docs/screenshots/`.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tesuji_client::Client;
use tesuji_server::{Limits, ManualTime, ServerConfig, TimeSource, start};

/// How long any one thing may take to show on a page.
const WAIT: Duration = Duration::from_secs(5);
/// How often a wait looks again.
const POLL: Duration = Duration::from_millis(40);
/// The key of an element reference in WebDriver answers.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";
const INSTALL: &str = "install them with `apt-get install chromium chromium-driver`";
const CHROMIUM: &str = "/usr/bin/chromium";

type Res<T> = Result<T, String>;

// ---- chromedriver ----

/// A `chromedriver` child in a process group of its own; dropping it kills the group (the driver and the
/// browsers it started), so a failing test leaves nothing running.
struct ChromeDriver {
    child: Child,
    url: String,
}

impl ChromeDriver {
    async fn start() -> ChromeDriver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut command = Command::new("chromedriver");
        command
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = match command.spawn() {
            Ok(child) => child,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                panic!(
                    "this test needs Chromium and ChromeDriver: `chromedriver` is not on the PATH; {INSTALL}"
                )
            }
            Err(e) => panic!("cannot start chromedriver: {e}"),
        };
        let mut driver = ChromeDriver {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        let http = reqwest::Client::new();
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = driver.child.try_wait() {
                panic!("chromedriver exited at start ({status}); is it installed? {INSTALL}");
            }
            let ready = match http
                .get(format!("{}/status", driver.url))
                .timeout(Duration::from_secs(1))
                .send()
                .await
            {
                Ok(r) => r
                    .json::<Value>()
                    .await
                    .ok()
                    .map(|v| v["value"]["ready"] == true),
                Err(_) => None,
            };
            if ready == Some(true) {
                return driver;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "chromedriver did not answer on {} within 10 s",
                driver.url
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for ChromeDriver {
    fn drop(&mut self) {
        // The whole group: chromedriver and the Chromium processes it started.
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---- one browser ----

/// One WebDriver session: a headless Chromium with its own profile (so its own cookies).
struct Browser {
    name: &'static str,
    http: reqwest::Client,
    /// `http://127.0.0.1:PORT/session/ID`
    session: String,
    /// The tesuji server, `http://127.0.0.1:PORT`.
    base: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    async fn open(driver: &ChromeDriver, base: &str, name: &'static str) -> Res<Browser> {
        let profile = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mut options = json!({
            "args": [
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--window-size=1280,900",
                "--lang=en-US",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-quic",
                format!("--user-data-dir={}", profile.path().display()),
            ],
        });
        if Path::new(CHROMIUM).exists() {
            options["binary"] = json!(CHROMIUM);
        }
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| e.to_string())?;
        let capabilities = json!({
            "capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "pageLoadStrategy": "normal",
                "timeouts": {"pageLoad": 10_000, "script": 5_000, "implicit": 0},
                "goog:chromeOptions": options,
            }}
        });
        let answer = http
            .post(format!("{}/session", driver.url))
            .json(&capabilities)
            .send()
            .await
            .map_err(|e| format!("{name}: new session: {e}"))?;
        let body: Value = answer.json().await.map_err(|e| e.to_string())?;
        let Some(id) = body["value"]["sessionId"].as_str() else {
            return Err(format!(
                "{name}: chromedriver could not start Chromium ({INSTALL}): {}",
                body["value"]["message"]
            ));
        };
        let browser = Browser {
            name,
            session: format!("{}/session/{id}", driver.url),
            http,
            base: base.to_owned(),
            _profile: profile,
        };
        browser.fit_viewport(1280, 900).await?;
        Ok(browser)
    }

    /// Sizes the window so that the page itself gets `width` × `height` (headless windows count a frame too).
    /// The frame is measured on the window as it is, and a phone-sized window's is not a wide one's: while the
    /// page misses the size, the window is sized again by what it missed (a few times at most).
    async fn fit_viewport(&self, width: i64, height: i64) -> Res<()> {
        let frame = self
            .js(
                "return [outerWidth - innerWidth, outerHeight - innerHeight]",
                json!([]),
            )
            .await?;
        let (mut w, mut h) = (
            width + frame[0].as_i64().unwrap_or(0),
            height + frame[1].as_i64().unwrap_or(0),
        );
        let mut inner = Value::Null;
        for _ in 0..4 {
            self.post("/window/rect", json!({"width": w, "height": h}))
                .await?;
            // The page learns of its new size a moment after the window.
            tokio::time::sleep(Duration::from_millis(50)).await;
            inner = self
                .js("return [innerWidth, innerHeight]", json!([]))
                .await?;
            if inner == json!([width, height]) {
                break;
            }
            w += width - inner[0].as_i64().unwrap_or(width);
            h += height - inner[1].as_i64().unwrap_or(height);
        }
        same(
            &format!("{}'s viewport", self.name),
            inner,
            json!([width, height]),
        )
    }

    /// One WebDriver command; answers its `value`.
    async fn cmd(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Res<Value> {
        let mut request = self
            .http
            .request(method.clone(), format!("{}{path}", self.session));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let answer = request
            .send()
            .await
            .map_err(|e| format!("{}: {method} {path}: {e}", self.name))?;
        let ok = answer.status().is_success();
        let body: Value = answer
            .json()
            .await
            .map_err(|e| format!("{}: {method} {path}: {e}", self.name))?;
        if !ok {
            return Err(format!(
                "{}: {method} {path}: {} ({})",
                self.name, body["value"]["error"], body["value"]["message"]
            ));
        }
        Ok(body["value"].clone())
    }

    async fn post(&self, path: &str, body: Value) -> Res<Value> {
        self.cmd(reqwest::Method::POST, path, Some(body)).await
    }

    /// Opens a page of the server and waits until its module script has run to its end (listeners attached).
    async fn goto(&self, path: &str) -> Res<()> {
        self.post("/url", json!({"url": format!("{}{path}", self.base)}))
            .await?;
        self.ready().await
    }

    /// Waits until the page's module script has finished (its top-level `await boot()` included): importing the
    /// module again resolves only then. The pages set no ready marker of their own.
    async fn ready(&self) -> Res<()> {
        let script = "const done = arguments[arguments.length - 1];
            const s = document.querySelector('script[type=module]');
            if (!s) { done('no module script'); return; }
            import(s.src).then(() => done(true), (e) => done(String(e)));";
        let v = self
            .post("/execute/async", json!({"script": script, "args": []}))
            .await?;
        if v == true {
            Ok(())
        } else {
            Err(format!("{}: the page's script failed: {v}", self.name))
        }
    }

    async fn js(&self, script: &str, args: Value) -> Res<Value> {
        self.post("/execute/sync", json!({"script": script, "args": args}))
            .await
    }

    async fn find(&self, css: &str) -> Res<String> {
        let v = self
            .post("/element", json!({"using": "css selector", "value": css}))
            .await?;
        v[ELEMENT]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{}: no element id for {css}: {v}", self.name))
    }

    /// A real click (WebDriver moves the pointer to the element's centre and presses there).
    async fn click(&self, css: &str) -> Res<()> {
        let id = self.find(css).await?;
        self.post(&format!("/element/{id}/click"), json!({}))
            .await
            .map(drop)
    }

    /// Presses and releases a key on the page, as a keyboard would (WebDriver's key codes: `\u{E012}` is the
    /// left arrow).
    async fn key(&self, code: char) -> Res<()> {
        let key = code.to_string();
        self.post(
            "/actions",
            json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
                {"type": "keyDown", "value": key},
                {"type": "keyUp", "value": key},
            ]}]}),
        )
        .await
        .map(drop)
    }

    /// Whether the board is wholly inside the window: [top, bottom, the window's height, the page's scroll].
    async fn board_on_screen(&self) -> Res<Value> {
        let v = self
            .js(
                "const r = document.getElementById('board').getBoundingClientRect();
                 return [Math.round(r.top), Math.round(r.bottom), innerHeight, Math.round(scrollY)];",
                json!([]),
            )
            .await?;
        let n = |k: usize| v[k].as_i64().unwrap_or(-1);
        if n(0) < 0 || n(1) > n(2) {
            return Err(format!(
                "{}: the board is not wholly on screen (top, bottom, window, scroll): {v}",
                self.name
            ));
        }
        Ok(v)
    }

    async fn type_into(&self, css: &str, text: &str) -> Res<()> {
        let id = self.find(css).await?;
        self.post(&format!("/element/{id}/clear"), json!({}))
            .await?;
        self.post(&format!("/element/{id}/value"), json!({"text": text}))
            .await
            .map(drop)
    }

    /// Chooses an option of a `<select>` by clicking it, as a user would.
    async fn choose(&self, select: &str, value: &str) -> Res<()> {
        self.click(&format!("{select} option[value=\"{value}\"]"))
            .await?;
        let now = self
            .js(
                "return document.querySelector(arguments[0]).value",
                json!([select]),
            )
            .await?;
        if now == value {
            Ok(())
        } else {
            Err(format!(
                "{}: {select} is {now} after choosing {value}",
                self.name
            ))
        }
    }

    /// Polls `script` until it answers something other than null, false or "" (answered), for at most [`WAIT`].
    async fn wait_js(&self, what: &str, script: &str, args: Value) -> Res<Value> {
        self.wait_js_for(what, script, args, WAIT).await
    }

    /// As [`Browser::wait_js`], for at most `budget`: for what the server takes its time over (a review).
    async fn wait_js_for(
        &self,
        what: &str,
        script: &str,
        args: Value,
        budget: Duration,
    ) -> Res<Value> {
        let started = Instant::now();
        loop {
            let v = self.js(script, args.clone()).await?;
            if !(v.is_null() || v == false || v == "") {
                return Ok(v);
            }
            if started.elapsed() > budget {
                return Err(format!(
                    "{}: waited {budget:?} for {what} (last answer {v})",
                    self.name
                ));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    async fn wait_for(&self, css: &str) -> Res<()> {
        self.wait_js(
            css,
            "return document.querySelector(arguments[0]) !== null",
            json!([css]),
        )
        .await
        .map(drop)
    }

    async fn wait_path(&self, pattern: &str) -> Res<String> {
        let v = self
            .wait_js(
                &format!("the address {pattern}"),
                "return new RegExp(arguments[0]).test(location.pathname) && location.pathname",
                json!([pattern]),
            )
            .await?;
        Ok(v.as_str().unwrap_or_default().to_owned())
    }

    /// The text of the first element matching `css` (None when there is none).
    async fn text(&self, css: &str) -> Res<Option<String>> {
        let v = self
            .js(
                "const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : null",
                json!([css]),
            )
            .await?;
        Ok(v.as_str().map(str::to_owned))
    }

    async fn exists(&self, css: &str) -> Res<bool> {
        Ok(self
            .js(
                "return document.querySelector(arguments[0]) !== null",
                json!([css]),
            )
            .await?
            == true)
    }

    /// The game page once its state and live socket are there.
    async fn game_ready(&self) -> Res<()> {
        self.wait_for("#game-live[data-status=\"open\"]").await?;
        self.wait_for("#turn[data-status]").await
    }

    /// Waits until the move list has move `number` `mv` (a point or `pass`), and for a point until the
    /// stone is drawn there.
    async fn wait_move(&self, number: usize, color: &str, mv: &str) -> Res<()> {
        self.wait_js(
            &format!("move {number} {color} {mv}"),
            "const [n, color, mv] = arguments;
             const last = document.querySelector(`#moves li[data-number=\"${n}\"]`);
             if (!last || last.dataset.move !== mv) return false;
             return mv === 'pass'
               || document.querySelector(`#board [data-stone=\"${color}\"][data-point=\"${mv}\"]`) !== null;",
            json!([number, color, mv]),
        )
        .await
        .map(drop)
    }

    /// Waits until the chat shows a message whose text is exactly `text`; answers its [author's name, channel,
    /// move, author's id].
    async fn wait_chat(&self, text: &str) -> Res<Value> {
        self.wait_js(
            &format!("the chat message {text:?}"),
            "const li = [...document.querySelectorAll('#chat-list li')]
               .find((li) => li.querySelector('.chat-text')?.textContent === arguments[0]);
             return li ? [li.querySelector('.chat-who a')?.textContent, li.dataset.channel, li.dataset.move,
                          li.dataset.user] : null;",
            json!([text]),
        )
        .await
    }

    /// The count as the page shows it: each row of `#score` as [row, cells...].
    async fn score_table(&self) -> Res<Value> {
        self.js(
            "const t = document.getElementById('score');
             if (!t || t.hidden) return null;
             return [...t.querySelectorAll('tr[data-row]')].map((tr) =>
               [tr.dataset.row, ...[...tr.querySelectorAll('td')].map((td) => td.textContent.trim())]);",
            json!([]),
        )
        .await
    }

    async fn screenshot(&self, path: &Path) -> Res<()> {
        let v = self.cmd(reqwest::Method::GET, "/screenshot", None).await?;
        let png = base64_decode(v.as_str().unwrap_or_default());
        if !png.starts_with(b"\x89PNG") {
            return Err(format!("{}: the screenshot is no PNG", self.name));
        }
        std::fs::write(path, png).map_err(|e| format!("{}: {}: {e}", self.name, path.display()))
    }

    /// What helps after a failure: the address, `#message`, and a screenshot in the temp folder.
    async fn diagnose(&self) -> String {
        let url = self
            .cmd(reqwest::Method::GET, "/url", None)
            .await
            .unwrap_or_else(|e| json!(e));
        // #message of the game page, and any refusal box on display (lobby, login forms).
        let message = self
            .js(
                "const shown = [...document.querySelectorAll('#message, [role=alert]')].filter((e) => !e.hidden);
                 return shown.length
                   ? shown.map((e) => `${e.id ? '#' + e.id : e.className}`
                       + `${e.dataset.reason ? ' [' + e.dataset.reason + ']' : ''}: ${e.textContent.trim()}`).join('; ')
                   : '#message hidden, no refusal shown';",
                json!([]),
            )
            .await
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .unwrap_or_else(|e| e);
        let shot = std::env::temp_dir().join(format!(
            "tesuji-browser-{}-{}.png",
            self.name,
            std::process::id()
        ));
        let shot = match self.screenshot(&shot).await {
            Ok(()) => shot.display().to_string(),
            Err(e) => e,
        };
        format!("  {}: at {url}; {message}; screenshot {shot}", self.name)
    }

    async fn quit(&self) {
        let _ = self.cmd(reqwest::Method::DELETE, "", None).await;
    }

    // ---- what a person does ----

    async fn sign_up(&self, name: &str, password: &str) -> Res<()> {
        self.goto("/login").await?;
        self.type_into("#signup input[name=name]", name).await?;
        self.type_into("#signup input[name=password]", password)
            .await?;
        self.click("#signup button[type=submit]").await?;
        self.wait_path("^/$").await?;
        self.ready().await?;
        let shown = self
            .wait_js(
                "#me-name",
                "const e = document.getElementById('me-name'); return e && e.textContent.trim()",
                json!([]),
            )
            .await?;
        if shown == name {
            Ok(())
        } else {
            Err(format!(
                "{}: signed up as {name}, the header shows {shown}",
                self.name
            ))
        }
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => continue,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// `Err(msg)` unless `a == b`.
fn same<T: PartialEq + std::fmt::Debug>(what: &str, a: T, b: T) -> Res<()> {
    if a == b {
        Ok(())
    } else {
        Err(format!("{what}: {a:?} != {b:?}"))
    }
}

// ---- the game ----

const PASSWORD: &str = "correct horse 9";

/// The game, Black (Ann) first: Black walls off columns A–E, White F–J. Black's F4 takes White's E4 (the capture);
/// White's retake at E4 at once is refused (the ko), so White plays F6 and Black connects at E4. Black's lone H7
/// is left inside White's area, to be marked dead.
const GAME: &[(&str, &str)] = &[
    ("black", "D4"),
    ("white", "E4"),
    ("black", "E5"),
    ("white", "F5"),
    ("black", "E3"),
    ("white", "F3"),
    ("black", "H7"),
    ("white", "G4"),
    ("black", "F4"), // takes E4
    ("white", "F6"), // after the refused retake at E4
    ("black", "E4"), // connects the ko
    ("white", "F7"),
    ("black", "E6"),
    ("white", "F8"),
    ("black", "E7"),
    ("white", "F9"),
    ("black", "E8"),
    ("white", "F2"),
    ("black", "E9"),
    ("white", "F1"),
    ("black", "E2"),
    ("white", "G7"),
    ("black", "E1"),
    ("white", "pass"),
    ("black", "pass"),
];
/// After this many moves White tries the ko retake.
const CAPTURE_AT: usize = 9;
/// After this many moves Ann and Bob chat.
const CHAT_AT: usize = 2;
/// Before this move (Black's, Ann's) Ann plays [`MISPLAYED`] instead, asks to take it back (Bob declines), asks
/// again (Bob accepts), then plays the game's move, numbered as the one taken back was.
const TAKE_BACK_AT: usize = 13;
const MISPLAYED: &str = "C3";
/// The actions the take-back adds to the list: the move taken back, the two requests and the two answers.
const TAKE_BACK_ACTIONS: usize = 5;
/// A message with markup, to be shown as typed.
const BOLD: &str = "Look: <b>bold</b>";
/// After this many moves the spectator looks back, and comes back to live after the next one.
const REVIEW_AT: usize = 5;
const ARROW_LEFT: char = '\u{E012}';
const ARROW_RIGHT: char = '\u{E014}';
const END: char = '\u{E010}';
const DEAD: &str = "H7";
/// Territory counting: Black 35 points (A–D less D4) + 1 prisoner = 36; White 25 points (G, H, J less G4 and G7;
/// H7 once removed) + 1 dead stone + komi 5 and the half point White gets for equal totals = 31.5.
const RESULT: &str = "B+4.5";

/// On a player's page: that player is to move.
fn my_turn(color: &str) -> String {
    format!("#turn[data-status=\"playing\"][data-phase=\"playing\"][data-color=\"{color}\"]")
}

/// What a newcomer sees, then Ann and Bob sign up: the accounts every test of the site uses.
async fn newcomers_sign_up(ann: &Browser, bob: &Browser) -> Res<()> {
    // A newcomer's lobby says in one line what the site is and offers the computer at once; open tables come
    // before everything else.
    ann.goto("/").await?;
    ann.wait_js(
        "the newcomer's welcome",
        "return !document.getElementById('welcome').hidden",
        json!([]),
    )
    .await?;
    same(
        "a newcomer's lobby (the offer, the first two cards)",
        ann.js(
            "const cards = [...document.querySelectorAll('main > .stack > section')]
               .map((s) => s.id || s.getAttribute('aria-labelledby'));
             return [document.getElementById('play-computer').textContent, cards.slice(0, 2)];",
            json!([]),
        )
        .await?,
        json!(["Play the computer now", ["welcome", "open-title"]]),
    )?;

    // Ann and Bob sign up through the login page's form.
    tokio::try_join!(ann.sign_up("Ann", PASSWORD), bob.sign_up("Bob", PASSWORD))?;
    ann.wait_js(
        "the welcome gone for an account",
        "return document.getElementById('welcome').hidden",
        json!([]),
    )
    .await?;
    Ok(())
}

async fn scenario(
    ann: &Browser,
    bob: &Browser,
    cat: &Browser,
    shots: Option<&Path>,
    time: &ManualTime,
) -> Res<()> {
    // Both are on the lobby now; Bob's list is live.
    bob.wait_for("#lobby-status[data-status=\"open\"]").await?;
    ann.wait_for("#lobby-status[data-status=\"open\"]").await?;

    // No table yet: whatever Bob's list shows next comes live.
    same(
        "Bob's open tables at first",
        bob.exists("#open-tables li[data-game-id]").await?,
        false,
    )?;

    // Ann creates the table through the form's fields.
    ann.choose("#preset", "bga").await?;
    ann.choose("#size", "9").await?;
    ann.choose("#counting", "japanese").await?;
    ann.choose("#komi", "normal").await?;
    ann.choose("#aga", "off").await?;
    ann.choose("#color", "black").await?;
    ann.choose("#opponent", "anyone").await?;
    let spec = "bga:size=9,counting=japanese,komi=normal,aga=off";
    same(
        "#spec-preview",
        ann.text("#spec-preview").await?.as_deref(),
        Some(spec),
    )?;
    ann.click("#create-submit").await?;
    let path = ann.wait_path("^/game/\\d+$").await?;
    let id: u64 = path["/game/".len()..]
        .parse()
        .map_err(|e| format!("{path}: {e}"))?;
    ann.ready().await?;
    ann.game_ready().await?;

    // Bob sees it appear in his lobby without reloading, and joins it there.
    let join = format!(
        "#open-tables li[data-game-id=\"{id}\"] button[data-join=\"{id}\"][data-color=\"white\"]"
    );
    bob.wait_for(&join).await?;
    // The entry says what the spec leaves unsaid: the komi the server counts with, and the clock.
    let komi = bob
        .js(
            "return fetch(`/api/games/${arguments[0]}`).then((r) => r.json()).then((s) => s.komi);",
            json!([id]),
        )
        .await?
        .as_i64()
        .ok_or("the state has no komi")?;
    let komi = format!("komi {}{}", komi / 2, if komi % 2 == 1 { ".5" } else { "" });
    let entry = bob
        .text(&format!("#open-tables li[data-game-id=\"{id}\"] .rules"))
        .await?
        .unwrap_or_default();
    if !(entry.contains(&komi) && entry.contains("no clock")) {
        return Err(format!("the lobby's entry says {entry:?}, not {komi:?}"));
    }
    if let Some(dir) = shots {
        bob.screenshot(&dir.join("lobby.png")).await?;
    }
    bob.click(&join).await?;
    bob.wait_path(&format!("^/game/{id}$")).await?;
    bob.ready().await?;
    bob.game_ready().await?;
    for b in [ann, bob] {
        b.wait_for("#turn[data-status=\"playing\"]").await?;
    }

    // Cat, not signed in, watches.
    cat.goto(&format!("/game/{id}")).await?;
    cat.game_ready().await?;
    cat.wait_for("#turn[data-status=\"playing\"]").await?;
    same(
        "Cat is not signed in",
        cat.exists("#login-link").await?,
        true,
    )?;
    same(
        "Cat has no pass button",
        cat.exists("#pass[hidden]").await?,
        true,
    )?;
    same(
        "Cat has no join button",
        cat.exists("#join[hidden]").await?,
        true,
    )?;

    // Where the last Pass button stood, and whose page it was on.
    let mut pass_place = None;
    // The actions that are no moves before the current one (the take-back's): `number` is the action's number
    // in the list, `turn` the move's, as the list numbers it.
    let mut extra = 0;
    for (k, &(color, mv)) in GAME.iter().enumerate() {
        let turn = k + 1;
        let player = if color == "black" { ann } else { bob };
        player.wait_for(&my_turn(color)).await?;
        if turn == TAKE_BACK_AT {
            take_back(ann, bob, cat, turn + extra, time).await?;
            extra += TAKE_BACK_ACTIONS;
        }
        let number = turn + extra;
        if mv == "pass" {
            pass_place = Some((player, place(player, "pass").await?));
            player.click("#pass").await?;
        } else {
            player
                .click(&format!("#board rect[data-point=\"{mv}\"]"))
                .await?;
        }
        if turn == REVIEW_AT + 1 {
            // Before the spectator's board can show the move.
            back_to_live(cat).await?;
        }
        for b in [ann, bob, cat] {
            b.wait_move(number, color, mv).await?;
            // A pass is said on the board (unless it ended play: then the marking has begun, with the server's
            // proposal as the last action); after a play the notice is gone.
            let notice = if mv == "pass" {
                format!(
                    "#board-notice:not([hidden])[data-move=\"pass\"][data-color=\"{color}\"], \
                     #turn[data-phase=\"marking\"]"
                )
            } else {
                "#board-notice[hidden]".to_owned()
            };
            b.wait_for(&notice).await?;
        }
        if turn == REVIEW_AT {
            look_back(cat, shots).await?;
        }
        if turn == CHAT_AT {
            chat(ann, bob, cat).await?;
            // No analysis while the game is in play: it would tell the players what to play.
            for b in [ann, cat] {
                same(
                    &format!("{}'s analysis card during play", b.name),
                    b.exists("#analysis[hidden]").await?,
                    true,
                )?;
            }
            // Nor an estimate for the players; Cat, watching but not signed in, is offered a link to sign in.
            same(
                "the estimate card during play (Ann's hidden; Cat's with the link to sign in, no button)",
                (
                    ann.exists("#estimate[hidden]").await?,
                    cat.exists(
                        "#estimate:not([hidden]) #estimate-signin:not([hidden]) a[href^=\"/login?next=\"]",
                    )
                    .await?,
                    cat.exists("#estimate-ask[hidden]").await?,
                ),
                (true, true, true),
            )?;
        }
        if turn == TAKE_BACK_AT {
            // The move played again has the number the one taken back had, on every page.
            for b in [ann, bob, cat] {
                same(
                    &format!("{}'s number of the move played after the take-back", b.name),
                    b.js(
                        "const li = document.querySelector(`#moves li[data-number=\"${arguments[0]}\"]`);
                         return li && [li.value, li.dataset.turn, li.className];",
                        json!([number]),
                    )
                    .await?,
                    json!([turn, turn.to_string(), "turn"]),
                )?;
            }
        }
        if turn == CAPTURE_AT {
            // Black's F4 took E4: gone from every page.
            for b in [ann, bob, cat] {
                b.wait_js(
                    "E4 taken off",
                    "return document.querySelector('#board [data-stone][data-point=\"E4\"]') === null",
                    json!([]),
                )
                .await?;
            }
            // The retake at once is refused, and the page says why.
            bob.wait_for(&my_turn("white")).await?;
            bob.click("#board rect[data-point=\"E4\"]").await?;
            let refusal = bob
                .wait_js(
                    "the ko refusal in #message",
                    "const m = document.getElementById('message');
                     return !m.hidden && m.dataset.reason === 'ko' && m.textContent.trim();",
                    json!([]),
                )
                .await?;
            // The headline, then the server's sentence naming the ko rule (bga: situational superko).
            let refusal = refusal.as_str().unwrap_or_default();
            if !(refusal.starts_with("Ko") && refusal.contains("situational superko")) {
                return Err(format!("the ko refusal says {refusal:?}"));
            }
            // Beside it, the state the retake would repeat: the one after White's G4 (move 8), White's E4
            // still on the small board, and move 8 marked in the list.
            same(
                "the move of the repeated position",
                bob.js(
                    "const r = document.getElementById('repeated'); return !r.hidden && r.dataset.move;",
                    json!([]),
                )
                .await?,
                json!("8"),
            )?;
            same(
                "White's E4 on the small board",
                bob.exists("#repeated-board [data-stone=\"white\"][data-point=\"E4\"]")
                    .await?,
                true,
            )?;
            same(
                "move 8 marked in the list",
                bob.exists("#moves li.repeated[data-number=\"8\"]").await?,
                true,
            )?;
            if let Some(dir) = shots {
                bob.screenshot(&dir.join("superko.png")).await?;
            }
            // Nothing was played.
            tokio::time::sleep(Duration::from_millis(200)).await;
            for b in [ann, bob, cat] {
                b.wait_move(number, color, mv).await?;
                same(
                    "E4 after the refused retake",
                    b.exists("#board [data-stone][data-point=\"E4\"]").await?,
                    false,
                )?;
            }
        }
    }

    // Two passes: the marking phase. Ann's lone stone is to be marked dead.
    for b in [ann, bob, cat] {
        b.wait_for("#turn[data-phase=\"marking\"]").await?;
    }
    for b in [ann, bob] {
        b.wait_for("#accept:not([hidden]):not([disabled])").await?;
    }
    // The pass that ended play left Dispute where Pass was: nothing graver stands under the pointer.
    let (passer, pass) = pass_place.ok_or("the game has a pass")?;
    let dispute = place(passer, "dispute").await?;
    let edges = |v: &Value| {
        let n = |k: usize| v[k].as_i64().unwrap_or(-1);
        (n(0), n(1), n(0) + n(2))
    };
    let ((pl, pt, pr), (dl, dt, dr)) = (edges(&pass), edges(&dispute));
    if !(dt == pt && dl <= pl && dr >= pr) {
        return Err(format!(
            "Dispute at {dispute} does not cover where Pass was, {pass}"
        ));
    }
    // The second pass brought the server's first proposal (the estimate's, as action 31: the 25 moves and the
    // take-back's 5 actions before it): it may have H7 dead already or leave it to the players (unsure), but never
    // proposes a living stone dead.
    let first = GAME.len() + TAKE_BACK_ACTIONS + 1;
    for b in [ann, bob, cat] {
        b.wait_for(&format!("#moves li[data-number=\"{first}\"]"))
            .await?;
    }
    // It is the server's, not the player's who passed last: said so, with no colour's dot.
    let server = cat
        .text(&format!(
            "#moves li.event[data-by=\"server\"][data-number=\"{first}\"]"
        ))
        .await?
        .unwrap_or_default();
    if !server.starts_with("The server's estimate proposes")
        || cat
            .exists(&format!("#moves li[data-number=\"{first}\"] .dot"))
            .await?
    {
        return Err(format!("the first proposal reads {server:?}"));
    }
    same(
        "living stones proposed dead",
        ann.exists(&format!(
            "#board [data-dead=\"true\"]:not([data-point=\"{DEAD}\"])"
        ))
        .await?,
        false,
    )?;
    let dead = format!("#board [data-stone=\"black\"][data-point=\"{DEAD}\"][data-dead=\"true\"]");
    if !ann.exists(&dead).await? {
        bob.click(&format!("#board rect[data-point=\"{DEAD}\"]"))
            .await?;
    }
    for b in [ann, bob, cat] {
        b.wait_for(&dead).await?;
    }
    // Before anyone accepts, every page shows the same count of the proposal: the result the game will have.
    let mut counts = Vec::new();
    for b in [ann, bob, cat] {
        counts.push(
            b.wait_js(
                "the proposal's count",
                "const c = document.getElementById('proposal-count');
                 return !c.hidden && [c.dataset.margin, c.textContent];",
                json!([]),
            )
            .await?,
        );
    }
    same("the counts on the three pages", &counts[1], &counts[0])?;
    // The board shades what the proposal counts: the dead stone is White's.
    for b in [ann, bob, cat] {
        b.wait_for(&format!(
            "#board rect.territory[data-territory=\"white\"][data-at=\"{DEAD}\"]"
        ))
        .await?;
    }
    same("the spectator's count", &counts[2], &counts[0])?;
    let proposed_margin = counts[0][0].clone();
    // Both accept, Bob once he sees Ann's acceptance.
    ann.click("#accept").await?;
    bob.wait_for("#player-black .accepted:not([hidden])")
        .await?;
    bob.click("#accept").await?;
    // The move list numbers the plays and passes only; the marks and accepts are events beside them.
    cat.wait_for("#moves li.event[data-move=\"accept\"] ~ li.event[data-move=\"accept\"]")
        .await?;
    same(
        "the numbered moves",
        cat.js(
            "return [...document.querySelectorAll('#moves li:not(.event)')].map((li) => li.value);",
            json!([]),
        )
        .await?,
        json!((1..=GAME.len()).collect::<Vec<_>>()),
    )?;
    same(
        "no event numbered",
        cat.exists("#moves li.event[value]").await?,
        false,
    )?;
    // The move taken back is still in the list, unnumbered, between the moves 12 and 13.
    same(
        "the move taken back in the finished game's list",
        cat.js(
            "const li = document.querySelector('#moves li.taken-back');
             return li && [li.dataset.move, li.previousElementSibling.value, li.hasAttribute('value'),
                           li.nextElementSibling.dataset.move];",
            json!([]),
        )
        .await?,
        json!([MISPLAYED, TAKE_BACK_AT - 1, false, "undo"]),
    )?;

    let mut results = Vec::new();
    let mut tables = Vec::new();
    for b in [ann, bob, cat] {
        let result = b
            .wait_js(
                "#result",
                "const r = document.getElementById('result');
                 return !document.getElementById('over').hidden && r.dataset.result && [r.dataset.result, r.textContent.trim()];",
                json!([]),
            )
            .await?;
        b.wait_for("#score:not([hidden])").await?;
        results.push(result);
        tables.push(b.score_table().await?);
    }
    same("Ann's and Bob's result", &results[0], &results[1])?;
    same("Ann's and Cat's result", &results[0], &results[2])?;
    same("Ann's and Bob's count", &tables[0], &tables[1])?;
    same("Ann's and Cat's count", &tables[0], &tables[2])?;
    same("the result", results[0][0].as_str(), Some(RESULT))?;
    same(
        "the result in words",
        results[0][1].as_str(),
        Some("Black wins by 4.5 (B+4.5)"),
    )?;
    // Under other rules: the game's own count first, then every other ruleset, each with a result (every
    // move of this game is legal everywhere).
    cat.wait_for("#rulesets-box:not([hidden]) #rulesets tbody tr.own")
        .await?;
    let rows = cat
        .js(
            "return [...document.querySelectorAll('#rulesets tbody tr')].map((r) => r.dataset.result);",
            json!([]),
        )
        .await?;
    let rows = rows.as_array().cloned().unwrap_or_default();
    same("rows under other rules", rows.len(), 12)?;
    same("this game's own row", rows[0].as_str(), Some(RESULT))?;
    if rows.iter().any(|r| r.as_str().is_none_or(str::is_empty)) {
        return Err(format!("a ruleset without a result: {rows:?}"));
    }
    if let Some(dir) = shots {
        cat.js(
            "const d = document.getElementById('rulesets-box'); d.open = true; d.scrollIntoView(); return true;",
            json!([]),
        )
        .await?;
        cat.screenshot(&dir.join("rulesets.png")).await?;
    }
    let row = |name: &str| {
        tables[0]
            .as_array()
            .and_then(|rows| rows.iter().find(|r| r[0] == name))
            .cloned()
            .unwrap_or(Value::Null)
    };
    for (name, black, white) in [
        ("stones", "11", "10"),
        ("territory", "35", "25"),
        ("captures", "1", "0"),
        ("dead", "0", "1"),
        ("komi", "0", "5.5"),
        ("total", "36", "31.5"),
    ] {
        same(
            &format!("the {name} row"),
            row(name),
            json!([name, black, white]),
        )?;
    }
    same("the margin row", row("margin"), json!(["margin", "4.5"]))?;
    same(
        "the margin shown before the accepts, in half-points",
        proposed_margin,
        json!("9"),
    )?;
    if let Some(dir) = shots {
        ann.screenshot(&dir.join("game.png")).await?;
    }

    // The record, downloaded through the page's link, counts the same under `tesuji score`.
    let href = ann
        .js("return document.getElementById('sgf').href", json!([]))
        .await?;
    let href = href.as_str().unwrap_or_default();
    same(
        "the SGF link",
        href.to_owned(),
        format!("{}/api/games/{id}/sgf", ann.base),
    )?;
    let (status, sgf) = Client::new(&ann.base)
        .map_err(|e| e.to_string())?
        .get_text(&format!("/api/games/{id}/sgf"))
        .await
        .map_err(|e| e.to_string())?;
    same("the SGF's status", status, 200)?;
    if !(sgf.contains("PB[Ann]")
        && sgf.contains("PW[Bob]")
        && sgf.contains(&format!("RE[{RESULT}]")))
    {
        return Err(format!("the SGF lacks names or result: {sgf}"));
    }
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let file = dir.path().join(format!("tesuji-{id}.sgf"));
    std::fs::write(&file, &sgf).map_err(|e| e.to_string())?;
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tesuji"))
        .arg("score")
        .arg(&file)
        .output()
        .await
        .map_err(|e| format!("tesuji score: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "tesuji score failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    same(
        "`tesuji score` of the SGF",
        stdout.lines().next(),
        results[0][0].as_str(),
    )
    .map_err(|e| format!("{e}\n{stdout}\n{sgf}"))?;

    // The finished game is in the archive with its result, and on a phone neither listing is wider than the
    // screen.
    cat.goto("/archive").await?;
    let row = format!("#games tr[data-game-id='{id}']");
    cat.wait_for(&row).await?;
    let shown = cat
        .js(
            "return document.querySelector(arguments[0] + ' td[data-result]').dataset.result",
            json!([row]),
        )
        .await?;
    same("the archive's result", shown, json!(RESULT))?;
    cat.fit_viewport(390, 844).await?;
    let ann_id = ann
        .js(
            "return document.getElementById('me-name').getAttribute('href')",
            json!([]),
        )
        .await?;
    for path in [
        "/archive".to_owned(),
        ann_id.as_str().unwrap_or("/player/1").to_owned(),
    ] {
        cat.goto(&path).await?;
        cat.wait_for(&row).await?;
        let widths = cat
            .js(
                // The table inside its scrolling box, and the page: neither may need sideways scrolling. The
                // page is measured inside its vertical scrollbar (clientWidth), which a long page has and
                // innerWidth counts.
                "const t = document.getElementById('games');
                 const page = document.documentElement;
                 return [t.scrollWidth - t.parentElement.clientWidth,
                         page.scrollWidth - page.clientWidth]",
                json!([]),
            )
            .await?;
        // How much wider than their boxes the table and the page are.
        if widths != json!([0, 0]) {
            return Err(format!(
                "{path} is wider than a 390 px screen (table, page): {widths}"
            ));
        }
    }
    steps_keep_the_board(cat, id).await?;
    chat_on_a_phone(cat, id).await?;
    replay_shows_the_record(cat, id, shots).await?;
    analysis(ann, cat, id, shots).await?;
    replay_of_the_reviewed_game(cat, id).await?;
    // Cat stays phone-sized: nothing after this uses its window.
    Ok(())
}

/// During the game (after move 2, Black to play) Ann says something, sent with Enter, and Bob answers with the
/// button: each message shows once on all three pages, as the players' talk at move 2. One with markup shows it
/// as text. Bob mutes Ann: her messages leave his page at once; he takes it back and they return. Cat, not
/// signed in, reads along with no box to write in, but a link to sign in.
async fn chat(ann: &Browser, bob: &Browser, cat: &Browser) -> Res<()> {
    ann.type_into("#chat-input", "Good luck!\u{E007}").await?;
    let mut seen = Vec::new();
    for b in [ann, bob, cat] {
        seen.push(b.wait_chat("Good luck!").await?);
    }
    let ann_id = seen[0][3].as_str().unwrap_or_default().to_owned();
    for shown in &seen {
        same(
            "Ann's message (author, channel, move)",
            &shown.as_array().map(|v| v[..3].to_vec()),
            &Some(vec![json!("Ann"), json!("players"), json!("2")]),
        )?;
    }
    // Sent: the box is empty again.
    ann.wait_js(
        "Ann's chat box emptied",
        "return document.getElementById('chat-input').value === ''",
        json!([]),
    )
    .await?;
    bob.type_into("#chat-input", "Have fun").await?;
    bob.click("#chat-send").await?;
    for b in [ann, bob, cat] {
        let shown = b.wait_chat("Have fun").await?;
        same(
            "Bob's answer (author, channel, move)",
            shown.as_array().map(|v| v[..3].to_vec()),
            Some(vec![json!("Bob"), json!("players"), json!("2")]),
        )?;
    }
    ann.type_into("#chat-input", BOLD).await?;
    ann.click("#chat-send").await?;
    for b in [ann, bob, cat] {
        b.wait_chat(BOLD).await?;
        same(
            &format!("{}'s chat: the messages in order, none twice, no markup made, the move named", b.name),
            b.js(
                "return [[...document.querySelectorAll('#chat-list li .chat-text')].map((p) => p.textContent),
                         document.querySelector('#chat-list b, #chat-list li .chat-text *') === null,
                         document.querySelector('#chat-list li .chat-move')?.textContent.trim()];",
                json!([]),
            )
            .await?,
            json!([["Good luck!", "Have fun", BOLD], true, "move 2"]),
        )?;
    }
    // Mute buttons beside others' messages only, and only for who is signed in.
    let mute_ann = format!("#chat-list li[data-user=\"{ann_id}\"] .chat-mute");
    same(
        "mute buttons (Ann's on her own, Ann's on Bob's, Bob's on Ann's, any on Cat's page)",
        (
            ann.exists(&mute_ann).await?,
            bob.exists(&mute_ann).await?,
            ann.exists("#chat-list li .chat-mute").await?,
            cat.exists("#chat-list li .chat-mute").await?,
        ),
        (false, true, true, false),
    )?;
    same(
        "Cat's chat: no box to write in, a link to sign in",
        (
            cat.exists("#chat-form[hidden]").await?,
            cat.exists("#chat-signin:not([hidden]) a[href^=\"/login?next=\"]")
                .await?,
        ),
        (true, true),
    )?;
    // Bob mutes Ann: her two messages go at once; he takes it back, and they come again.
    bob.click(&mute_ann).await?;
    bob.wait_js(
        "Ann's messages hidden on Bob's page",
        "return document.querySelectorAll(`#chat-list li[data-user=\"${arguments[0]}\"]`).length === 0
           && !document.getElementById('chat-muted').hidden;",
        json!([ann_id]),
    )
    .await?;
    bob.click("#chat-unmute").await?;
    bob.wait_js(
        "Ann's messages back on Bob's page",
        "return document.querySelectorAll(`#chat-list li[data-user=\"${arguments[0]}\"]`).length === 2
           && document.getElementById('chat-muted').hidden && document.getElementById('chat-error').hidden;",
        json!([ann_id]),
    )
    .await?;
    Ok(())
}

/// Before move 13 (Black's E6) Ann plays C3 instead and asks to take it back: Bob's page asks him, he declines
/// and the stone stays, and her page counts down the pause before she may ask again; 30 s later (on the
/// server's manual time, her page reloaded) she asks again, and Bob, on a phone-sized page, accepts: the stone
/// leaves every board,
/// Ann is to move again, and the list keeps C3 struck through and unnumbered, with the requests and answers as
/// events in words. `number` is the action number C3 gets.
async fn take_back(
    ann: &Browser,
    bob: &Browser,
    cat: &Browser,
    number: usize,
    time: &ManualTime,
) -> Res<()> {
    let turn = TAKE_BACK_AT;
    let stone = format!("#board [data-stone=\"black\"][data-point=\"{MISPLAYED}\"]");
    // The button is there from the start for both players, never for the spectator; only Ann's own last move
    // may be taken back, so only her button is enabled once she has played.
    ann.click(&format!("#board rect[data-point=\"{MISPLAYED}\"]"))
        .await?;
    for b in [ann, bob, cat] {
        b.wait_move(number, "black", MISPLAYED).await?;
    }
    ann.wait_for("#undo:not([hidden]):not([disabled])").await?;
    same(
        "Bob's and Cat's take-back buttons (disabled, hidden)",
        (
            bob.exists("#undo:not([hidden])[disabled]").await?,
            cat.exists("#undo[hidden]").await?,
        ),
        (true, true),
    )?;

    // Ann asks; Bob declines.
    ann.click("#undo").await?;
    ann.wait_for("#undo-waiting:not([hidden])").await?;
    ann.wait_for("#undo[disabled]").await?;
    bob.wait_for("#undo-prompt:not([hidden])[data-color=\"black\"]")
        .await?;
    let prompt = bob.text("#undo-prompt-text").await?.unwrap_or_default();
    if !prompt.contains(MISPLAYED) {
        return Err(format!(
            "Bob's prompt says {prompt:?}, not naming {MISPLAYED}"
        ));
    }
    same(
        "the prompt on Ann's and Cat's pages",
        (
            ann.exists("#undo-prompt[hidden]").await?,
            cat.exists("#undo-prompt[hidden]").await?,
        ),
        (true, true),
    )?;
    let asked = format!(
        "#moves li.event[data-move=\"undo\"][data-number=\"{}\"]",
        number + 1
    );
    cat.wait_for(&asked).await?;
    same(
        "the request in the list",
        cat.text(&asked).await?.as_deref(),
        Some("Black asks to take back a move"),
    )?;
    bob.wait_for("#undo-decline:not([disabled])").await?;
    bob.click("#undo-decline").await?;
    let declined = format!(
        "#moves li.event[data-move=\"undo-decline\"][data-color=\"white\"][data-number=\"{}\"]",
        number + 2
    );
    for b in [ann, bob, cat] {
        b.wait_for(&declined).await?;
        b.wait_for("#undo-prompt[hidden]").await?;
    }
    same(
        "the refusal in the list",
        cat.text(&declined).await?.as_deref(),
        Some("White declines: the move stays"),
    )?;
    // Declined: C3 stays, the last move, numbered 13; Bob is still to move.
    for b in [ann, bob, cat] {
        same(
            &format!("{}'s board and list after the refusal", b.name),
            (
                b.exists(&format!("{stone}[data-last=\"true\"]")).await?,
                b.exists(&format!(
                    "#moves li.turn[data-number=\"{number}\"][data-turn=\"{turn}\"]"
                ))
                .await?,
                b.exists(&my_turn("white")).await?,
            ),
            (true, true, true),
        )?;
    }
    ann.wait_for("#undo-waiting[hidden]").await?;
    // The refusal starts a pause: her button waits, and says so.
    ann.wait_for("#undo-paused:not([hidden])").await?;
    same(
        "Ann's take-back button during the pause",
        ann.exists("#undo[disabled]").await?,
        true,
    )?;
    // The pause runs on the server's time; the page counts its own down, so it is reloaded to see it over.
    time.advance(30_000);
    ann.js("location.reload(); return null;", json!([])).await?;
    ann.wait_for("#undo-paused[hidden]").await?;

    // Ann asks again; Bob, on a phone-sized page, accepts.
    ann.wait_for("#undo:not([disabled])").await?;
    ann.click("#undo").await?;
    bob.fit_viewport(390, 844).await?;
    bob.wait_for("#undo-prompt:not([hidden])").await?;
    bob.wait_for("#undo-accept:not([disabled])").await?;
    same(
        "on a phone: how much wider than the screen the page is, the prompt's buttons inside the screen",
        bob.js(
            "const page = document.documentElement;
             const inside = ['undo-accept', 'undo-decline'].every((id) => {
               const r = document.getElementById(id).getBoundingClientRect();
               return r.left >= 0 && r.right <= page.clientWidth && r.width > 0;
             });
             return [page.scrollWidth - page.clientWidth, inside];",
            json!([]),
        )
        .await?,
        json!([0, true]),
    )?;
    bob.click("#undo-accept").await?;
    let accepted = format!(
        "#moves li.event[data-move=\"undo-accept\"][data-color=\"white\"][data-number=\"{}\"]",
        number + 4
    );
    for b in [ann, bob, cat] {
        b.wait_for(&accepted).await?;
        b.wait_js(
            "the stone taken back off the board",
            "return document.querySelector(arguments[0]) === null",
            json!([stone]),
        )
        .await?;
    }
    bob.fit_viewport(1280, 900).await?;
    same(
        "the acceptance in the list",
        cat.text(&accepted).await?.as_deref(),
        Some("White accepts: the move is taken back"),
    )?;
    // Ann is to move again; the last move is White's 12 again; the list keeps C3, unnumbered and struck
    // through; the game has 12 moves again (the review's count), and no request waits.
    ann.wait_for(&my_turn("black")).await?;
    for b in [ann, bob, cat] {
        same(
            &format!("{}'s page after the take-back", b.name),
            b.js(
                "const li = document.querySelector(`#moves li[data-number=\"${arguments[0]}\"]`);
                 const last = document.querySelector('#board [data-last=\"true\"]');
                 return [li.className, li.hasAttribute('value'), li.dataset.turn ?? null,
                         li.querySelector('s')?.textContent, li.textContent.includes('taken back'),
                         last?.dataset.point, document.getElementById('review-slider').max,
                         document.getElementById('turn').dataset.color,
                         document.getElementById('undo-prompt').hidden,
                         document.getElementById('undo-waiting').hidden];",
                json!([number]),
            )
            .await?,
            json!([
                "event taken-back",
                false,
                null,
                MISPLAYED,
                true,
                GAME[turn - 2].1,
                (turn - 1).to_string(),
                "black",
                true,
                true
            ]),
        )?;
    }
    // Her move is gone: nothing of hers to take back.
    same(
        "Ann's take-back button",
        ann.exists("#undo[disabled]").await?,
        true,
    )?;
    Ok(())
}

/// The finished game's chat on a phone: the three messages, and nothing wider than the screen.
async fn chat_on_a_phone(cat: &Browser, id: u64) -> Res<()> {
    cat.goto(&format!("/game/{id}")).await?;
    cat.wait_chat(BOLD).await?;
    same(
        "the chat on a phone (messages; how much wider than the screen the page is)",
        cat.js(
            "const page = document.documentElement;
             return [document.querySelectorAll('#chat-list li').length, page.scrollWidth - page.clientWidth];",
            json!([]),
        )
        .await?,
        json!([3, 0]),
    )
}

/// The spectator of a live game steps back two moves (a button, then the left arrow key): the board shows the
/// earlier position, said to be so, while the game goes on. (Played: 1 D4, 2 E4, 3 E5, 4 F5, 5 E3.)
async fn look_back(cat: &Browser, shots: Option<&Path>) -> Res<()> {
    cat.click("#review-prev").await?;
    cat.wait_for("#review-banner:not([hidden])[data-move=\"4\"]")
        .await?;
    same(
        "E3 (move 5) on the board at move 4",
        cat.exists("#board [data-stone][data-point=\"E3\"]").await?,
        false,
    )?;
    cat.key(ARROW_LEFT).await?;
    cat.wait_for("#review-banner:not([hidden])[data-move=\"3\"]")
        .await?;
    same(
        "F5 (move 4) on the board at move 3, and the board marked",
        (
            cat.exists("#board [data-stone][data-point=\"F5\"]").await?,
            cat.exists("body.reviewing #back-to-live:not([hidden])")
                .await?,
        ),
        (false, true),
    )?;
    if let Some(dir) = shots {
        cat.screenshot(&dir.join("review.png")).await?;
    }
    Ok(())
}

/// Move 6 (F3) has been played while the spectator looked back: the position shown stays, the slider has grown;
/// the right arrow steps forward, a move in the list jumps there, and "Back to live" shows the game again.
async fn back_to_live(cat: &Browser) -> Res<()> {
    cat.wait_for("#moves li[data-turn=\"6\"]").await?;
    same(
        "the position looked at after a move was played, and the slider's end",
        cat.js(
            "return [document.getElementById('review-banner').dataset.move,
                     document.getElementById('review-slider').max,
                     document.querySelector('#board [data-stone][data-point=\"F3\"]') !== null];",
            json!([]),
        )
        .await?,
        json!(["3", "6", false]),
    )?;
    cat.key(ARROW_RIGHT).await?;
    cat.wait_for("#review-banner:not([hidden])[data-move=\"4\"]")
        .await?;
    cat.click("#moves li[data-turn=\"2\"]").await?;
    cat.wait_for("#review-banner:not([hidden])[data-move=\"2\"]")
        .await?;
    cat.wait_for("#moves li.current[data-turn=\"2\"]").await?;
    cat.click("#back-to-live").await?;
    cat.wait_for("#review-banner[hidden]").await?;
    same(
        "the live board again",
        (
            cat.exists("#board [data-stone=\"white\"][data-point=\"F3\"]")
                .await?,
            cat.exists("body.reviewing").await?,
            cat.exists("#back-to-live[hidden]").await?,
        ),
        (true, false, true),
    )?;
    // The End key from an earlier move is live too.
    cat.key(ARROW_LEFT).await?;
    cat.wait_for("#review-banner:not([hidden])[data-move=\"5\"]")
        .await?;
    cat.key(END).await?;
    cat.wait_for("#review-banner[hidden]").await?;
    Ok(())
}

/// On a phone-sized window, ten steps forward through a finished game (with the buttons under the board) leave
/// the board where it was and wholly on screen: on the replay page and on the game page.
async fn steps_keep_the_board(cat: &Browser, id: u64) -> Res<()> {
    // The replay page opens at the start, the game page at its end: what can be clicked first differs.
    for (path, first, next, ready) in [
        (format!("/replay?game={id}"), "#first", "#next", "#next"),
        (
            format!("/game/{id}"),
            "#review-first",
            "#review-next",
            "#review-first",
        ),
    ] {
        cat.goto(&path).await?;
        cat.wait_for(&format!("{ready}:not([disabled])")).await?;
        cat.click(first).await?;
        let before = cat.board_on_screen().await?;
        for _ in 0..10 {
            cat.click(next).await?;
            let now = cat.board_on_screen().await?;
            same(&format!("the board's place on {path}"), &now, &before)?;
        }
        let shown = cat
            .js(
                "return (document.getElementById('move-number') ?? document.getElementById('review-banner'))
                   .dataset.move",
                json!([]),
            )
            .await?;
        same(&format!("the move shown on {path}"), shown, json!("10"))?;
    }
    Ok(())
}

/// A record opened on the replay page shows what it says beyond the moves: ranks, date, event, place, the
/// comment at each move, and the count of its end with the dead stones it marks; a finished game's replay ends on
/// its count too.
async fn replay_shows_the_record(cat: &Browser, id: u64, shots: Option<&Path>) -> Res<()> {
    cat.goto(&format!("/replay?game={id}")).await?;
    cat.wait_for("#last:not([disabled])").await?;
    cat.click("#last").await?;
    cat.wait_for(&format!(
        "#board [data-point=\"{DEAD}\"][data-dead=\"true\"]"
    ))
    .await?;
    same(
        "the game's count on the replay (its margin in half-points)",
        cat.js(
            "const c = document.getElementById('count'); return !c.hidden && c.dataset.margin;",
            json!([]),
        )
        .await?,
        json!("9"),
    )?;

    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let file = dir.path().join("castle.sgf");
    std::fs::write(
        &file,
        "(;GM[1]FF[4]SZ[9]KM[6.5]RU[Chinese]PB[Honinbo Shusaku]BR[7d]PW[Gennan Inseki]WR[8d]\
         DT[1846-09-11]EV[Castle game]PC[Edo]C[Before the first move]\
         ;B[ee]C[Tengen.](;W[cc];B[gg];W[];B[]TW[gg])(;W[dd]C[Another reply.]))",
    )
    .map_err(|e| e.to_string())?;
    let input = cat.find("#sgf-file").await?;
    cat.post(
        &format!("/element/{input}/value"),
        json!({"text": file.display().to_string()}),
    )
    .await?;
    cat.wait_for("#info-date:not([hidden])").await?;
    let shown = cat
        .js(
            "return ['info-black', 'info-white', 'info-date', 'info-event', 'info-place', 'comment']
                .map((id) => document.getElementById(id).textContent.trim());",
            json!([]),
        )
        .await?;
    same(
        "the record's facts and its first comment",
        shown,
        json!([
            "Honinbo Shusaku (7d)",
            "Gennan Inseki (8d)",
            "1846-09-11",
            "Castle game",
            "Edo",
            "Before the first move"
        ]),
    )?;
    cat.click("#next").await?;
    cat.wait_for("#comment:not([hidden])[data-move=\"1\"]")
        .await?;
    if let Some(dir) = shots {
        cat.screenshot(&dir.join("replay-phone.png")).await?;
    }
    same(
        "the comment at move 1",
        cat.text("#comment").await?.as_deref().map(str::trim),
        Some("Tengen."),
    )?;
    // The record branches here: White's C7 (the main line) or D6 (a variation, with a comment of its own).
    cat.wait_for("#branches:not([hidden]) #branch-buttons button[data-line=\"1\"]")
        .await?;
    same(
        "the ways on after move 1",
        cat.js(
            "return [...document.querySelectorAll('#branch-buttons button')]
                .map((b) => [b.dataset.line, b.getAttribute('aria-pressed')]);",
            json!([]),
        )
        .await?,
        json!([["0", "true"], ["1", "false"]]),
    )?;
    cat.click("#branch-buttons button[data-line=\"1\"]").await?;
    cat.wait_for("#comment:not([hidden])[data-move=\"2\"]")
        .await?;
    same(
        "the variation's move and comment",
        (
            cat.exists("#board [data-stone=\"white\"][data-point=\"D6\"]")
                .await?,
            cat.exists("#board [data-stone][data-point=\"C7\"]").await?,
            cat.text("#comment").await?.as_deref().map(str::trim),
        ),
        (true, false, Some("Another reply.")),
    )?;
    // Back, and on along the main line.
    cat.click("#prev").await?;
    cat.click("#branch-buttons button[data-line=\"0\"]").await?;

    cat.wait_for("#comment[hidden][data-move=\"2\"]").await?;
    // The end: Black's G3 marked dead in White's territory, and the count with it, as `tesuji score` counts
    // the file.
    cat.click("#last").await?;
    cat.wait_for("#board [data-point=\"G3\"][data-dead=\"true\"]")
        .await?;
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tesuji"))
        .arg("score")
        .arg(&file)
        .output()
        .await
        .map_err(|e| format!("tesuji score: {e}"))?;
    let result = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    let count = cat.text("#count").await?.unwrap_or_default();
    if result.is_empty() || !count.contains(&format!("({result})")) || !count.contains(" 1 ") {
        return Err(format!(
            "the record's count says {count:?}; `tesuji score` says {result:?} with one dead stone"
        ));
    }
    Ok(())
}

/// How long the server may take over the first game's review (26 positions at 50 playouts, on a test build).
const REVIEW_WAIT: Duration = Duration::from_secs(90);

/// A lead as the analysis card says it: `B+3.5`, `W+12`, `Even`.
fn lead_text(score: f64) -> String {
    let points = (score.abs() * 10.0).round() / 10.0;
    if points == 0.0 {
        "Even".to_owned()
    } else if score > 0.0 {
        format!("B+{points}")
    } else {
        format!("W+{points}")
    }
}

/// The index of vertex `point` (`D4`) in a review's ownership (row by row from the top left) on a 9×9 board.
fn ownership_index(point: &str) -> Option<usize> {
    let col = "ABCDEFGHJ".find(point.get(..1)?)?;
    let number: usize = point.get(1..)?.parse().ok()?;
    (1..=9).contains(&number).then(|| (9 - number) * 9 + col)
}

/// The stones a page's board shows, as sorted `color point` texts.
async fn stones(b: &Browser) -> Res<Value> {
    b.js(
        "return [...document.querySelectorAll('#board [data-stone]')]
           .map((g) => `${g.dataset.stone} ${g.dataset.point}`).sort();",
        json!([]),
    )
    .await
}

/// The finished first game, reviewed by the engine. Cat, not signed in and phone-sized, is offered no Analyze
/// button but a link to sign in. Ann asks with the card's button: the page says the review is under way, then
/// shows it as `GET /api/games/{id}/review` gives it: a point of the graph per position (those after play ended
/// marked so). A click on the point of position k shows the board after k moves, as the move list's own step
/// back shows it, with the point marked current, the figures in words, and the engine's move ringed on an empty
/// point; the right arrow key goes on to the next position. "Show territory" shades every point the review gives
/// one side surely, in that side's colour, and nothing once off. The mistakes are listed as the API has them; the
/// first shows the position before its move, the better move ringed. On Cat's phone the review shows too, with
/// no button, the graph inside the screen, and a tap on a point shows its position.
async fn analysis(ann: &Browser, cat: &Browser, id: u64, shots: Option<&Path>) -> Res<()> {
    let page = format!("/game/{id}");
    cat.goto(&page).await?;
    cat.game_ready().await?;
    cat.wait_for("#analysis:not([hidden])[data-status=\"none\"]")
        .await?;
    same(
        "Cat's card before any review (the button hidden, a link to sign in)",
        (
            cat.exists("#analysis-ask[hidden]").await?,
            cat.exists("#analysis-signin:not([hidden]) a[href^=\"/login?next=\"]")
                .await?,
        ),
        (true, true),
    )?;

    ann.goto(&page).await?;
    ann.game_ready().await?;
    ann.wait_for(
        "#analysis:not([hidden])[data-status=\"none\"] #analysis-ask:not([hidden]):not([disabled])",
    )
    .await?;
    // Once it is over, a player too is offered the estimate.
    same(
        "Ann's estimate button once the game is over",
        ann.exists("#estimate:not([hidden]) #estimate-ask:not([hidden]):not([disabled])")
            .await?,
        true,
    )?;
    // Every text the progress box shows from the click on, as it shows it.
    ann.js(
        "window.progressSeen = [];
         const box = document.getElementById('analysis-progress');
         new MutationObserver(() => {
           const text = box.textContent.trim().replace(/\\s+/g, ' ');
           if (!box.hidden && text && progressSeen.at(-1) !== text) progressSeen.push(text);
         }).observe(box, {attributes: true, childList: true, characterData: true, subtree: true});
         return true;",
        json!([]),
    )
    .await?;
    ann.click("#analysis-ask").await?;
    let review = ann
        .wait_js_for(
            "the review done",
            "return fetch(`/api/games/${arguments[0]}/review`).then((r) => r.json())
               .then((v) => v.status === 'done' ? v : (v.status === 'failed' ? 'failed' : null));",
            json!([id]),
            REVIEW_WAIT,
        )
        .await?;
    if review == "failed" {
        return Err("the first game's review failed".to_owned());
    }
    ann.wait_for("#analysis[data-status=\"done\"] #analysis-results:not([hidden])")
        .await?;
    let seen = ann.js("return progressSeen;", json!([])).await?;
    let said = seen.as_array().cloned().unwrap_or_default();
    let progress_text = |v: &Value| {
        let s = v.as_str().unwrap_or_default();
        s == "Waiting for the engine…"
            || s == "Analyzing…"
            || s.strip_prefix("Analyzing… ")
                .and_then(|r| r.strip_suffix(" positions"))
                .and_then(|r| r.split_once('/'))
                .is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok())
    };
    if said.is_empty() || !said.iter().all(progress_text) {
        return Err(format!("the progress Ann's page said: {seen}"));
    }
    same(
        "once done: the button, the progress and the sign-in link hidden",
        (
            ann.exists("#analysis-ask[hidden]").await?,
            ann.exists("#analysis-progress[hidden]").await?,
            ann.exists("#analysis-signin[hidden]").await?,
        ),
        (true, true, true),
    )?;

    // A point per position of the review, in order; those not searched (after play ended) marked.
    let positions = review["results"]["positions"]
        .as_array()
        .cloned()
        .ok_or(format!("the review has no positions: {review}"))?;
    let mistakes = review["results"]["mistakes"]
        .as_array()
        .cloned()
        .ok_or(format!("the review has no mistakes list: {review}"))?;
    // The game's 25 moves: 26 positions, the last (after the second pass) out of play.
    same("the review's positions", positions.len(), GAME.len() + 1)?;
    let unsearched: Vec<usize> = (0..positions.len())
        .filter(|&k| positions[k]["searched"] == false)
        .collect();
    same(
        "the graph's points and the unsearched ones",
        ann.js(
            "const g = document.getElementById('analysis-graph');
             return [[...g.querySelectorAll('circle.point[data-turn]')].map((c) => Number(c.dataset.turn)),
                     [...g.querySelectorAll('circle.point.unsearched[data-turn]')].map((c) => Number(c.dataset.turn)),
                     Number(g.dataset.count)];",
            json!([]),
        )
        .await?,
        json!([
            (0..positions.len()).collect::<Vec<_>>(),
            unsearched,
            positions.len()
        ]),
    )?;

    // A position in the middle of the game where the engine names a point: the board after k moves, as the
    // move list's step back shows it.
    let k = (GAME.len() / 2..GAME.len())
        .find(|&k| {
            positions[k]["searched"] == true
                && positions[k]["best"]
                    .as_str()
                    .is_some_and(|b| ownership_index(b).is_some())
        })
        .ok_or(format!("no position with a point to play: {review}"))?;
    let p = &positions[k];
    let best = p["best"].as_str().unwrap_or_default();
    ann.click(&format!("#moves li[data-turn=\"{k}\"]")).await?;
    ann.wait_for(&format!("#review-banner:not([hidden])[data-move=\"{k}\"]"))
        .await?;
    let stepped = stones(ann).await?;
    ann.click("#back-to-live").await?;
    ann.wait_for("#review-banner[hidden]").await?;
    let live = stones(ann).await?;
    ann.click(&format!("#analysis-graph circle.point[data-turn=\"{k}\"]"))
        .await?;
    ann.wait_for(&format!("#review-banner:not([hidden])[data-move=\"{k}\"]"))
        .await?;
    same(
        &format!("the board at the graph's position {k} and at move {k} of the list"),
        stones(ann).await?,
        stepped.clone(),
    )?;
    if stepped == live {
        return Err(format!(
            "the board after {k} moves is the game's: {stepped}"
        ));
    }
    let color = if p["to_move"] == "white" {
        "White"
    } else {
        "Black"
    };
    let rate = (p["winrate"].as_f64().unwrap_or(-1.0) * 100.0).round();
    let lead = lead_text(p["score"].as_f64().unwrap_or(0.0));
    same(
        &format!("position {k} on the graph and in words, and the engine's move on the board"),
        ann.js(
            "const [k, best] = arguments;
             const mark = document.querySelector('#board g.best[data-at]');
             return [document.querySelector('#analysis-graph circle.point.current[data-turn]')?.dataset.turn,
                     document.getElementById('analysis-graph').dataset.current,
                     document.getElementById('analysis-position').dataset.turn,
                     document.getElementById('analysis-summary').textContent,
                     document.getElementById('analysis-best').textContent.split(' — ')[0],
                     document.getElementById('analysis-best').dataset.move,
                     mark?.dataset.at,
                     document.querySelectorAll('#board g.best').length,
                     document.querySelector(`#board [data-stone][data-point=\"${best}\"]`) === null,
                     document.querySelector(`#board rect[data-point=\"${best}\"]`) !== null];",
            json!([k, best]),
        )
        .await?,
        json!([
            k.to_string(),
            k.to_string(),
            k.to_string(),
            format!("Move {k}: Black {rate}% · {lead}"),
            format!("Best for {color}: {best}"),
            best,
            best,
            1,
            true,
            true
        ]),
    )?;
    // The clicked point has the focus: the right arrow goes on to the next position.
    ann.key(ARROW_RIGHT).await?;
    ann.wait_for(&format!(
        "#review-banner:not([hidden])[data-move=\"{}\"]",
        k + 1
    ))
    .await?;
    same(
        "the point current and focused after the arrow key",
        ann.js(
            "return [document.querySelector('#analysis-graph circle.point.current')?.dataset.turn,
                     document.activeElement?.dataset?.turn ?? null];",
            json!([]),
        )
        .await?,
        json!([(k + 1).to_string(), (k + 1).to_string()]),
    )?;

    // The territory: shaded on demand, each point in the colour of the side the review gives it; a point one
    // side holds surely (half its playouts' worth or more) never left out.
    same(
        "no shading before it is asked for",
        ann.exists("#board rect.owner").await?,
        false,
    )?;
    let at = k + 1;
    let ownership = positions[at]["ownership"]
        .as_array()
        .cloned()
        .ok_or(format!("position {at} has no ownership"))?;
    ann.click("#analysis-territory").await?;
    let shaded = ann
        .wait_js(
            "the territory shaded",
            "const r = [...document.querySelectorAll('#board rect.owner')];
             return r.length > 0 && r.map((e) => [e.dataset.at, e.dataset.owner, Number(e.dataset.shade)]);",
            json!([]),
        )
        .await?;
    let shaded = shaded.as_array().cloned().unwrap_or_default();
    check_shading(&shaded, &ownership)?;
    if let Some(dir) = shots {
        ann.screenshot(&dir.join("analysis.png")).await?;
    }
    ann.click("#analysis-territory").await?;
    ann.wait_js(
        "the shading gone",
        "return document.querySelector('#board rect.owner') === null",
        json!([]),
    )
    .await?;

    // The mistakes, the biggest first, as the API lists them; the first shows the position before its move,
    // with the better move ringed.
    let listed = ann
        .js(
            "return [...document.querySelectorAll('#analysis-mistakes li')]
               .map((li) => [Number(li.dataset.number), li.dataset.color, li.textContent.trim()]);",
            json!([]),
        )
        .await?;
    same(
        "the mistakes listed (number, colour)",
        listed
            .as_array()
            .map(|l| l.iter().map(|m| json!([m[0], m[1]])).collect::<Vec<_>>()),
        Some(
            mistakes
                .iter()
                .map(|m| json!([m["number"], m["color"]]))
                .collect(),
        ),
    )?;
    if let Some(first) = mistakes.first() {
        let number = first["number"].as_u64().unwrap_or(0);
        let text = listed[0][2].as_str().unwrap_or_default();
        let start = format!(
            "Move {number} ({} {}): −{}% win rate",
            if first["color"] == "white" {
                "White"
            } else {
                "Black"
            },
            first["move"].as_str().unwrap_or_default(),
            (first["loss"].as_f64().unwrap_or(0.0) * 100.0).round()
        );
        if !text.starts_with(&start) {
            return Err(format!("the first mistake reads {text:?}, not {start:?}…"));
        }
        // From the game's own board, so that the step is the mistake's.
        ann.click("#back-to-live").await?;
        ann.wait_for("#review-banner[hidden]").await?;
        ann.click("#analysis-mistakes li:first-child button")
            .await?;
        ann.wait_for(&format!(
            "#review-banner:not([hidden])[data-move=\"{}\"]",
            number - 1
        ))
        .await?;
        same(
            "the mistake looked at (its position, its item marked)",
            ann.js(
                "return [document.getElementById('analysis-position').dataset.turn,
                         document.querySelector('#analysis-mistakes li.current')?.dataset.number];",
                json!([]),
            )
            .await?,
            json!([(number - 1).to_string(), number.to_string()]),
        )?;
        if let Some(better) = first["better"]
            .as_str()
            .filter(|b| ownership_index(b).is_some())
        {
            ann.wait_for(&format!("#board g.best[data-at=\"{better}\"]"))
                .await?;
        }
    } else {
        ann.wait_for("#analysis-no-mistakes:not([hidden])").await?;
    }

    // On Cat's phone: the review, no button, the graph inside the screen, and a tap shows a position.
    cat.goto(&page).await?;
    cat.game_ready().await?;
    cat.wait_for("#analysis[data-status=\"done\"] #analysis-graph circle.point")
        .await?;
    same(
        "Cat's review on a phone (points, the button, the sign-in link, past the graph's right edge, \
         wider than the screen)",
        cat.js(
            "const page = document.documentElement;
             const g = document.getElementById('analysis-graph').getBoundingClientRect();
             return [document.querySelectorAll('#analysis-graph circle.point[data-turn]').length,
                     document.getElementById('analysis-ask').hidden,
                     document.getElementById('analysis-signin').hidden,
                     g.left >= 0 && g.width > 200 ? Math.max(0, Math.ceil(g.right - page.clientWidth)) : -1,
                     page.scrollWidth - page.clientWidth];",
            json!([]),
        )
        .await?,
        json!([positions.len(), true, true, 0, 0]),
    )?;
    cat.click("#analysis-graph circle.point[data-turn=\"3\"]")
        .await?;
    cat.wait_for("#review-banner:not([hidden])[data-move=\"3\"]")
        .await?;
    if let Some(dir) = shots {
        cat.js(
            "document.getElementById('analysis').scrollIntoView(); return true;",
            json!([]),
        )
        .await?;
        cat.screenshot(&dir.join("analysis-phone.png")).await?;
    }
    Ok(())
}

/// The finished first game's replay page, on Cat's phone, shows the review Ann asked for on the game page: its card
/// in the game's words, a point of the graph per position of `GET /api/games/{id}/review`, the move list marking
/// its mistakes, and a click on a point steps the replay there (the board after that many moves, the address's
/// move). The page fits the phone's width.
async fn replay_of_the_reviewed_game(cat: &Browser, id: u64) -> Res<()> {
    cat.goto(&format!("/replay?game={id}")).await?;
    cat.wait_for("#analysis[data-status=\"done\"] #analysis-graph circle.point")
        .await?;
    let review = cat
        .js(
            "return fetch(`/api/games/${arguments[0]}/review`).then((r) => r.json());",
            json!([id]),
        )
        .await?;
    let count = review["results"]["positions"]
        .as_array()
        .map_or(0, Vec::len);
    same("the review's positions", count, GAME.len() + 1)?;
    let mut costly: Vec<u64> = review["results"]["mistakes"]
        .as_array()
        .map(|m| m.iter().filter_map(|m| m["number"].as_u64()).collect())
        .unwrap_or_default();
    costly.sort_unstable();
    same(
        "the game's replay with its review (points, count, move shown, costly moves marked, the button, \
         the sign-in link, the intro's wording, wider than the screen)",
        cat.js(
            "const g = document.getElementById('analysis-graph');
             const page = document.documentElement;
             return [[...g.querySelectorAll('circle.point[data-turn]')].map((c) => Number(c.dataset.turn)),
                     Number(g.dataset.count),
                     document.getElementById('move-number').dataset.move,
                     [...document.querySelectorAll('#moves li[data-loss]')].map((li) => Number(li.dataset.number))
                       .sort((a, b) => a - b),
                     document.getElementById('analysis-ask').hidden,
                     document.getElementById('analysis-signin').hidden,
                     document.getElementById('analysis-intro').dataset.i18n,
                     page.scrollWidth - page.clientWidth];",
            json!([]),
        )
        .await?,
        json!([
            (0..=GAME.len()).collect::<Vec<_>>(),
            GAME.len() + 1,
            "0",
            costly,
            true,
            true,
            "analysis.intro",
            0
        ]),
    )?;
    // The point of position 7: the board after seven moves (no capture yet), and the address says so.
    let k = 7;
    let mut want: Vec<String> = GAME[..k]
        .iter()
        .map(|(color, point)| format!("{color} {point}"))
        .collect();
    want.sort();
    cat.click(&format!("#analysis-graph circle.point[data-turn=\"{k}\"]"))
        .await?;
    cat.wait_for(&format!("#move-number[data-move=\"{k}\"]"))
        .await?;
    same(
        &format!("the board and the card at position {k}"),
        (
            stones(cat).await?,
            cat.js(
                "return [document.getElementById('analysis-graph').dataset.current,
                         document.getElementById('analysis-position').dataset.turn,
                         new URLSearchParams(location.search).get('move')];",
                json!([]),
            )
            .await?,
        ),
        (
            json!(want),
            json!([k.to_string(), k.to_string(), k.to_string()]),
        ),
    )?;
    Ok(())
}

/// Records, on `b`'s page, the JSON answers of the API paths that contain `part` (`window.answers`, oldest
/// first), so that what the page shows can be checked against what the server said to it.
async fn record_answers(b: &Browser, part: &str) -> Res<()> {
    b.js(
        "const part = arguments[0];
         window.answers = [];
         const fetch0 = window.fetch;
         window.fetch = async (...args) => {
           const answer = await fetch0(...args);
           if (String(args[0]).includes(part)) answer.clone().json().then((v) => answers.push(v), () => {});
           return answer;
         };
         return true;",
        json!([part]),
    )
    .await
    .map(drop)
}

/// Whether the board's shading (`rect.owner`) follows `ownership` (a 9×9 review position's): each shaded point
/// in the colour of the side given it, and every point one side holds surely (half or more) shaded.
fn check_shading(shaded: &[Value], ownership: &[Value]) -> Res<()> {
    let owner_of = |point: &str| {
        ownership_index(point)
            .and_then(|i| ownership.get(i))
            .and_then(Value::as_i64)
    };
    for s in shaded {
        let point = s[0].as_str().unwrap_or_default();
        let o = owner_of(point).ok_or(format!("a shade off the board: {s}"))?;
        let want = if o > 0 { "black" } else { "white" };
        let strength = s[2].as_f64().unwrap_or(-1.0);
        if o == 0 || s[1] != want || !(strength > 0.0 && strength <= 1.0) {
            return Err(format!("{point} shaded {s}, its ownership {o}"));
        }
    }
    let shaded_points: Vec<&str> = shaded.iter().filter_map(|s| s[0].as_str()).collect();
    let sure = (1..=9)
        .flat_map(|n| "ABCDEFGHJ".chars().map(move |c| format!("{c}{n}")))
        .find(|p| {
            owner_of(p).is_some_and(|o| o.abs() >= 50) && !shaded_points.contains(&p.as_str())
        });
    match sure {
        Some(missing) => Err(format!(
            "{missing} is surely held but not shaded: {shaded:?}"
        )),
        None => Ok(()),
    }
}

/// The board's shading and the engine's mark: [[point, owner, shade]...], the ringed point or null.
async fn board_marks(b: &Browser) -> Res<Value> {
    b.js(
        "return [[...document.querySelectorAll('#board rect.owner')]
                   .map((e) => [e.dataset.at, e.dataset.owner, Number(e.dataset.shade)]),
                 document.querySelector('#board g.best')?.dataset.at ?? null];",
        json!([]),
    )
    .await
}

/// The rematch (`table`, in play: Black to move after four moves) watched by Cat, phone-sized. Not signed in, she
/// follows the estimate card's link to sign in, as a guest, and comes back to the game; the players' pages offer
/// no estimate (the server refuses them one). Cat asks: the button waits, disabled, saying so; then the card shows
/// Black's win rate and lead as the analysis card words them and the engine's move, as the server answered, and
/// the board shades who holds each point and rings the move. The switch hides both and shows them again. Ann's
/// next move makes the estimate out of date: said so, and gone from the board. The game's replay page shows no
/// Analysis card while it is in play.
async fn estimate_during_play(
    ann: &Browser,
    bob: &Browser,
    cat: &Browser,
    table: &str,
    shots: Option<&Path>,
) -> Res<()> {
    cat.goto(table).await?;
    cat.game_ready().await?;
    cat.wait_for("#estimate:not([hidden]) #estimate-signin:not([hidden])")
        .await?;
    cat.click("#estimate-login").await?;
    cat.wait_path("^/login$").await?;
    cat.ready().await?;
    cat.type_into("#guest input[name=name]", "Cat").await?;
    cat.click("#guest button[type=submit]").await?;
    cat.wait_path(&format!("^{table}$")).await?;
    cat.ready().await?;
    cat.game_ready().await?;
    cat.wait_for("#estimate[data-state=\"none\"] #estimate-ask:not([hidden]):not([disabled])")
        .await?;
    same(
        "Cat's page as a guest (the sign-in link gone, no seat)",
        (
            cat.exists("#estimate-signin[hidden]").await?,
            cat.exists("#pass[hidden]").await?,
        ),
        (true, true),
    )?;
    let id = table.trim_start_matches("/game/");
    for b in [ann, bob] {
        b.goto(table).await?;
        b.game_ready().await?;
        same(
            &format!("{}'s estimate card in play, and the server's answer to a player", b.name),
            b.js(
                "return fetch(`/api/games/${arguments[0]}/estimate`)
                   .then((r) => r.json().then((v) => [document.getElementById('estimate').hidden, r.status, v.reason]));",
                json!([id]),
            )
            .await?,
            json!([true, 403, "players_get_no_estimate"]),
        )?;
    }

    // Every state the button goes through from the click on: [disabled, text].
    cat.js(
        "window.askSeen = [];
         const b = document.getElementById('estimate-ask');
         new MutationObserver(() => askSeen.push([b.disabled, b.textContent.trim()]))
           .observe(b, {attributes: true, childList: true, characterData: true, subtree: true});
         return true;",
        json!([]),
    )
    .await?;
    record_answers(cat, "/estimate").await?;
    same(
        "nothing on the board before the estimate",
        board_marks(cat).await?,
        json!([[], null]),
    )?;
    cat.click("#estimate-ask").await?;
    cat.wait_for("#estimate[data-state=\"shown\"] #estimate-ask:not([disabled])")
        .await?;
    let seen = cat.js("return askSeen;", json!([])).await?;
    if !seen
        .as_array()
        .is_some_and(|s| s.contains(&json!([true, "Estimating…"])))
    {
        return Err(format!("the estimate button while it waited: {seen}"));
    }
    same(
        "the button once answered",
        cat.text("#estimate-ask").await?.as_deref(),
        Some("Estimate again"),
    )?;
    let answer = cat
        .wait_js(
            "the estimate's answer",
            "return answers.at(-1) ?? null;",
            json!([]),
        )
        .await?;
    if answer["searched"] != true {
        return Err(format!("the estimate of a game in play: {answer}"));
    }
    let rate = (answer["winrate"].as_f64().unwrap_or(-1.0) * 100.0).round();
    let lead = lead_text(answer["score"].as_f64().unwrap_or(0.0));
    let color = if answer["to_move"] == "white" {
        "White"
    } else {
        "Black"
    };
    let best = answer["best"].as_str().unwrap_or_default();
    same(
        "the estimate in words (position, figures, the engine's move, when)",
        cat.js(
            "return [document.getElementById('estimate-result').dataset.turn,
                     document.getElementById('estimate-figures').textContent,
                     document.getElementById('estimate-best').textContent.split(' — ')[0],
                     document.getElementById('estimate-at').textContent,
                     document.getElementById('estimate-stale').hidden];",
            json!([]),
        )
        .await?,
        json!([
            "4",
            format!("Black {rate}% · {lead}"),
            format!("Best for {color}: {best}"),
            format!("After move 4; {} playouts.", answer["playouts"]),
            true
        ]),
    )?;
    let marks = board_marks(cat).await?;
    let shaded = marks[0].as_array().cloned().unwrap_or_default();
    if shaded.is_empty() {
        return Err(format!("no shading after the estimate: {answer}"));
    }
    check_shading(
        &shaded,
        answer["ownership"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[]),
    )?;
    if ownership_index(best).is_some() {
        same("the engine's move ringed", marks[1].as_str(), Some(best))?;
    }
    same(
        "on a phone: how much wider than the screen the page is",
        cat.js(
            "const page = document.documentElement; return page.scrollWidth - page.clientWidth;",
            json!([]),
        )
        .await?,
        json!(0),
    )?;
    if let Some(dir) = shots {
        cat.js(
            "document.getElementById('board').scrollIntoView(); return true;",
            json!([]),
        )
        .await?;
        cat.screenshot(&dir.join("estimate-phone.png")).await?;
    }
    cat.click("#estimate-show").await?;
    cat.wait_js(
        "the estimate off the board",
        "return document.querySelector('#board rect.owner, #board g.best') === null",
        json!([]),
    )
    .await?;
    cat.click("#estimate-show").await?;
    cat.wait_for("#board rect.owner").await?;

    // Ann plays: the estimate is for the position before.
    ann.wait_for(&my_turn("black")).await?;
    ann.click("#board rect[data-point=\"D7\"]").await?;
    cat.wait_move(5, "black", "D7").await?;
    cat.wait_for("#estimate[data-state=\"stale\"] #estimate-stale:not([hidden])")
        .await?;
    same(
        "the estimate out of date (on the board, its switch disabled, the button)",
        (
            board_marks(cat).await?,
            cat.exists("#estimate-show[disabled]").await?,
            cat.text("#estimate-ask").await?,
        ),
        (json!([[], null]), true, Some("Estimate again".to_owned())),
    )?;
    // The game's replay page while it is in play: no Analysis card, and its review not even looked at (the server
    // would answer one, `none`).
    cat.goto(&format!("/replay?game={id}")).await?;
    // The page decides on its card once the replay is in (no wait: a check after a pause would prove nothing more).
    cat.wait_for("#controls:not([hidden]) #move-number[data-move]")
        .await?;
    same(
        "the replay of a game in play (the card hidden, its review looked at, the server's answer)",
        cat.js(
            "const looked = performance.getEntriesByType('resource')
               .some((e) => /\\/api\\/games\\/\\d+\\/review$/.test(e.name));
             return fetch(`/api/games/${arguments[0]}/review`).then((r) => r.json())
               .then((v) => [document.getElementById('analysis').hidden, looked, v.status]);",
            json!([id]),
        )
        .await?,
        json!([true, false, "none"]),
    )?;
    Ok(())
}

/// A 9×9 record of ten moves (its positions: the start and after each move).
const RECORD: &str = "(;GM[1]FF[4]SZ[9]KM[6.5]RU[Japanese]PB[Kim]PW[Lee]\
     ;B[ee];W[cc];B[gc];W[cg];B[gg];W[ce];B[dc];W[db];B[eb];W[dd])";
const RECORD_MOVES: usize = 10;

/// Ann opens [`RECORD`] on the replay page and asks for its review with the Analysis card's button: the address
/// names the review once asked; done, the graph has a point per position (moves + 1), as the server's review has
/// them. A click on the point of position 4 shows the board after four moves; the biggest mistake, if any, shows
/// the position before it. The address opens the file and its review again, at the move shown. Cat, a guest on a
/// phone, opens that address: the review is there, nothing to ask, nothing wider than the screen, and a tap on a
/// point moves the replay.
async fn replay_review(ann: &Browser, cat: &Browser, shots: Option<&Path>) -> Res<()> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let file = dir.path().join("kim-lee.sgf");
    std::fs::write(&file, RECORD).map_err(|e| e.to_string())?;
    ann.goto("/replay").await?;
    same(
        "the card before a record is opened",
        ann.exists("#analysis[hidden]").await?,
        true,
    )?;
    let input = ann.find("#sgf-file").await?;
    ann.post(
        &format!("/element/{input}/value"),
        json!({"text": file.display().to_string()}),
    )
    .await?;
    ann.wait_for(
        "#analysis:not([hidden])[data-status=\"none\"] #analysis-ask:not([hidden]):not([disabled])",
    )
    .await?;
    same(
        "the address before the review is asked for",
        ann.js("return location.search", json!([])).await?,
        json!(""),
    )?;
    ann.click("#analysis-ask").await?;
    let id = ann
        .wait_js(
            "the review's id in the address",
            "return new URLSearchParams(location.search).get('review')",
            json!([]),
        )
        .await?;
    let id = id.as_str().unwrap_or_default().to_owned();
    if !(id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit())) {
        return Err(format!("the review's id in the address: {id:?}"));
    }
    let review = ann
        .wait_js_for(
            "the record's review done",
            "return fetch(`/api/reviews/${arguments[0]}`).then((r) => r.json())
               .then((v) => v.status === 'done' ? v : (v.status === 'failed' ? 'failed' : null));",
            json!([id]),
            REVIEW_WAIT,
        )
        .await?;
    if review == "failed" {
        return Err("the record's review failed".to_owned());
    }
    let positions = review["results"]["positions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    same("the review's positions", positions.len(), RECORD_MOVES + 1)?;
    ann.wait_for("#analysis[data-status=\"done\"] #analysis-results:not([hidden])")
        .await?;
    let points = "const g = document.getElementById('analysis-graph');
                  return [[...g.querySelectorAll('circle.point[data-turn]')].map((c) => Number(c.dataset.turn)),
                          Number(g.dataset.count)];";
    same(
        "the graph's points",
        ann.js(points, json!([])).await?,
        json!([(0..=RECORD_MOVES).collect::<Vec<_>>(), RECORD_MOVES + 1]),
    )?;
    // The replay at its start: the point of position 4 shows the board after four moves.
    same(
        "the move shown before the click",
        ann.js(
            "return document.getElementById('move-number').dataset.move",
            json!([]),
        )
        .await?,
        json!("0"),
    )?;
    ann.click("#analysis-graph circle.point[data-turn=\"4\"]")
        .await?;
    ann.wait_for("#move-number[data-move=\"4\"]").await?;
    same(
        "the board and the card at position 4",
        (
            stones(ann).await?,
            ann.js(
                "return [document.getElementById('analysis-graph').dataset.current,
                         document.getElementById('analysis-position').dataset.turn,
                         new URLSearchParams(location.search).get('move')];",
                json!([]),
            )
            .await?,
        ),
        (
            json!(["black E5", "black G7", "white C3", "white C7"]),
            json!(["4", "4", "4"]),
        ),
    )?;
    if let Some(dir) = shots {
        ann.screenshot(&dir.join("replay-analysis.png")).await?;
    }
    let mistakes = review["results"]["mistakes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if let Some(first) = mistakes.first() {
        let number = first["number"].as_u64().unwrap_or(0);
        ann.click("#analysis-mistakes li:first-child button")
            .await?;
        ann.wait_for(&format!("#move-number[data-move=\"{}\"]", number - 1))
            .await?;
        same(
            "the move list marks the biggest mistake",
            ann.exists(&format!("#moves li[data-number=\"{number}\"][data-loss]"))
                .await?,
            true,
        )?;
        ann.click("#analysis-graph circle.point[data-turn=\"4\"]")
            .await?;
        ann.wait_for("#move-number[data-move=\"4\"]").await?;
    }

    // The address shows the file and its review again, at the same move.
    let address = ann
        .js("return location.pathname + location.search", json!([]))
        .await?;
    let address = address.as_str().unwrap_or_default().to_owned();
    ann.goto(&address).await?;
    ann.wait_for("#analysis[data-status=\"done\"] #analysis-graph circle.point")
        .await?;
    same(
        "the review's address after a reload (the move, the points, the position, the download link)",
        ann.js(
            "return [document.getElementById('move-number').dataset.move,
                     document.querySelectorAll('#analysis-graph circle.point[data-turn]').length,
                     document.getElementById('analysis-graph').dataset.current,
                     new URL(document.getElementById('sgf').href).pathname];",
            json!([]),
        )
        .await?,
        json!(["4", RECORD_MOVES + 1, "4", format!("/api/reviews/{id}/sgf")]),
    )?;

    // Cat, a guest on a phone, follows the link.
    cat.goto(&address).await?;
    cat.wait_for("#analysis[data-status=\"done\"] #analysis-graph circle.point")
        .await?;
    same(
        "Cat's review on a phone (points, the button, past the graph's right edge, wider than the screen)",
        cat.js(
            "const page = document.documentElement;
             const g = document.getElementById('analysis-graph').getBoundingClientRect();
             return [document.querySelectorAll('#analysis-graph circle.point[data-turn]').length,
                     document.getElementById('analysis-ask').hidden,
                     g.left >= 0 && g.width > 200 ? Math.max(0, Math.ceil(g.right - page.clientWidth)) : -1,
                     page.scrollWidth - page.clientWidth];",
            json!([]),
        )
        .await?,
        json!([RECORD_MOVES + 1, true, 0, 0]),
    )?;
    cat.click("#analysis-graph circle.point[data-turn=\"7\"]")
        .await?;
    cat.wait_for("#move-number[data-move=\"7\"]").await?;
    if let Some(dir) = shots {
        cat.screenshot(&dir.join("replay-analysis-phone.png"))
            .await?;
    }
    Ok(())
}

/// Two records never reviewed: the first opened, then the second in its place.
const FIRST_FILE: &str = "(;GM[1]FF[4]SZ[9]PB[Ito]PW[Cho];B[ee];W[dd])";
const SECOND_FILE: &str = "(;GM[1]FF[4]SZ[9]KM[6.5]PB[Sato]PW[Park];B[cc];W[gg];B[cg];W[gc];B[ee])";
const SECOND_MOVES: [&str; 5] = ["C7", "G3", "C3", "G7", "E5"];

/// Cat logs out, on her phone, and opens a record on the replay page, then another: the card offers no button but a
/// link to sign in. She follows it, takes a guest session on the login page, and is back on the replay page with
/// the second record shown (its moves, its name), the Analyze button offered, the address plain and the file no
/// longer kept in the tab. The way back used once does not show the file again.
async fn file_through_sign_in(cat: &Browser) -> Res<()> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let first = dir.path().join("ito-cho.sgf");
    let second = dir.path().join("sato-park.sgf");
    std::fs::write(&first, FIRST_FILE).map_err(|e| e.to_string())?;
    std::fs::write(&second, SECOND_FILE).map_err(|e| e.to_string())?;
    cat.goto("/replay").await?;
    // Signed out, whether a guest's name was taken by a test before or not.
    if cat.exists("#logout").await? {
        cat.click("#logout").await?;
        cat.wait_for("#login-link").await?;
    }
    cat.ready().await?;
    for (file, moves) in [(&first, 2), (&second, SECOND_MOVES.len())] {
        let input = cat.find("#sgf-file").await?;
        cat.post(
            &format!("/element/{input}/value"),
            json!({"text": file.display().to_string()}),
        )
        .await?;
        cat.wait_js(
            &format!("{} shown", file.display()),
            "return document.querySelectorAll('#moves li').length === arguments[0]
               && document.title.startsWith(arguments[1]);",
            json!([
                moves,
                file.file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default()
            ]),
        )
        .await?;
    }
    cat.wait_for("#analysis:not([hidden])[data-status=\"none\"] #analysis-signin:not([hidden])")
        .await?;
    let link = cat
        .js(
            "return [document.getElementById('analysis-ask').hidden,
                     new URL(document.getElementById('analysis-login').href).searchParams.get('next'),
                     new URL(document.getElementById('login-link').href).searchParams.get('next')];",
            json!([]),
        )
        .await?;
    let back = link[1].as_str().unwrap_or_default().to_owned();
    let token = back.strip_prefix("/replay?opened=").unwrap_or_default();
    if link[0] != true
        || !(token.len() == 16 && token.bytes().all(|b| b.is_ascii_hexdigit()))
        || link[2] != link[1]
    {
        return Err(format!(
            "before signing in (the button hidden, the way back of the card's and the header's links): {link}"
        ));
    }

    cat.click("#analysis-login").await?;
    cat.wait_path("^/login$").await?;
    cat.ready().await?;
    cat.type_into("#guest input[name=name]", "Kit").await?;
    cat.click("#guest button[type=submit]").await?;
    cat.wait_path("^/replay$").await?;
    cat.ready().await?;
    cat.wait_for(
        "#analysis:not([hidden])[data-status=\"none\"] #analysis-ask:not([hidden]):not([disabled])",
    )
    .await?;
    same(
        "back from signing in (the moves, the title, the address, the file kept, the sign-in link, who)",
        cat.js(
            "return [[...document.querySelectorAll('#moves li')].map((li) => li.dataset.move),
                     document.title,
                     location.search,
                     sessionStorage.getItem('tesuji.replay.file'),
                     document.getElementById('analysis-signin').hidden,
                     document.getElementById('me-name')?.textContent.startsWith('Kit') ?? false];",
            json!([]),
        )
        .await?,
        json!([SECOND_MOVES, "sato-park.sgf · tesuji", "", null, true, true]),
    )?;

    // Used once: the same way back finds nothing, and says so.
    cat.goto(&back).await?;
    cat.wait_for("#message:not([hidden])").await?;
    same(
        "the way back used again (the message, the moves, the card, the address)",
        cat.js(
            "return [document.getElementById('message').textContent.trim(),
                     document.getElementById('moves-card').hidden,
                     document.getElementById('analysis').hidden,
                     location.search];",
            json!([]),
        )
        .await?,
        json!([
            "The file opened before signing in is no longer kept in this tab: open it again.",
            true,
            true,
            ""
        ]),
    )?;
    Ok(())
}

/// Ann makes an invite-only table: its page shows the link, and again once the page has forgotten it (the server
/// gives the token back to her alone; Bob, without the link, sees none). Then she cancels the table, and Bob's
/// page says so.
async fn invite_and_cancel(ann: &Browser, bob: &Browser) -> Res<()> {
    ann.goto("/").await?;
    ann.wait_for("#lobby-status[data-status=\"open\"]").await?;
    ann.choose("#opponent", "invite").await?;
    ann.click("#create-submit").await?;
    // The lobby shows the link at once, and a way to the table's page.
    let path = ann
        .wait_js(
            "the lobby's invite box",
            "const b = document.getElementById('invite-box');
             return !b.hidden && new URL(document.getElementById('invite-go').href).pathname;",
            json!([]),
        )
        .await?;
    let path = path.as_str().unwrap_or_default().to_owned();
    ann.goto(&path).await?;
    ann.game_ready().await?;
    let link = "const b = document.getElementById('invite-box');
                return !b.hidden && document.getElementById('invite-link').value;";
    let first = ann.wait_js("the invite link", link, json!([])).await?;
    if !first
        .as_str()
        .is_some_and(|l| l.contains(&format!("{path}?invite=")))
    {
        return Err(format!("the invite link is {first}"));
    }
    ann.js("sessionStorage.clear(); return true;", json!([]))
        .await?;
    ann.goto(&path).await?;
    ann.game_ready().await?;
    same(
        "the invite link after the page forgot it",
        ann.wait_js("the invite link again", link, json!([]))
            .await?,
        first,
    )?;
    bob.goto(&path).await?;
    bob.game_ready().await?;
    same(
        "the link on another player's page",
        bob.exists("#invite-box[hidden]").await?,
        true,
    )?;
    ann.click("#cancel-table").await?;
    ann.post("/alert/accept", json!({})).await?;
    ann.wait_path("^/$").await?;
    let notice = bob
        .wait_js(
            "the cancelled notice",
            "const m = document.getElementById('message');
             return !m.hidden && m.textContent;",
            json!([]),
        )
        .await?;
    if !notice.as_str().is_some_and(|t| t.contains("cancelled")) {
        return Err(format!("Bob's page after the cancel says {notice}"));
    }
    Ok(())
}

/// Ann creates a `blitz` table in the lobby form as White, Bob joins it from the game page as Black; both pages
/// show the clocks.
async fn timed_table(ann: &Browser, bob: &Browser) -> Res<u64> {
    ann.goto("/").await?;
    ann.wait_for("#lobby-status[data-status=\"open\"]").await?;
    ann.choose("#preset", "bga").await?;
    ann.choose("#size", "9").await?;
    ann.choose("#color", "white").await?;
    ann.choose("#opponent", "anyone").await?;
    ann.choose("#time", "blitz").await?;
    ann.click("#create-submit").await?;
    let path = ann.wait_path("^/game/\\d+$").await?;
    let id: u64 = path["/game/".len()..]
        .parse()
        .map_err(|e| format!("{path}: {e}"))?;
    ann.game_ready().await?;
    bob.goto(&format!("/game/{id}")).await?;
    bob.game_ready().await?;
    bob.click("#join").await?;
    for b in [ann, bob] {
        b.wait_for(&my_turn("black")).await?;
        b.wait_for("#clock-black:not([hidden])").await?;
        b.wait_for("#clock-white:not([hidden])").await?;
        // The page names the clock beside the rules.
        let rules = b.text("#rules").await?.unwrap_or_default();
        if !rules.contains("Fischer: 3 min + 10 s a move") {
            return Err(format!("{}'s page says {rules:?}", b.name));
        }
    }
    Ok(id)
}

/// Where a page's element stands: its left, top and width, rounded to pixels.
async fn place(b: &Browser, id: &str) -> Res<Value> {
    b.js(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect();
         return [Math.round(r.left), Math.round(r.top), Math.round(r.width)];",
        json!([id]),
    )
    .await
}

/// The result a page shows once the game is over.
async fn shown_result(b: &Browser) -> Res<Value> {
    b.wait_js(
        "#result",
        "const r = document.getElementById('result');
         return !document.getElementById('over').hidden && r.dataset.result;",
        json!([]),
    )
    .await
}

/// Timed games on the server's manual time: a loss on time, and a claim against a player who left.
/// Answers the path of the rematch they leave started, Ann (Black) to move.
async fn timed_games(ann: &Browser, bob: &Browser, time: &ManualTime) -> Res<String> {
    // Blitz (3 min + 10 s): no clock runs before the game's first move, so ten minutes pass and nothing falls.
    // Then Bob, Black, plays, and Ann, White, never answers: her flag falls after 3 min and the 1 s lag
    // allowance.
    let id = timed_table(ann, bob).await?;
    time.advance(10 * 60_000);
    let running = bob
        .js(
            "return fetch(`/api/games/${arguments[0]}`).then((r) => r.json())
               .then((s) => [s.clock.running, s.clock.black.main_ms, s.result]);",
            json!([id]),
        )
        .await?;
    same(
        "the clocks ten minutes before the first move (running, Black's time left, result)",
        running,
        json!([null, 3 * 60_000, null]),
    )?;
    bob.click("#board rect[data-point=\"E5\"]").await?;
    for b in [ann, bob] {
        b.wait_move(1, "black", "E5").await?;
    }
    time.advance(3 * 60_000 + 1_000);
    same(
        "Ann's clock at 3 min and the lag allowance",
        ann.exists("#moves li[data-move=\"timeout\"]").await?,
        false,
    )?;
    time.advance(1);
    for b in [ann, bob] {
        same(
            &format!("{}'s result", b.name),
            shown_result(b).await?,
            json!("B+T"),
        )?;
        b.wait_for("#moves li[data-move=\"timeout\"][data-color=\"white\"]")
            .await?;
        b.wait_for("#board-notice:not([hidden])[data-move=\"timeout\"][data-color=\"white\"]")
            .await?;
    }

    // A game nobody has moved in: both may abort it (not claim it); Ann does, and Bob's page says so.
    timed_table(ann, bob).await?;
    for b in [ann, bob] {
        b.wait_for("#abort:not([hidden])").await?;
    }
    ann.click("#abort").await?;
    ann.post("/alert/accept", json!({})).await?;
    ann.wait_path("^/$").await?;
    let notice = bob
        .wait_js(
            "the aborted notice",
            "const m = document.getElementById('message');
             return document.getElementById('abort').hidden && !m.hidden && m.textContent;",
            json!([]),
        )
        .await?;
    if !notice.as_str().is_some_and(|t| t.contains("aborted")) {
        return Err(format!("Bob's page after the abort says {notice}"));
    }

    // Bob leaves the next game after his first move: Ann's page says so, counts down the grace period, then
    // offers the claim.
    let id = timed_table(ann, bob).await?;
    bob.click("#board rect[data-point=\"E5\"]").await?;
    for b in [ann, bob] {
        b.wait_move(1, "black", "E5").await?;
        b.wait_for("#abort[hidden]").await?;
    }
    bob.goto("/").await?;
    ann.wait_for("#absent:not([hidden])[data-color=\"black\"][data-claimable=\"false\"]")
        .await?;
    same(
        "the claim button before the grace period",
        ann.exists("#claim[hidden]").await?,
        true,
    )?;
    time.advance(60_000);
    // The page learns of the time passed from a fresh state (a reload); the server decides.
    ann.goto(&format!("/game/{id}")).await?;
    ann.game_ready().await?;
    ann.wait_for("#absent[data-claimable=\"true\"] #claim:not([hidden])")
        .await?;
    ann.click("#claim").await?;
    same(
        "Ann's result after the claim",
        shown_result(ann).await?,
        json!("W+F"),
    )?;
    bob.goto(&format!("/game/{id}")).await?;
    bob.game_ready().await?;
    same(
        "Bob's result after the claim",
        shown_result(bob).await?,
        json!("W+F"),
    )?;
    same(
        "the notice once over",
        ann.exists("#absent[hidden]").await?,
        true,
    )?;

    // After it, Ann offers a rematch: she goes to its table, and Bob's page, told over its socket, offers him
    // to accept, which starts it with the colours swapped. It then waits for Ann, first in her lobby.
    ann.click("#rematch").await?;
    let table = ann.wait_path(&format!("^/game/(?!{id}$)\\d+$")).await?;
    let accept = bob
        .wait_js(
            "the rematch offer on Bob's page",
            "const b = document.getElementById('rematch'); return !b.hidden && b.textContent",
            json!([]),
        )
        .await?;
    same("Bob's button", accept, json!("Accept the rematch"))?;
    // The offer is said at the top of Bob's page, with its own button, and in his chat.
    same(
        "the offer at the top of Bob's page and in his chat",
        bob.js(
            "return [document.getElementById('rematch-offer').hidden,
                     document.getElementById('rematch-offer-text').textContent,
                     document.getElementById('rematch-offer-accept').hidden,
                     document.getElementById('chat-rematch').textContent];",
            json!([]),
        )
        .await?,
        json!([
            false,
            "Ann offers a rematch.",
            false,
            "Ann offers a rematch."
        ]),
    )?;
    bob.click("#rematch").await?;
    bob.wait_path(&format!("^{table}$")).await?;
    let seats = ann
        .wait_js(
            "the rematch started",
            "return fetch(`/api/games/${arguments[0]}`).then((r) => r.json())
               .then((s) => s.status === 'playing' && [s.players.black.name, s.players.white.name]);",
            json!([table.trim_start_matches("/game/")]),
        )
        .await?;
    same("the rematch's seats", seats, json!(["Ann", "Bob"]))?;
    // Ann's tab says the game waits for her, Bob's does not.
    ann.wait_js(
        "Ann's title",
        "return document.title.startsWith('● Your turn · Ann – Bob')",
        json!([]),
    )
    .await?;
    bob.wait_js(
        "Bob's title, without the mark",
        "return document.title === 'Ann – Bob · tesuji'",
        json!([]),
    )
    .await?;
    ann.goto("/").await?;
    ann.wait_for(&format!(
        "#my-turn-card:not([hidden]) #my-turn li[data-game-id=\"{}\"]",
        table.trim_start_matches("/game/")
    ))
    .await?;

    // The create form comes back with the last table's choices; the computer's strength only with the computer.
    ann.goto("/").await?;
    same(
        "the remembered choices",
        ann.js(
            "return ['preset', 'size', 'color', 'opponent', 'time'].map((id) => document.getElementById(id).value);",
            json!([]),
        )
        .await?,
        json!(["bga", "9", "white", "anyone", "blitz"]),
    )?;
    same(
        "the strength field beside a human opponent",
        ann.exists("#bot-field[hidden]").await?,
        true,
    )?;
    ann.choose("#opponent", "bot").await?;
    same(
        "the strength field beside the computer",
        ann.exists("#bot-field:not([hidden])").await?,
        true,
    )?;
    same(
        "the strengths offered",
        ann.js(
            "return [...document.getElementById('bot').options].map((o) => o.value);",
            json!([]),
        )
        .await?,
        json!(["mcts-1", "mcts-2", "mcts-3", "mcts-4", "simple"]),
    )?;
    // Take-backs are allowed by default, but never against the computer: the box goes with it.
    same(
        "the take-back box beside the computer (hidden, disabled)",
        (
            ann.exists("#undo-field[hidden]").await?,
            ann.exists("#undo-allowed[disabled]").await?,
        ),
        (true, true),
    )?;
    ann.choose("#opponent", "anyone").await?;
    same(
        "the take-back box beside a human opponent (shown, enabled, checked)",
        ann.js(
            "const box = document.getElementById('undo-allowed');
             return [document.getElementById('undo-field').hidden, box.disabled, box.checked];",
            json!([]),
        )
        .await?,
        json!([false, false, true]),
    )?;
    Ok(table)
}

/// How many sounds a game page has played, and the last one (its test hook: `body[data-sounds-played]`,
/// `body[data-last-sound]`): [count, last], [null, null] before any.
async fn sounds_played(b: &Browser) -> Res<Value> {
    b.js(
        "const d = document.body.dataset; return [d.soundsPlayed ?? null, d.lastSound ?? null];",
        json!([]),
    )
    .await
}

/// On the rematch (`table`, Ann Black to move, Bob White): the sounds, the notifications' button, and Bob's news.
/// No sound on load; a move of the opponent's sounds with the stone sound on, and none (his own move neither)
/// once Bob turned it off, which a reload keeps, as it keeps turning it on again; a pass sounds on Ann's page.
/// Loading the page asks the browser nothing about notifications: only the button does. Then Bob's lobby lists
/// Ann's two moves since he last looked, and "Mark as read" empties the list, for good.
async fn sounds_notifications_and_news(
    ann: &Browser,
    bob: &Browser,
    table: &str,
    time: &ManualTime,
) -> Res<()> {
    // The claim before the rematch was news for Bob too: a second later, the rematch's moves are the newest.
    time.advance(1_000);
    for b in [ann, bob] {
        b.goto(table).await?;
        b.game_ready().await?;
        b.wait_for(&my_turn("black")).await?;
        same(
            &format!("{}'s sounds on load", b.name),
            sounds_played(b).await?,
            json!([null, null]),
        )?;
    }
    // The button is there for a player, and loading the page asked the browser nothing (its hook says so): the
    // permission is undecided in a new profile, unless the browser blocks notifications by itself, which the
    // disabled button then says.
    let permission = bob
        .js(
            "const button = document.getElementById('notify-enable');
             const p = typeof Notification === 'undefined' ? 'none' : Notification.permission;
             const consistent = p === 'denied' ? button.disabled : !button.hidden && !button.disabled;
             return [!document.getElementById('notify').hidden, document.body.dataset.notifyAsked ?? null, consistent, p];",
            json!([]),
        )
        .await?;
    same(
        "Bob's notifications on load (shown, asked, the button as the permission says)",
        &permission.as_array().map(|v| v[..3].to_vec()),
        &Some(vec![json!(true), Value::Null, json!(true)]),
    )?;
    if !["default", "denied"].contains(&permission[3].as_str().unwrap_or_default()) {
        return Err(format!(
            "the notification permission on load: {}",
            permission[3]
        ));
    }
    if permission[3] == "default" {
        // The button asks; whatever the browser answers (chromedriver's may deny at once), the page shows it.
        bob.click("#notify-enable").await?;
        bob.wait_js(
            "the permission asked through the button, and the answer shown",
            "const button = document.getElementById('notify-enable');
             const status = document.getElementById('notify-status');
             if (document.body.dataset.notifyAsked !== 'true') return false;
             const p = Notification.permission;
             if (p === 'denied') return button.disabled && !button.hidden && !status.hidden && p;
             if (p === 'granted') return button.hidden && !status.hidden && p;
             return p;",
            json!([]),
        )
        .await?;
    }

    // Sounds on (the default): Ann's move sounds on Bob's page, once.
    ann.click("#board rect[data-point=\"E5\"]").await?;
    bob.wait_move(1, "black", "E5").await?;
    same(
        "Bob's sounds after Ann's move",
        sounds_played(bob).await?,
        json!(["1", "move"]),
    )?;
    // Bob switches the stone's sound off; the reload keeps it so.
    bob.click("#sounds summary").await?;
    bob.click("#sound-move").await?;
    bob.goto(table).await?;
    bob.game_ready().await?;
    let settings = "return ['move', 'pass', 'clock'].map((k) => document.getElementById(`sound-${k}`).checked);";
    same(
        "Bob's sound settings after the reload",
        bob.js(settings, json!([])).await?,
        json!([false, true, true]),
    )?;
    // His own move and Ann's next one sound no more on his page; Ann's page, sounds on, sounds each.
    bob.wait_for(&my_turn("white")).await?;
    bob.click("#board rect[data-point=\"C3\"]").await?;
    ann.wait_for(&my_turn("black")).await?;
    ann.click("#board rect[data-point=\"G5\"]").await?;
    bob.wait_move(3, "black", "G5").await?;
    same(
        "Bob's sounds with the stone's sound off",
        sounds_played(bob).await?,
        json!([null, null]),
    )?;
    // A pass has a sound of its own.
    bob.wait_for(&my_turn("white")).await?;
    bob.click("#pass").await?;
    ann.wait_move(4, "white", "pass").await?;
    same(
        "Ann's sounds (her two moves, Bob's move and pass)",
        sounds_played(ann).await?,
        json!(["4", "pass"]),
    )?;
    // Bob switches it on again, which a reload keeps too.
    bob.click("#sounds summary").await?;
    bob.click("#sound-move").await?;
    bob.goto(table).await?;
    bob.game_ready().await?;
    same(
        "Bob's sound settings on again after a reload",
        bob.js(settings, json!([])).await?,
        json!([true, true, true]),
    )?;

    // Bob's lobby: the rematch first (the newest news), with Ann's two moves (his own are not news to him).
    let id = table.trim_start_matches("/game/");
    bob.goto("/").await?;
    bob.wait_for("#news:not([hidden])[data-count]").await?;
    same(
        "the rematch in Bob's news (first, its count, Ann's moves)",
        bob.js(
            "const li = document.querySelector(`#news-list li[data-game-id=\"${arguments[0]}\"]`);
             return li && [li === document.querySelector('#news-list li'), li.dataset.count,
                           [...li.querySelectorAll('[data-move]')].map((a) => [a.dataset.color, a.dataset.move]),
                           li.querySelector('a').getAttribute('href')];",
            json!([id]),
        )
        .await?,
        json!([
            true,
            "2",
            [["black", "E5"], ["black", "G5"]],
            table
        ]),
    )?;
    bob.click("#news-seen").await?;
    bob.wait_for("#news[data-count=\"0\"] #news-list li.empty")
        .await?;
    bob.goto("/").await?;
    bob.wait_for("#news[data-count]").await?;
    same(
        "Bob's news after a reload (games listed, the empty note, the button disabled)",
        bob.js(
            "return [document.getElementById('news').dataset.count,
                     document.querySelector('#news-list li.empty') !== null,
                     document.getElementById('news-seen').disabled];",
            json!([]),
        )
        .await?,
        json!(["0", true, true]),
    )?;
    Ok(())
}

/// Automatch: Ann seeks a 9×9 rapid game through the lobby's form and waits; Bob, on a phone-sized lobby, sees her
/// seek listed and takes it with its Play button: the game starts at once, Bob's page opens it, and Ann's page,
/// told by its lobby socket, goes there by itself. Back in her lobby, the matched seek takes her nowhere again.
async fn automatch(ann: &Browser, bob: &Browser) -> Res<()> {
    ann.goto("/").await?;
    ann.wait_for("#seek-list li").await?;
    same(
        "the seek form's defaults (ranked enabled for an account, handicap allowed)",
        ann.js(
            "const r = document.getElementById('seek-ranked');
             return [r.disabled, r.checked, document.getElementById('seek-handicap').checked,
                     document.getElementById('seek-waiting').hidden];",
            json!([]),
        )
        .await?,
        json!([false, false, true, true]),
    )?;
    ann.choose("#seek-size", "9").await?;
    ann.choose("#seek-speed", "rapid").await?;
    ann.click("#seek-submit").await?;
    ann.wait_for("#seek-waiting:not([hidden])").await?;
    same(
        "Ann's page while she waits (the form hidden, her own seek not offered to her)",
        ann.js(
            "return [document.getElementById('seek-form').hidden,
                     document.querySelector('#seek-list li[data-seek-id]') === null,
                     document.getElementById('seek-waiting-text').textContent];",
            json!([]),
        )
        .await?,
        json!([true, true, "Looking for an opponent…"]),
    )?;

    bob.fit_viewport(390, 844).await?;
    bob.goto("/").await?;
    let entry = "#seek-list li[data-seek-id][data-size=\"9\"][data-speed=\"rapid\"]";
    bob.wait_for(entry).await?;
    let listed = bob
        .js(
            "const li = document.querySelector(arguments[0]);
             const page = document.documentElement;
             return [li.querySelector('.who a').textContent, li.dataset.ranked,
                     li.querySelector('.seek-accept').disabled, page.scrollWidth - page.clientWidth];",
            json!([entry]),
        )
        .await?;
    same(
        "Ann's seek in Bob's lobby (name, unranked, Play enabled, no sideways scrolling at 390 px)",
        listed,
        json!(["Ann", "false", false, 0]),
    )?;
    bob.click(&format!("{entry} .seek-accept")).await?;
    let game = bob.wait_path("^/game/\\d+$").await?;
    ann.wait_path(&format!("^{game}$")).await?;
    let seats = bob
        .wait_js(
            "the automatch game",
            "return fetch(`/api/games/${arguments[0]}`).then((r) => r.json())
               .then((s) => s.status === 'playing'
                 && [[s.players.black.name, s.players.white.name].sort(), s.ranked, s.width]);",
            json!([game.trim_start_matches("/game/")]),
        )
        .await?;
    same(
        "the automatch game's players, unranked, 9×9",
        seats,
        json!([["Ann", "Bob"], false, 9]),
    )?;
    bob.fit_viewport(1280, 900).await?;

    // Back in the lobby, Ann's matched seek (still listed as hers) takes her nowhere: followed once only.
    ann.goto("/").await?;
    ann.wait_for("#seek-list li").await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    same(
        "Ann stays in her lobby, free to seek again",
        ann.js(
            "return [location.pathname, document.getElementById('seek-waiting').hidden,
                     document.getElementById('seek-form').hidden]",
            json!([]),
        )
        .await?,
        json!(["/", true, false]),
    )?;
    Ok(())
}

/// A new account's rating as docs/API.md gives it (Glicko-2): 1500 ± 350.
const START_RATING: i64 = 1500;
const START_DEVIATION: i64 = 350;

/// What a player's page shows of their rating: [rating, rank, the `#rating-now` line, the game ids of the
/// graph's dots, the graph shown, the "No rated games yet" note shown]. The page is static: it is loaded again
/// until its graph has `games` dots (a game is rated a moment after it ends, by a task of the server's), for at
/// most [`WAIT`].
async fn rating_card(b: &Browser, player: &str, games: usize) -> Res<Value> {
    let started = Instant::now();
    loop {
        b.goto(player).await?;
        b.wait_for("#rating:not([hidden])").await?;
        let card = b
            .js(
                "const card = document.getElementById('rating');
                 return [Number(card.dataset.rating), card.querySelector('.rank-now').dataset.rank,
                         document.getElementById('rating-now').textContent.trim(),
                         [...document.querySelectorAll('#rating-graph circle')].map((c) => c.dataset.gameId),
                         !document.getElementById('rating-graph').hasAttribute('hidden'),
                         !document.getElementById('no-rated').hidden];",
                json!([]),
            )
            .await?;
        if card[3].as_array().map(Vec::len) == Some(games) {
            return Ok(card);
        }
        if started.elapsed() > WAIT {
            return Err(format!(
                "{}: waited {WAIT:?} for {games} rated games on {player}: {card}",
                b.name
            ));
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The rank the rating system names for a rating and deviation shown (`6k?`: provisional).
fn rank_of(rating: i64, deviation: i64) -> String {
    tesuji_server::store::Rating {
        rating: rating as f64,
        deviation: deviation as f64,
        volatility: 0.06,
    }
    .label()
}

/// A ranked game between the two accounts: Ann ticks Ranked in the lobby's form (disabled beside the computer,
/// with the hint saying why), Bob joins it from his lobby, where it is marked ranked, as both game pages say it
/// is. Before it neither has a rated game (1500 ± 350 on their pages); Ann plays a stone and Bob resigns. Then
/// each player's page, as the browser shows it, has the one game in its graph, Ann above 1500 and Bob as far
/// below, both surer than before, each with the rank their rating names.
async fn ranked_game(ann: &Browser, bob: &Browser) -> Res<()> {
    // Their pages' addresses, from the header's link to one's own page.
    let me = "return document.getElementById('me-name').getAttribute('href')";
    ann.goto("/").await?;
    ann.wait_for("#lobby-status[data-status=\"open\"]").await?;
    let ann_page = ann.js(me, json!([])).await?;
    let ann_page = ann_page.as_str().unwrap_or_default().to_owned();
    bob.goto("/").await?;
    let bob_page = bob.js(me, json!([])).await?;
    let bob_page = bob_page.as_str().unwrap_or_default().to_owned();

    // Nothing so far was ranked: both still have a new account's rating, and no graph.
    let start = format!(
        "{} {START_RATING} ± {START_DEVIATION}",
        rank_of(START_RATING, START_DEVIATION)
    );
    for page in [&ann_page, &bob_page] {
        let card = rating_card(ann, page, 0).await?;
        same(
            &format!("{page} before any ranked game (rating, rank, line, graph, note)"),
            json!([
                card[0],
                card[1],
                card[2].as_str().is_some_and(|l| l.starts_with(&start)),
                card[4],
                card[5]
            ]),
            json!([
                START_RATING,
                rank_of(START_RATING, START_DEVIATION),
                true,
                false,
                true
            ]),
        )?;
    }

    // The form: no ranked game against the computer (the box disabled, the hint says why); against anyone the
    // box may be ticked.
    ann.goto("/").await?;
    ann.wait_for("#lobby-status[data-status=\"open\"]").await?;
    ann.choose("#preset", "bga").await?;
    ann.choose("#size", "9").await?;
    ann.choose("#color", "black").await?;
    ann.choose("#time", "").await?;
    let ranked_box = "const box = document.getElementById('ranked');
                      return [box.disabled, box.checked, document.getElementById('ranked-hint').textContent];";
    ann.choose("#opponent", "bot").await?;
    same(
        "the Ranked box beside the computer (disabled, ticked, hint)",
        ann.js(ranked_box, json!([])).await?,
        json!([true, false, "Games against the computer are never ranked."]),
    )?;
    ann.choose("#opponent", "anyone").await?;
    ann.click("#ranked").await?;
    same(
        "the Ranked box beside anyone, ticked (disabled, ticked, hint)",
        ann.js(ranked_box, json!([])).await?,
        json!([false, true, "A ranked game changes both players' ratings."]),
    )?;
    ann.click("#create-submit").await?;
    let path = ann.wait_path("^/game/\\d+$").await?;
    let id = path.trim_start_matches("/game/").to_owned();
    ann.game_ready().await?;

    // Bob's lobby marks the table ranked; he joins it there.
    let entry = format!("#open-tables li[data-game-id=\"{id}\"][data-ranked=\"true\"]");
    bob.wait_for(&entry).await?;
    same(
        "the ranked mark in Bob's lobby",
        bob.text(&format!("{entry} .badge")).await?.as_deref(),
        Some("Ranked"),
    )?;
    bob.click(&format!("{entry} button[data-join=\"{id}\"]"))
        .await?;
    bob.wait_path(&format!("^{path}$")).await?;
    bob.game_ready().await?;
    for b in [ann, bob] {
        b.wait_for(&my_turn("black")).await?;
        let rules = b
            .js(
                "const r = document.getElementById('rules'); return [r.dataset.ranked, r.textContent];",
                json!([]),
            )
            .await?;
        if !(rules[0] == "true" && rules[1].as_str().is_some_and(|t| t.ends_with(" · ranked"))) {
            return Err(format!("{}'s page says of the ranked game {rules}", b.name));
        }
    }

    // Five plays each (a shorter game is not rated), then Bob resigns, through the confirming dialog.
    let plays = ["E5", "C3", "G7", "C7", "G3", "D5", "F5", "E3", "E7", "D7"];
    for (k, mv) in plays.iter().enumerate() {
        let (player, other, color) = if k % 2 == 0 {
            (ann, bob, "black")
        } else {
            (bob, ann, "white")
        };
        player
            .click(&format!("#board rect[data-point=\"{mv}\"]"))
            .await?;
        other.wait_move(k + 1, color, mv).await?;
    }
    bob.wait_for("#resign:not([hidden]):not([disabled])")
        .await?;
    bob.click("#resign").await?;
    bob.wait_for("#confirm[open]").await?;
    bob.click("#confirm-yes").await?;
    for b in [ann, bob] {
        same(
            &format!("{}'s result", b.name),
            shown_result(b).await?,
            json!("B+R"),
        )?;
    }
    // Both game pages show the rating change once the game is rated, without a reload: Ann's up, Bob's down.
    for b in [ann, bob] {
        let changes = b
            .wait_js(
                &format!("{}'s page: the rating change", b.name),
                "const box = document.getElementById('rating-change');
                 const spans = [...box.querySelectorAll('.rating-change')];
                 return !box.hidden && spans.length === 2 && spans.map((s) => Number(s.dataset.change));",
                json!([]),
            )
            .await?;
        let (up, down) = (changes[0].as_i64(), changes[1].as_i64());
        if !(up.is_some_and(|c| c > 0) && down.is_some_and(|c| c < 0)) {
            return Err(format!("{}'s page: rating changes {changes}", b.name));
        }
    }

    // Each page's graph has this game, the only rated one; the winner went up as far as the loser went down
    // (equal ratings before), and the one game made both ratings surer, still provisional.
    let mut shown = Vec::new();
    for (player, page, result) in [(ann, &ann_page, "Won"), (bob, &bob_page, "Lost")] {
        let card = rating_card(ann, page, 1).await?;
        same(
            &format!("{page}: the graph's dot, the graph and the note shown"),
            json!([card[3], card[4], card[5]]),
            json!([[id], true, false]),
        )?;
        let rating = card[0]
            .as_i64()
            .ok_or(format!("{page}: no rating: {card}"))?;
        // "6k? 1500 ± 350 · provisional…": the rank, the rating and its deviation.
        let line = card[2].as_str().unwrap_or_default();
        let deviation = line
            .split_once(" ± ")
            .and_then(|(_, rest)| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|d| d.parse::<i64>().ok())
            .ok_or(format!("{page}: no deviation in {line:?}"))?;
        let rank = rank_of(rating, deviation);
        if !(card[1] == rank.as_str()
            && line.starts_with(&format!("{rank} {rating} ± {deviation}")))
        {
            return Err(format!(
                "{page} shows {line:?} (rank {}), not the rank {rank} of {rating}",
                card[1]
            ));
        }
        same(
            &format!("{page}: the game's result in the list"),
            ann.text(&format!(
                "#games tr[data-game-id=\"{id}\"] [data-result=\"B+R\"]"
            ))
            .await?,
            Some(format!("{result} B+R")),
        )?;
        // The player's own session (what the lobby and game pages name them by) agrees with the page.
        same(
            &format!("{page}: {}'s session (rating, rank)", player.name),
            player
                .js(
                    "return fetch('/api/session').then((r) => r.json()).then((s) => [s.user.rating, s.user.rank]);",
                    json!([]),
                )
                .await?,
            json!([rating, rank]),
        )?;
        shown.push((rating, deviation, rank));
    }
    let ((won, won_dev), (lost, lost_dev)) = ((shown[0].0, shown[0].1), (shown[1].0, shown[1].1));
    if !(won > START_RATING
        && lost < START_RATING
        && (won - START_RATING - (START_RATING - lost)).abs() <= 1
        && won_dev == lost_dev
        && won_dev < START_DEVIATION
        && shown.iter().all(|s| s.2.ends_with('?')))
    {
        return Err(format!(
            "the ratings after Ann's win over Bob (rating, deviation, rank): {shown:?}"
        ));
    }
    Ok(())
}

/// Whether `color`'s clock runs on `b`'s page, not stopped by a vacation: the time it shows goes down.
async fn clock_runs(b: &Browser, color: &str) -> Res<()> {
    let clock = format!("clock-{color}");
    let left = b
        .wait_js(
            &format!("#{clock} running"),
            "const c = document.getElementById(arguments[0]);
             return c.classList.contains('running') && !c.classList.contains('away') && c.dataset.leftMs;",
            json!([clock]),
        )
        .await?;
    b.wait_js(
        &format!("#{clock} going down from {left}"),
        "return Number(document.getElementById(arguments[0]).dataset.leftMs) < Number(arguments[1]);",
        json!([clock, left]),
    )
    .await
    .map(drop)
}

/// Whether `color`'s clock on `b`'s page stands still, its player's turn and the player away on vacation: marked
/// so, and the time it shows stays the same for 3/4 s (twice the time it takes a running clock to move).
async fn clock_stopped(b: &Browser, color: &str) -> Res<()> {
    let clock = format!("clock-{color}");
    b.wait_for(&format!("#{clock}.running.away[data-away=\"true\"]"))
        .await?;
    let held = b
        .js(
            "return [document.getElementById(arguments[0]).dataset.leftMs, performance.now()];",
            json!([clock]),
        )
        .await?;
    let still = b
        .wait_js(
            &format!("#{clock} standing still"),
            "const [id, [left, since]] = arguments;
             const now = document.getElementById(id).dataset.leftMs;
             if (now !== left) return `moved from ${left} to ${now}`;
             return performance.now() - since > 750 && 'still';",
            json!([clock, held]),
        )
        .await?;
    same(&format!("#{clock} on a vacation"), still, json!("still"))
}

/// Vacations, on the server's manual time (its calendar stands in the first days of 1970). Ann makes a
/// correspondence table (through the API: the lobby's form offers no correspondence clock) and Bob joins it on its
/// page; after a move each, Ann's clock runs on Bob's page. On her own page, phone-sized, Ann's vacation card
/// offers 7 days and refuses 40; she takes 2: the card says until when, with 2 days fewer left, and Bob's page,
/// told live, marks her away, her clock standing still on her turn. She comes back with the card's button: the
/// days are given back (as many as the server says: the vacation lasted no time on its clock), Bob's page drops
/// the mark and her clock runs again. Bob sees no vacation card on Ann's page.
/// The account page, as its owner uses it on a phone: the sessions listed (this browser marked, another one
/// ended from here), the password changed (the other sessions end, this one stays), a wrong password refused
/// with its headline, and the account deleted (the header then offers to log in; the name logs in no more).
async fn account_page(cat: &Browser) -> Res<()> {
    cat.goto("/").await?;
    if cat.exists("#logout").await? {
        cat.click("#logout").await?;
        cat.wait_for("#login-link").await?;
    }
    cat.sign_up("Dee", PASSWORD).await?;
    let mut elsewhere = Client::new(&cat.base).map_err(|e| e.to_string())?;
    elsewhere
        .log_in("Dee", PASSWORD)
        .await
        .map_err(|e| e.to_string())?;
    cat.fit_viewport(390, 844).await?;
    let me = cat
        .js(
            "return document.getElementById('me-name').getAttribute('href')",
            json!([]),
        )
        .await?;
    cat.goto(me.as_str().unwrap_or("/")).await?;
    cat.wait_for("#account-link:not([hidden]) a").await?;
    cat.click("#account-link a").await?;
    cat.wait_path("^/account$").await?;
    cat.ready().await?;
    let rows = "return [...document.querySelectorAll('#session-list tbody tr')].map((tr) => tr.dataset.current)";
    let listed = cat
        .wait_js(
            "two sessions",
            &format!("const r = (() => {{ {rows} }})(); return r.length === 2 && r.sort();"),
            json!([]),
        )
        .await?;
    same(
        "the sessions, this browser's marked",
        listed,
        json!(["false", "true"]),
    )?;
    same(
        "the page's width on a phone",
        cat.js(
            "return document.documentElement.scrollWidth <= innerWidth",
            json!([]),
        )
        .await?,
        json!(true),
    )?;
    cat.click("#session-list button[data-end]").await?;
    cat.wait_js(
        "one session left",
        &format!("const r = (() => {{ {rows} }})(); return r.length === 1 && r[0] === 'true';"),
        json!([]),
    )
    .await?;
    let (status, _) = elsewhere
        .get("/api/account/sessions")
        .await
        .map_err(|e| e.to_string())?;
    same("the ended session's next request", status, 401)?;

    // A wrong current password: refused, saying so (the sentence names it, so no headline repeats it).
    cat.type_into("#password input[name=current]", "not the password")
        .await?;
    cat.type_into("#password input[name=new]", "a new one 10")
        .await?;
    cat.click("#password button[type=submit]").await?;
    let refusal = cat
        .wait_js(
            "the refusal",
            "const b = document.querySelector('#password .form-error');
             return !b.hidden && [b.dataset.reason, b.textContent];",
            json!([]),
        )
        .await?;
    same(
        "the wrong password's refusal",
        refusal,
        json!(["wrong_password", "the current password is wrong"]),
    )?;
    let mut other = Client::new(&cat.base).map_err(|e| e.to_string())?;
    other
        .log_in("Dee", PASSWORD)
        .await
        .map_err(|e| e.to_string())?;
    cat.type_into("#password input[name=current]", PASSWORD)
        .await?;
    cat.click("#password button[type=submit]").await?;
    let done = cat
        .wait_js(
            "the change",
            "const d = document.getElementById('password-done'); return !d.hidden && d.textContent;",
            json!([]),
        )
        .await?;
    same(
        "the change's words",
        done,
        json!("The password is changed. Other sessions ended: 1."),
    )?;
    let (status, _) = other
        .get("/api/account/sessions")
        .await
        .map_err(|e| e.to_string())?;
    same("the other session after the change", status, 401)?;

    // Deleting asks for the tick, then the password.
    cat.type_into("#delete input[name=password]", "a new one 10")
        .await?;
    cat.click("#delete button[type=submit]").await?;
    cat.wait_for("#delete .form-error:not([hidden])").await?;
    cat.click("#delete input[name=sure]").await?;
    cat.click("#delete button[type=submit]").await?;
    cat.wait_for("#account-deleted:not([hidden])").await?;
    cat.wait_for("#login-link").await?;
    let mut again = Client::new(&cat.base).map_err(|e| e.to_string())?;
    if again.log_in("Dee", "a new one 10").await.is_ok() {
        return Err("the deleted account still logs in".into());
    }
    cat.fit_viewport(1280, 900).await
}

async fn vacation(ann: &Browser, bob: &Browser) -> Res<()> {
    ann.goto("/").await?;
    let page = ann
        .wait_js(
            "Ann's page",
            "const a = document.getElementById('me-name'); return a && a.getAttribute('href');",
            json!([]),
        )
        .await?;
    let page = page.as_str().unwrap_or_default().to_owned();
    let id = ann
        .js(
            "return fetch('/api/session').then((r) => r.json())
               .then((s) => fetch('/api/games', {method: 'POST',
                 headers: {'Content-Type': 'application/json', 'X-CSRF-Token': s.csrf},
                 body: JSON.stringify({rules: 'bga:size=9', color: 'black', time: 'correspondence'})}))
               .then((r) => r.json()).then((g) => g.id ?? JSON.stringify(g));",
            json!([]),
        )
        .await?;
    let game = format!(
        "/game/{}",
        id.as_i64()
            .ok_or(format!("the correspondence table: {id}"))?
    );
    bob.goto(&game).await?;
    bob.game_ready().await?;
    bob.click("#join").await?;
    ann.goto(&game).await?;
    ann.game_ready().await?;
    ann.wait_for(&my_turn("black")).await?;
    ann.click("#board rect[data-point=\"E5\"]").await?;
    bob.wait_for(&my_turn("white")).await?;
    bob.click("#board rect[data-point=\"C3\"]").await?;
    bob.wait_move(2, "white", "C3").await?;
    bob.wait_for(&my_turn("black")).await?;
    clock_runs(bob, "black").await?;
    same(
        "the vacation marks before any vacation",
        bob.exists("#away-black[hidden] ~ #clock-black:not(.away)")
            .await?
            && bob.exists("#away-white[hidden]").await?,
        true,
    )?;

    // Ann's card, on a phone: the days left (as the server counts them) and 7 days offered.
    ann.fit_viewport(390, 844).await?;
    ann.goto(&page).await?;
    ann.wait_for("#vacation:not([hidden])[data-away=\"false\"] #vacation-form:not([hidden])")
        .await?;
    let view = ann
        .js(
            "return fetch('/api/vacation').then((r) => r.json());",
            json!([]),
        )
        .await?;
    let (left, year) = (
        view["left_days"]
            .as_i64()
            .ok_or(format!("the vacation view: {view}"))?,
        view["year"].clone(),
    );
    let card = "const card = document.getElementById('vacation');
                const page = document.documentElement;
                return [card.dataset.away, Number(card.dataset.leftDays),
                        document.getElementById('vacation-allowance').textContent.trim(),
                        document.getElementById('vacation-days').value,
                        document.getElementById('vacation-until').textContent.trim(),
                        document.getElementById('vacation-error').hidden,
                        page.scrollWidth - page.clientWidth];";
    same(
        "Ann's vacation card (away, days left, allowance, days offered, until, error hidden, wider than the screen)",
        ann.js(card, json!([])).await?,
        json!([
            "false",
            left,
            format!("30 days a year; {left} left in {year}."),
            "7",
            "",
            true,
            0
        ]),
    )?;
    if left < 2 {
        return Err(format!("Ann has {left} days of vacation left"));
    }
    // More days than a vacation may last: the page says so, and asks the server nothing.
    ann.type_into("#vacation-days", "40").await?;
    ann.click("#vacation-take").await?;
    ann.wait_for("#vacation-error:not([hidden])[data-reason=\"bad_days\"]")
        .await?;
    ann.type_into("#vacation-days", "2").await?;
    ann.click("#vacation-take").await?;
    ann.wait_for("#vacation[data-away=\"true\"] #vacation-current:not([hidden])")
        .await?;
    let shown = ann.js(card, json!([])).await?;
    let until = shown[4].as_str().unwrap_or_default();
    if !(shown[0] == "true"
        && shown[1] == left - 2
        && shown[2] == format!("30 days a year; {} left in {year}.", left - 2)
        && until.starts_with("On vacation until ")
        && shown[5] == true
        && shown[6] == 0
        && ann.exists("#vacation-form[hidden]").await?)
    {
        return Err(format!("Ann's card on vacation: {shown}"));
    }

    // Bob's page, told live: Ann away, by her name, and her clock stopped on her turn.
    let mark = bob
        .wait_js(
            "Ann's vacation on Bob's page",
            "const m = document.getElementById('away-black');
             return !m.hidden && m.dataset.until && m.textContent;",
            json!([]),
        )
        .await?;
    if !mark
        .as_str()
        .is_some_and(|m| m.starts_with("On vacation until "))
    {
        return Err(format!("Bob's page marks Ann away with {mark}"));
    }
    same(
        "Bob's own mark",
        bob.exists("#away-white[hidden]").await?,
        true,
    )?;
    clock_stopped(bob, "black").await?;

    // Ann comes back: the days not taken are hers again.
    ann.click("#vacation-end").await?;
    ann.wait_for("#vacation[data-away=\"false\"] #vacation-form:not([hidden])")
        .await?;
    let view = ann
        .js(
            "return fetch('/api/vacation').then((r) => r.json());",
            json!([]),
        )
        .await?;
    let back = view["left_days"]
        .as_i64()
        .ok_or(format!("the vacation view: {view}"))?;
    if !(back > left - 2 && back <= left) {
        return Err(format!(
            "Ann has {back} days left after coming back, {left} before"
        ));
    }
    same(
        "Ann's card once back (away, days left, allowance, days offered, until, error hidden, wider than the screen)",
        ann.js(card, json!([])).await?,
        json!([
            "false",
            back,
            format!("30 days a year; {back} left in {year}."),
            "2",
            "",
            true,
            0
        ]),
    )?;
    ann.fit_viewport(1280, 900).await?;
    bob.wait_for("#away-black[hidden]").await?;
    clock_runs(bob, "black").await?;

    // Nobody else's vacations show: no card on Ann's page for Bob.
    bob.goto(&page).await?;
    bob.wait_for("#player-name:not(:empty)").await?;
    same(
        "the vacation card on Ann's page for Bob",
        bob.exists("#vacation[hidden]").await?,
        true,
    )?;
    Ok(())
}

// ---- languages ----

/// One of the pages' languages, with its dictionary read from the file the server serves
/// (`crates/server/web/i18n/{code}.json`).
struct Language {
    code: &'static str,
    dict: serde_json::Map<String, Value>,
}

impl Language {
    fn load(code: &'static str) -> Res<Language> {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../server/web/i18n/{code}.json"));
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        match serde_json::from_str(&text) {
            Ok(Value::Object(dict)) => Ok(Language { code, dict }),
            Ok(other) => Err(format!("{}: no object: {other}", path.display())),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// The text of `key` with its `{name}` placeholders filled, as i18n.js's `t` makes it.
    fn t(&self, key: &str, params: &[(&str, &str)]) -> Res<String> {
        let text = self
            .dict
            .get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{}.json has no {key}", self.code))?;
        Ok(params.iter().fold(text.to_owned(), |text, (name, value)| {
            text.replace(&format!("{{{name}}}"), value)
        }))
    }
}

/// What an element shows: exactly a text, or a text among others.
#[derive(Debug)]
enum Shows {
    Is(String),
    Has(String),
}

/// Half-points (the API's komi) as the pages write them: `5.5`, `-3`.
fn half_points(n: i64) -> String {
    let sign = if n < 0 { "-" } else { "" };
    let abs = n.abs();
    format!("{sign}{}{}", abs / 2, if abs % 2 == 1 { ".5" } else { "" })
}

/// Waits (at most [`WAIT`]) until the first element matching each selector of `want` is visible with the text
/// wanted, then audits the whole page in `lang`: `<html lang>` and the language menu say `lang`; no element,
/// visible or not, carrying `data-i18n` shows its key, and no visible text or placeholder, title, label or alt
/// looks like a key (`lobby.create`: dotted, in one of the dictionaries' namespaces, as `t` leaves a key it
/// lacks); none is English where `lang` says otherwise (a text the English dictionary has, placeholders
/// matching anything, whose `lang` text differs: a string built once and not again on a change of language);
/// and the page is no wider than the window.
async fn page_in(
    b: &Browser,
    page: &str,
    lang: &Language,
    en: &Language,
    want: &[(&str, Shows)],
) -> Res<()> {
    let css: Vec<&str> = want.iter().map(|w| w.0).collect();
    let started = Instant::now();
    loop {
        let shown = b
            .js(
                "return arguments[0].map((css) => {
                   const e = document.querySelector(css);
                   return e && e.checkVisibility() ? e.textContent.trim() : null;
                 });",
                json!([css]),
            )
            .await?;
        let wrong: Vec<String> = want
            .iter()
            .zip(shown.as_array().into_iter().flatten())
            .filter(|((_, want), shown)| {
                let shown = shown.as_str();
                !match want {
                    Shows::Is(text) => shown == Some(text.as_str()),
                    Shows::Has(text) => shown.is_some_and(|s| s.contains(text.as_str())),
                }
            })
            .map(|((css, want), shown)| format!("{css} shows {shown}, not {want:?}"))
            .collect();
        if wrong.is_empty() {
            break;
        }
        if started.elapsed() > WAIT {
            return Err(format!(
                "{}: {page} in {}, after {WAIT:?}: {}",
                b.name,
                lang.code,
                wrong.join("; ")
            ));
        }
        tokio::time::sleep(POLL).await;
    }
    let audit = b
        .js(
            "const [dict, en] = arguments;
             const namespaces = new Set(Object.keys(en).map((k) => k.split('.')[0]));
             const isKey = (s) => /^[a-z][a-z0-9_-]*(\\.[a-z0-9_-]+)+$/.test(s) && namespaces.has(s.split('.')[0]);
             const esc = (s) => s.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&');
             // English texts the language says otherwise, with some words of their own (not `{name}: {text}`).
             const english = Object.keys(en)
               .filter((k) => dict[k] !== en[k] && /[A-Za-z]{3}/.test(en[k].replace(/\\{\\w+\\}/g, '')))
               .map((k) => [k, new RegExp(`^${en[k].split(/\\{\\w+\\}/).map(esc).join('.+')}$`, 's')]);
             const raw = [];
             const left = [];
             const look = (where, text) => {
               const s = (text ?? '').trim();
               if (!s) return;
               if (isKey(s)) raw.push(`${where}: ${s}`);
               const k = english.find(([, re]) => re.test(s));
               if (k) left.push(`${where}: ${JSON.stringify(s)} (${k[0]})`);
             };
             const name = (e) => e.id ? `#${e.id}` : `${e.localName}${e.getAttribute('class') ? '.' + e.getAttribute('class').split(' ')[0] : ''}`;
             const seen = (e) => e.localName === 'option' ? seen(e.closest('select')) : e.checkVisibility({visibilityProperty: true});
             for (const e of document.body.querySelectorAll('*')) {
               if (!seen(e)) continue;
               look(name(e), [...e.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.data).join(''));
               for (const a of ['placeholder', 'title', 'aria-label', 'alt']) look(`${name(e)}[${a}]`, e.getAttribute(a));
             }
             look('<title>', document.title);
             for (const e of document.querySelectorAll('[data-i18n]')) {
               const key = e.dataset.i18n;
               const s = e.textContent.trim();
               if (s === key) raw.push(`${name(e)} (hidden too): ${s}`);
               else if (dict[key] !== en[key] && s === en[key]) left.push(`${name(e)} (hidden too): ${JSON.stringify(s)} (${key})`);
             }
             const page = document.documentElement;
             return [page.lang, document.getElementById('lang').value, raw, left, page.scrollWidth - page.clientWidth];",
            json!([lang.dict, en.dict]),
        )
        .await?;
    if audit == json!([lang.code, lang.code, [], [], 0]) {
        Ok(())
    } else {
        Err(format!(
            "{}: {page} in {} ([<html lang>, the language menu, raw keys, English left, wider than the window by]): \
             {audit}",
            b.name, lang.code
        ))
    }
}

/// Follows a link of the page (a real click) to a page whose address matches `path`, once its script has run.
async fn follow(b: &Browser, link: &str, path: &str) -> Res<String> {
    b.click(link).await?;
    let at = b.wait_path(path).await?;
    b.ready().await?;
    Ok(at)
}

/// Ann's lobby, signed in: the headings, buttons, the live mark, the header and a game that waits for her.
async fn lobby_in(ann: &Browser, lang: &Language, en: &Language) -> Res<()> {
    use Shows::Is;
    page_in(
        ann,
        "the lobby",
        lang,
        en,
        &[
            ("#create-title", Is(lang.t("create.title", &[])?)),
            ("#create-submit", Is(lang.t("create.submit", &[])?)),
            ("#seek-title", Is(lang.t("seek.title", &[])?)),
            ("#seek-submit", Is(lang.t("seek.submit", &[])?)),
            (
                "#open-title [data-i18n=\"lobby.open\"]",
                Is(lang.t("lobby.open", &[])?),
            ),
            (
                "#lobby-status[data-status=\"open\"]",
                Is(lang.t("live.open", &[])?),
            ),
            ("#my-turn-title", Is(lang.t("lobby.my-turn", &[])?)),
            (
                "#my-turn li a[data-watch]",
                Is(lang.t("lobby.continue", &[])?),
            ),
            (
                ".site-nav a[href=\"/archive\"]",
                Is(lang.t("nav.archive", &[])?),
            ),
            ("#logout", Is(lang.t("nav.logout", &[])?)),
        ],
    )
    .await
}

/// A game of Ann's that waits for her move: whose turn, the komi among the rules, Pass and Resign.
async fn live_game_in(ann: &Browser, lang: &Language, en: &Language) -> Res<()> {
    use Shows::{Has, Is};
    ann.game_ready().await?;
    let facts = ann
        .js(
            "return fetch(`/api/games/${location.pathname.split('/').pop()}`).then((r) => r.json())
               .then((s) => [s.to_move, s.komi]);",
            json!([]),
        )
        .await?;
    let (Some(color), Some(komi)) = (facts[0].as_str(), facts[1].as_i64()) else {
        return Err(format!("the live game's state (to move, komi): {facts}"));
    };
    let color = lang.t(&format!("color.{color}"), &[])?;
    page_in(
        ann,
        "a game waiting for her",
        lang,
        en,
        &[
            ("#turn", Is(lang.t("turn.yours", &[("color", &color)])?)),
            (
                "#rules",
                Has(lang.t("rules.komi", &[("komi", &half_points(komi))])?),
            ),
            ("#pass", Is(lang.t("game.pass", &[])?)),
            ("#resign", Is(lang.t("game.resign", &[])?)),
            ("#game-live", Is(lang.t("live.open", &[])?)),
            ("[data-i18n=\"game.moves\"]", Is(lang.t("game.moves", &[])?)),
            ("#chat-title", Is(lang.t("chat.title", &[])?)),
        ],
    )
    .await
}

/// How each language writes a date and time (`dateStyle: medium, timeStyle: short`), as a JavaScript pattern.
fn date_pattern(lang: &Language) -> Res<&'static str> {
    match lang.code {
        "en" => Ok(r"^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M$"),
        "ja" => Ok(r"^\d{4}/\d{2}/\d{2} \d{1,2}:\d{2}$"),
        "ko" => Ok(r"^\d{4}\. \d{1,2}\. \d{1,2}\. (오전|오후) \d{1,2}:\d{2}$"),
        other => Err(format!("no date pattern for {other}")),
    }
}

/// The archive: its heading and columns, and the counted game's row, its end written as the language writes
/// dates.
async fn archive_in(ann: &Browser, lang: &Language, en: &Language, game: &Counted) -> Res<()> {
    use Shows::Is;
    let id = game.id;
    ann.wait_for(&format!(
        "#games tr[data-game-id=\"{id}\"] td[data-result=\"{}\"]",
        game.result
    ))
    .await?;
    let row = format!("#games tr[data-game-id=\"{id}\"]");
    let link = format!("{row} a[href=\"/game/{id}\"]");
    page_in(
        ann,
        "the archive",
        lang,
        en,
        &[
            (
                "h1[data-i18n=\"archive.title\"]",
                Is(lang.t("archive.title", &[])?),
            ),
            (
                "#games th[data-i18n=\"archive.ended\"]",
                Is(lang.t("archive.ended", &[])?),
            ),
            (&link, Is(lang.t("player.open", &[])?)),
        ],
    )
    .await?;
    let ended = ann
        .js(
            "const text = document.querySelector(arguments[0]).textContent.trim();
             return [text, new RegExp(arguments[1]).test(text)];",
            json!([format!("{row} td:first-child"), date_pattern(lang)?]),
        )
        .await?;
    if ended[1] != true {
        return Err(format!(
            "the archive in {} writes the counted game's end {}, not as {}",
            lang.code,
            ended[0],
            date_pattern(lang)?
        ));
    }
    Ok(())
}

/// The counted game, over: its result in words, the count's caption and rows (territory, prisoners, komi),
/// the passes in the list, the chat's move, the counts under other rules.
async fn finished_game_in(
    ann: &Browser,
    lang: &Language,
    en: &Language,
    game: &Counted,
) -> Res<()> {
    use Shows::{Has, Is};
    ann.game_ready().await?;
    let (winner, margin) = game
        .result
        .split_once('+')
        .ok_or_else(|| format!("a result without a margin: {}", game.result))?;
    let winner = lang.t(
        if winner == "B" {
            "color.black"
        } else {
            "color.white"
        },
        &[],
    )?;
    let result = lang.t("result.points", &[("winner", &winner), ("margin", margin)])?;
    page_in(
        ann,
        "the counted game",
        lang,
        en,
        &[
            ("#result", Is(format!("{result} ({})", game.result))),
            (
                "#score[data-scoring=\"territory\"] #score-caption",
                Is(lang.t("scoring.territory", &[])?),
            ),
            (
                "#score tr[data-row=\"territory\"] th",
                Is(lang.t("score.territory", &[])?),
            ),
            (
                "#score tr[data-row=\"captures\"] th",
                Is(lang.t("score.captures", &[])?),
            ),
            (
                "#score tr[data-row=\"komi\"] th",
                Is(lang.t("score.komi", &[])?),
            ),
            (
                "#rules",
                Has(lang.t("rules.komi", &[("komi", &half_points(game.komi))])?),
            ),
            (
                "#moves li[data-move=\"pass\"]",
                Has(lang.t("move.pass", &[])?),
            ),
            (
                "#chat-list li .chat-move",
                Is(lang.t("chat.move", &[("n", "2")])?),
            ),
            ("#rulesets-box summary", Is(lang.t("game.rulesets", &[])?)),
            ("#sgf", Is(lang.t("game.sgf", &[])?)),
        ],
    )
    .await
}

/// The game the languages' test reads once it is over, counted: its id, result (`W+5.5`) and komi in half-points.
struct Counted {
    id: i64,
    result: String,
    komi: i64,
}

/// Through the API, as Ann and Bob: a game counted after a few stones each, with a word of Ann's at move 2, and
/// a game that waits for Ann's move; answers the first.
async fn languages_games(ann: &Browser) -> Res<Counted> {
    let client = |who: &'static str| async move {
        let mut c = Client::new(&ann.base).map_err(|e| format!("{who}'s client: {e}"))?;
        c.log_in(who, PASSWORD)
            .await
            .map_err(|e| format!("{who} logs in: {e}"))?;
        Ok::<Client, String>(c)
    };
    let (a, b) = (client("Ann").await?, client("Bob").await?);
    let table = api(
        "Ann's table",
        201,
        a.create_game(json!({
            "rules": "bga:size=9,counting=japanese,komi=normal,aga=off",
            "color": "black", "opponent": "anyone"
        }))
        .await,
    )?;
    let id = table["id"].as_i64().ok_or("a table without an id")?;
    api("Bob joins", 200, b.join(id, None).await)?;
    for (k, (black, white)) in [("C3", "G7"), ("C5", "G5"), ("C7", "G3")]
        .into_iter()
        .enumerate()
    {
        api(black, 200, a.play(id, black).await)?;
        api(white, 200, b.play(id, white).await)?;
        if k == 0 {
            api(
                "Ann's word",
                201,
                a.post(
                    &format!("/api/games/{id}/chat"),
                    json!({"text": "Have fun"}),
                )
                .await,
            )?;
        }
    }
    api("Ann passes", 200, a.play(id, "pass").await)?;
    api("Bob passes", 200, b.play(id, "pass").await)?;
    for (c, who) in [(&a, "Ann"), (&b, "Bob")] {
        api(
            &format!("{who} accepts"),
            200,
            c.post(&format!("/api/games/{id}/accept"), json!({})).await,
        )?;
    }
    let over = state_until(&a, id, "over", |s| s["result"].is_string()).await?;
    let counted = Counted {
        id,
        result: over["result"].as_str().unwrap_or_default().to_owned(),
        komi: over["komi"].as_i64().ok_or("a state without komi")?,
    };
    let table = api(
        "Bob's table",
        201,
        b.create_game(json!({"rules": "japanese:size=9", "color": "white", "opponent": "anyone"}))
            .await,
    )?;
    let waiting = table["id"].as_i64().ok_or("a table without an id")?;
    api("Ann joins", 200, a.join(waiting, None).await)?;
    Ok(counted)
}

/// Ann switches the pages to Japanese and then Korean with the header's language menu, as a reader would, and
/// back to English. Japanese, chosen in the lobby, changes it at once; the pages she then goes to through their
/// links (a game that waits for her, the archive, the counted game, over) open in it, the choice remembered.
/// Korean, chosen on the finished game's page, changes that page at once, then the others open in it; on a
/// phone none is wider than the screen. On each page the texts checked are the dictionaries' (read from the
/// files the server serves), and the page audit ([`page_in`]) finds no key and no English left. English,
/// chosen on the archive, brings the English texts back, in the lobby too.
async fn languages(ann: &Browser) -> Res<()> {
    let game = languages_games(ann).await?;
    let game = &game;
    let en = Language::load("en")?;
    let ja = Language::load("ja")?;
    let ko = Language::load("ko")?;
    let lobby = ".site-nav a[href=\"/\"]";
    let archive = ".site-nav a[href=\"/archive\"]";
    let waiting = "#my-turn li a[data-watch]";

    // English first, as the browser asks (`--lang=en-US`).
    ann.goto("/").await?;
    lobby_in(ann, &en, &en).await?;

    ann.choose("#lang", "ja").await?;
    ann.wait_for("html[lang=\"ja\"]").await?;
    lobby_in(ann, &ja, &en).await?;
    let live = follow(ann, waiting, "^/game/\\d+$").await?;
    live_game_in(ann, &ja, &en).await?;
    follow(ann, archive, "^/archive$").await?;
    archive_in(ann, &ja, &en, game).await?;
    let id = game.id;
    let finished = follow(
        ann,
        &format!("#games tr[data-game-id=\"{id}\"] a[href=\"/game/{id}\"]"),
        &format!("^/game/{id}$"),
    )
    .await?;
    finished_game_in(ann, &ja, &en, game).await?;

    ann.choose("#lang", "ko").await?;
    ann.wait_for("html[lang=\"ko\"]").await?;
    finished_game_in(ann, &ko, &en, game).await?;
    follow(ann, lobby, "^/$").await?;
    lobby_in(ann, &ko, &en).await?;
    follow(ann, waiting, "^/game/\\d+$").await?;
    live_game_in(ann, &ko, &en).await?;
    follow(ann, archive, "^/archive$").await?;
    archive_in(ann, &ko, &en, game).await?;

    // On a phone, in Korean: no page wider than the screen (the audit measures it).
    ann.fit_viewport(390, 844).await?;
    let phone = async {
        ann.goto("/").await?;
        lobby_in(ann, &ko, &en).await?;
        ann.goto(&live).await?;
        live_game_in(ann, &ko, &en).await?;
        ann.goto(&finished).await?;
        finished_game_in(ann, &ko, &en, game).await?;
        ann.goto("/archive").await?;
        archive_in(ann, &ko, &en, game).await
    }
    .await;
    ann.fit_viewport(1280, 900).await?;
    phone?;

    ann.choose("#lang", "en").await?;
    ann.wait_for("html[lang=\"en\"]").await?;
    archive_in(ann, &en, &en, game).await?;
    follow(ann, lobby, "^/$").await?;
    lobby_in(ann, &en, &en).await
}

// ---- what players see, in every language and at both widths ----

/// Waits (at most [`WAIT`]) for the game state the server answers `c` to satisfy `done`, and answers it.
async fn state_until(c: &Client, id: i64, what: &str, done: impl Fn(&Value) -> bool) -> Res<Value> {
    let started = Instant::now();
    loop {
        let (status, state) = c.game(id).await.map_err(|e| format!("game {id}: {e}"))?;
        if status == 200 && done(&state) {
            return Ok(state);
        }
        if started.elapsed() > WAIT {
            return Err(format!("game {id}, after {WAIT:?}: not {what}: {state}"));
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The answer to a request of the test's own client, which must have the status `want`; answers its body.
fn api(
    what: &str,
    want: u16,
    answer: Result<tesuji_client::Answer, tesuji_client::Error>,
) -> Res<Value> {
    match answer {
        Ok((status, body)) if status == want => Ok(body),
        Ok((status, body)) => Err(format!("{what}: {status} {body}")),
        Err(e) => Err(format!("{what}: {e}")),
    }
}

/// No table of the page needs sideways scrolling in its box (the page's own width is [`page_in`]'s audit).
async fn tables_fit(b: &Browser, page: &str) -> Res<()> {
    let over = b
        .js(
            "return [...document.querySelectorAll('table')].filter((t) => t.checkVisibility())
               .map((t) => [t.id || t.className, t.scrollWidth - t.parentElement.clientWidth])
               .filter(([, over]) => over > 0);",
            json!([]),
        )
        .await?;
    if over == json!([]) {
        Ok(())
    } else {
        Err(format!(
            "{}: {page}: tables wider than their boxes (id, by px): {over}",
            b.name
        ))
    }
}

/// Items 7 and 9 of issue 42 as a player meets them, in each of the four languages at 1280 and at 390 px (Cat's
/// window, signed out first): a newcomer's lobby, a missing page, the invite link where its creator looks, a
/// ranked game's clock and rules in words, its rating change shown live when it ends by a count, the table of
/// its count under other rules, the opponent's rematch offer at the top of the page and in the chat, and the
/// computer's dispute naming the stones it holds alive. Every page passes [`page_in`]'s audit (no key, no
/// English left, no wider than the window) and no table needs sideways scrolling. The accounts are new for each
/// language and width: ranked games between the same two accounts count less after the first.
async fn seen_in_every_language(cat: &Browser) -> Res<()> {
    let en = Language::load("en")?;
    let outcome = async {
        for (code, tag) in [("en", "En"), ("zh-Hans", "Zh"), ("ja", "Ja"), ("ko", "Ko")] {
            let lang = Language::load(code)?;
            for (width, height, size) in [(1280, 900, "Desk"), (390, 844, "Phone")] {
                cat.fit_viewport(width, height).await?;
                seen_in(cat, &lang, &en, &format!("{tag}{size}"))
                    .await
                    .map_err(|e| format!("in {code} at {width} px: {e}"))?;
            }
        }
        Ok(())
    }
    .await;
    // English again, whatever happened: the tests after this one read English.
    cat.choose("#lang", "en").await?;
    cat.wait_for("html[lang=\"en\"]").await?;
    outcome
}

async fn seen_in(cat: &Browser, lang: &Language, en: &Language, tag: &str) -> Res<()> {
    use Shows::{Has, Is};
    cat.goto("/").await?;
    if cat.exists("#logout").await? {
        cat.click("#logout").await?;
        cat.wait_for("#login-link").await?;
    }
    cat.goto("/").await?;
    cat.choose("#lang", lang.code).await?;
    cat.wait_for(&format!("html[lang=\"{}\"]", lang.code))
        .await?;
    page_in(
        cat,
        "a newcomer's lobby",
        lang,
        en,
        &[
            ("#welcome-text", Is(lang.t("lobby.welcome", &[])?)),
            ("#play-computer", Is(lang.t("lobby.play-computer", &[])?)),
        ],
    )
    .await?;
    cat.goto("/no/such/page").await?;
    page_in(
        cat,
        "a missing page",
        lang,
        en,
        &[
            ("h1", Is(lang.t("notfound.title", &[])?)),
            (
                "main a.button[href=\"/\"]",
                Is(lang.t("notfound.lobby", &[])?),
            ),
        ],
    )
    .await?;

    // Pia (this window) and Quin (the test's client) sign up.
    let (pia, quin) = (format!("Pia{tag}"), format!("Quin{tag}"));
    cat.sign_up(&pia, PASSWORD).await?;
    let client = |what: &str| Client::new(&cat.base).map_err(|e| format!("{what}: {e}"));
    let mut p = client("Pia's client")?;
    p.log_in(&pia, PASSWORD)
        .await
        .map_err(|e| format!("{pia} logs in: {e}"))?;
    let mut q = client("Quin's client")?;
    q.sign_up(&quin, PASSWORD)
        .await
        .map_err(|e| format!("{quin} signs up: {e}"))?;

    // The invite link, where its creator looks.
    let table = api(
        "an invite table",
        201,
        p.create_game(json!({"rules": "japanese:size=9", "color": "black", "opponent": "invite"}))
            .await,
    )?;
    let id = table["id"].as_i64().ok_or("a table without an id")?;
    cat.goto(&format!("/game/{id}")).await?;
    cat.game_ready().await?;
    page_in(
        cat,
        "an invite table",
        lang,
        en,
        &[("#invite-box p", Is(lang.t("invite.intro", &[])?))],
    )
    .await?;
    let link = cat
        .js(
            "return document.getElementById('invite-link').value",
            json!([]),
        )
        .await?;
    if !link
        .as_str()
        .is_some_and(|l| l.contains(&format!("/game/{id}?invite=")))
    {
        return Err(format!("the invite link is {link}"));
    }
    api(
        "cancel the invite table",
        200,
        p.post(&format!("/api/games/{id}/cancel"), json!({})).await,
    )?;

    // A ranked game with a byo-yomi clock: its rules and clock in words.
    let table = api(
        "a ranked table",
        201,
        p.create_game(json!({
            "rules": "japanese:size=9", "color": "black", "opponent": "anyone",
            "time": "byoyomi:10m+5x30s", "ranked": true
        }))
        .await,
    )?;
    let id = table["id"].as_i64().ok_or("a table without an id")?;
    api("Quin joins", 200, q.join(id, None).await)?;
    cat.goto(&format!("/game/{id}")).await?;
    cat.game_ready().await?;
    let clock = lang.t(
        "clock.words.byoyomi",
        &[
            ("main", &lang.t("unit.min", &[("n", "10")])?),
            ("periods", "5"),
            ("period", &lang.t("unit.s", &[("n", "30")])?),
        ],
    )?;
    page_in(
        cat,
        "a ranked game in play",
        lang,
        en,
        &[
            ("#rules", Has(clock)),
            ("#rules", Has(lang.t("rules.komi", &[("komi", "6.5")])?)),
        ],
    )
    .await?;
    let rules = cat.text("#rules").await?.unwrap_or_default();
    if ["japanese", "size=", "byoyomi", ":10m"]
        .iter()
        .any(|spec| rules.contains(spec))
    {
        return Err(format!("the rules are written as a spec: {rules:?}"));
    }

    // Five stones each, two passes, both accept the count: the rating change shows at once.
    for (black, white) in [
        ("C3", "G3"),
        ("C4", "G4"),
        ("C5", "G5"),
        ("C6", "G6"),
        ("C7", "G7"),
    ] {
        api(black, 200, p.play(id, black).await)?;
        api(white, 200, q.play(id, white).await)?;
    }
    api("Pia passes", 200, p.play(id, "pass").await)?;
    api("Quin passes", 200, q.play(id, "pass").await)?;
    for (c, who) in [(&p, "Pia"), (&q, "Quin")] {
        api(
            &format!("{who} accepts"),
            200,
            c.post(&format!("/api/games/{id}/accept"), json!({})).await,
        )?;
    }
    let over = state_until(&p, id, "rated", |s| s["rating_change"].is_object()).await?;
    let mut lines = Vec::new();
    for color in ["black", "white"] {
        let r = &over["rating_change"][color];
        let change = r["change"].as_i64().ok_or("a change without a number")?;
        let signed = if change > 0 {
            format!("+{change}")
        } else {
            change.to_string()
        };
        lines.push(lang.t(
            "game.rating-change",
            &[
                ("name", if color == "black" { &pia } else { &quin }),
                ("before", &r["before"].to_string()),
                ("after", &r["after"].to_string()),
                ("change", &signed),
            ],
        )?);
    }
    page_in(
        cat,
        "the ranked game, counted",
        lang,
        en,
        &[
            (
                "#rating-change .rating-change[data-color=\"black\"]",
                Is(lines[0].clone()),
            ),
            (
                "#rating-change .rating-change[data-color=\"white\"]",
                Is(lines[1].clone()),
            ),
            ("#rulesets-box summary", Is(lang.t("game.rulesets", &[])?)),
        ],
    )
    .await?;
    cat.js(
        "document.getElementById('rulesets-box').open = true; return true;",
        json!([]),
    )
    .await?;
    page_in(
        cat,
        "its count under other rules",
        lang,
        en,
        &[
            ("#rulesets thead th", Is(lang.t("game.ruleset", &[])?)),
            (
                "#rulesets tbody tr.own th",
                Is(lang.t("game.ruleset-own", &[])?),
            ),
        ],
    )
    .await?;
    tables_fit(cat, "the counted game").await?;

    // Quin offers a rematch: said at the top of the page, above the board, and in the chat.
    api(
        "Quin offers a rematch",
        200,
        q.post(&format!("/api/games/{id}/rematch"), json!({})).await,
    )?;
    let offer = lang.t("game.rematch-offered-by", &[("name", &quin)])?;
    page_in(
        cat,
        "a rematch offered",
        lang,
        en,
        &[
            ("#rematch-offer-text", Is(offer.clone())),
            ("#chat-rematch", Is(offer)),
        ],
    )
    .await?;
    same(
        "the offer above the board",
        cat.js(
            "return document.getElementById('rematch-offer').getBoundingClientRect().bottom
                    <= document.getElementById('board').getBoundingClientRect().top;",
            json!([]),
        )
        .await?,
        json!(true),
    )?;

    // The computer disputes a count that kills its stones, and says which it holds alive.
    let table = api(
        "a table against the computer",
        201,
        p.create_game(json!({
            "rules": "chinese:size=9", "color": "black", "opponent": "bot", "bot": "mcts-1"
        }))
        .await,
    )?;
    let id = table["id"].as_i64().ok_or("a table without an id")?;
    api("Pia plays E5", 200, p.play(id, "E5").await)?;
    // Pia passes whenever it is her turn: the computer, ahead, passes soon (the simple bot would fill the board).
    let mut state = Value::Null;
    for _ in 0..100 {
        state = state_until(&p, id, "Pia's turn or the count", |s| {
            s["phase"] == "marking" || s["to_move"] == "black"
        })
        .await?;
        if state["phase"] == "marking" {
            break;
        }
        api("Pia passes", 200, p.play(id, "pass").await)?;
    }
    if state["phase"] != "marking" {
        return Err(format!(
            "the game against the computer did not reach a count: {state}"
        ));
    }
    let rows: Vec<String> =
        serde_json::from_value(state["board"].clone()).map_err(|e| e.to_string())?;
    let columns = b"ABCDEFGHJ";
    let white: Vec<String> = rows
        .iter()
        .enumerate()
        .flat_map(|(r, row)| {
            let height = rows.len();
            row.chars()
                .enumerate()
                .filter(|&(_, c)| c == 'O')
                .map(move |(x, _)| format!("{}{}", columns[x] as char, height - r))
                .collect::<Vec<_>>()
        })
        .collect();
    for point in &white {
        let now = state_until(&p, id, "marking", |s| s["phase"] == "marking").await?;
        let dead: Vec<String> =
            serde_json::from_value(now["dead"].clone()).map_err(|e| e.to_string())?;
        if !dead.contains(point) {
            api(
                &format!("Pia marks {point} dead"),
                200,
                p.post(&format!("/api/games/{id}/dead"), json!({"point": point}))
                    .await,
            )?;
        }
    }
    api(
        "Pia accepts",
        200,
        p.post(&format!("/api/games/{id}/accept"), json!({})).await,
    )?;
    let disputed = state_until(&p, id, "disputed", |s| s["computer_dispute"].is_object()).await?;
    let points = |key: &str| -> Vec<String> {
        serde_json::from_value(disputed["computer_dispute"][key].clone()).unwrap_or_default()
    };
    let (alive, dead) = (points("alive"), points("dead"));
    if alive.is_empty() {
        return Err(format!(
            "the computer's dispute names no stone alive: {disputed}"
        ));
    }
    let mut said = vec![lang.t("game.computer-disputes", &[])?];
    said.push(lang.t("game.computer-holds-alive", &[("points", &alive.join(" "))])?);
    if !dead.is_empty() {
        said.push(lang.t("game.computer-finds-dead", &[("points", &dead.join(" "))])?);
    }
    cat.goto(&format!("/game/{id}")).await?;
    cat.game_ready().await?;
    page_in(
        cat,
        "the computer's dispute",
        lang,
        en,
        &[("#computer-dispute", Is(said.join(" ")))],
    )
    .await?;
    api(
        "Pia resigns",
        200,
        p.post(&format!("/api/games/{id}/resign"), json!({})).await,
    )?;
    Ok(())
}

// ---- the site the tests share ----

/// One server on manual time, one chromedriver and three browsers (Ann and Bob signed up, Cat not), made once:
/// starting Chromium three times costs more than most tests take.
struct Site {
    runtime: tokio::runtime::Runtime,
    running: Option<tesuji_server::Running>,
    driver: Option<ChromeDriver>,
    /// Ann, Bob and Cat.
    browsers: Vec<Browser>,
    time: ManualTime,
    /// Where `TESUJI_SCREENSHOTS=1` saves the pages.
    shots: Option<PathBuf>,
    _data: tempfile::TempDir,
}

impl Site {
    fn set_up() -> Result<Site, String> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| format!("no tokio runtime: {e}"))?;
        let data = tempfile::tempdir().map_err(|e| e.to_string())?;
        // The clocks run on manual time: the timed games end when a test says, not after real minutes.
        let time = ManualTime::new();
        let running = runtime
            .block_on(start(ServerConfig {
                address: "127.0.0.1:0".parse().unwrap(),
                database: tesuji_server::Database::Sqlite(data.path().to_path_buf()),
                // The three browsers share one address, whose uploads and counts are limited together (30 a
                // minute by default): the replay and review tests open more files than one person would.
                // Sign-ups and log-ins too: the languages' test makes two accounts for each language and width.
                limits: Limits {
                    records_per_minute: 600,
                    auth_per_minute: 600,
                    ..Limits::default()
                },
                time: TimeSource::manual(&time),
                // A review's search is short here (the default is 1000 playouts a position): its results are
                // what the page shows, however strong.
                review_playouts: 50,
                ..ServerConfig::default()
            }))
            .map_err(|e| format!("the server does not start: {e}"))?;
        let base = format!("http://{}", running.address);
        let driver = runtime.block_on(ChromeDriver::start());
        let (ann, bob, cat) = runtime.block_on(async {
            tokio::join!(
                Browser::open(&driver, &base, "ann"),
                Browser::open(&driver, &base, "bob"),
                Browser::open(&driver, &base, "cat"),
            )
        });
        let shots: Option<PathBuf> = (std::env::var("TESUJI_SCREENSHOTS").as_deref() == Ok("1"))
            .then(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/screenshots"));
        if let Some(dir) = &shots {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let mut site = Site {
            runtime,
            running: Some(running),
            driver: Some(driver),
            browsers: Vec::new(),
            time,
            shots,
            _data: data,
        };
        site.browsers = [ann, bob, cat].into_iter().collect::<Res<_>>()?;
        let signed_up = site
            .runtime
            .block_on(newcomers_sign_up(&site.browsers[0], &site.browsers[1]));
        if let Err(e) = signed_up {
            let report = site.runtime.block_on(site.diagnose());
            site.tear_down();
            return Err(format!("{e}{report}"));
        }
        Ok(site)
    }

    /// Runs one test: the windows back to the desktop size first, what the browsers show added to a failure.
    fn run(&self, test: Test) -> Result<(), String> {
        let outcome = self.runtime.block_on(async {
            for b in &self.browsers {
                b.fit_viewport(1280, 900).await?;
            }
            test(self).await
        });
        outcome.map_err(|e| format!("{e}{}", self.runtime.block_on(self.diagnose())))
    }

    async fn diagnose(&self) -> String {
        let mut report = String::new();
        for b in &self.browsers {
            report.push('\n');
            report.push_str(&b.diagnose().await);
        }
        report
    }

    fn tear_down(&mut self) {
        self.runtime.block_on(async {
            for b in &self.browsers {
                b.quit().await;
            }
            if let Some(running) = self.running.take() {
                running.stop().await.unwrap();
            }
        });
        // Kills the driver's process group, Chromium with it.
        self.driver = None;
    }

    fn ann(&self) -> &Browser {
        &self.browsers[0]
    }

    fn bob(&self) -> &Browser {
        &self.browsers[1]
    }

    fn cat(&self) -> &Browser {
        &self.browsers[2]
    }

    fn shots(&self) -> Option<&Path> {
        self.shots.as_deref()
    }
}

type Test = for<'a> fn(&'a Site) -> std::pin::Pin<Box<dyn Future<Output = Res<()>> + 'a>>;

/// The tests, in the order they run: one after another on the shared site. Each needs only what the set-up
/// made, so each also runs alone (a test may find the games of those before it in the lists, never in its
/// way).
const TESTS: &[(&str, Test)] = &[
    ("two_players_and_a_spectator_play_a_game", |s| {
        Box::pin(scenario(s.ann(), s.bob(), s.cat(), s.shots(), &s.time))
    }),
    ("an_invite_link_is_shown_and_a_table_cancelled", |s| {
        Box::pin(invite_and_cancel(s.ann(), s.bob()))
    }),
    (
        "timed_games_end_on_time_and_by_claim_with_sounds_news_and_an_estimate",
        |s| {
            Box::pin(async move {
                let table = timed_games(s.ann(), s.bob(), &s.time).await?;
                sounds_notifications_and_news(s.ann(), s.bob(), &table, &s.time).await?;
                estimate_during_play(s.ann(), s.bob(), s.cat(), &table, s.shots()).await
            })
        },
    ),
    ("a_record_opened_on_the_replay_page_is_reviewed", |s| {
        Box::pin(replay_review(s.ann(), s.cat(), s.shots()))
    }),
    ("a_file_opened_before_signing_in_is_there_after", |s| {
        Box::pin(file_through_sign_in(s.cat()))
    }),
    ("automatch_pairs_two_players", |s| {
        Box::pin(automatch(s.ann(), s.bob()))
    }),
    ("a_ranked_game_moves_both_ratings", |s| {
        Box::pin(ranked_game(s.ann(), s.bob()))
    }),
    ("a_vacation_stops_the_clock_until_the_player_is_back", |s| {
        Box::pin(vacation(s.ann(), s.bob()))
    }),
    ("the_pages_speak_every_language", |s| {
        Box::pin(languages(s.ann()))
    }),
    ("the_account_page_on_a_phone", |s| {
        Box::pin(account_page(s.cat()))
    }),
    (
        "what_happens_is_seen_in_every_language_on_a_phone_and_a_desktop",
        |s| Box::pin(seen_in_every_language(s.cat())),
    ),
];

/// The tests share one site, so they take turns (`--test-threads` is ignored); the site is set up when the first
/// test that runs needs it, and torn down after the last.
fn main() -> std::process::ExitCode {
    let started = Instant::now();
    let mut args = libtest_mimic::Arguments::from_args();
    args.test_threads = Some(1);
    let site: Arc<Mutex<Option<Result<Site, String>>>> = Arc::default();
    let trials = TESTS
        .iter()
        .map(|&(name, test)| {
            let site = Arc::clone(&site);
            libtest_mimic::Trial::test(name, move || {
                let mut site = site.lock().unwrap_or_else(PoisonError::into_inner);
                match site.get_or_insert_with(Site::set_up) {
                    Ok(site) => site.run(test).map_err(Into::into),
                    Err(e) => Err(format!("the site could not be set up: {e}").into()),
                }
            })
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    let taken = site.lock().unwrap_or_else(PoisonError::into_inner).take();
    if let Some(Ok(mut site)) = taken {
        site.tear_down();
        eprintln!("browser tests: {:.1} s", started.elapsed().as_secs_f64());
    }
    conclusion.exit_code()
}
