//! The browser pages: HTML, CSS, JavaScript modules, dictionaries and the icon of `web/`, embedded in the binary
//! (read from disk in debug builds, so that a page edit shows on reload).
//!
//! Every answer carries an ETag (the file's SHA-256) and `Cache-Control: no-cache`: the file names carry no
//! version, so a browser must ask again each time, and a matching `If-None-Match` costs a 304 only. The pages
//! also get a Content-Security-Policy that admits our own scripts, styles and sockets only.

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rust_embed::EmbeddedFile;

#[derive(rust_embed::Embed)]
#[folder = "web/"]
// Node tests and its package file are for development only.
#[exclude = "tests/*"]
#[exclude = "package.json"]
struct Assets;

/// Each page's route and file. `/game/{id}` and `/player/{id}` serve the same HTML for every id: the scripts
/// read the id from the address.
pub const PAGES: &[(&str, &str)] = &[
    ("/", "index.html"),
    ("/game/{id}", "game.html"),
    ("/player/{id}", "player.html"),
    ("/replay", "replay.html"),
    ("/archive", "archive.html"),
    ("/login", "login.html"),
    ("/reset", "reset.html"),
    ("/account", "account.html"),
];

const CACHE_CONTROL: &str = "no-cache";

/// Scripts, styles and images from this server only; sockets to it (`ws:`/`wss:`, since not every browser
/// counts them as 'self'); no framing, no plugins, no `<base>` tricks.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; \
     form-action 'self'; frame-ancestors 'none'";

/// The page every address the site does not have gets, with status 404.
const NOT_FOUND_PAGE: &str = "notfound.html";

/// The site's header, written once: each page holds [`HEADER_MARK`] where it goes.
const HEADER_FILE: &str = "header.html";
const HEADER_MARK: &str = "  <!-- site header -->\n";

/// The pages, `/static/{*path}` (the assets of `web/`: CSS, JavaScript modules, dictionaries, the icon), and
/// the not-found page for any other address.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    let mut router = Router::new();
    for &(route, file) in PAGES {
        router = router.route(
            route,
            get(move |headers: HeaderMap| async move { page(file, route, &headers) }),
        );
    }
    router
        .route("/static/{*path}", get(asset))
        .fallback(no_such_page)
}

/// A page for an address the site does not have: a person reads it, so it is the translated page with the
/// header (status 404, never cached as the page of that address).
async fn no_such_page() -> Response {
    let mut response = page(NOT_FOUND_PAGE, "", &HeaderMap::new());
    *response.status_mut() = StatusCode::NOT_FOUND;
    response.headers_mut().remove(header::ETAG);
    response
}

/// The Content-Type of an asset by its extension; `None` for files that are not served.
fn content_type(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.')?.1;
    Some(match ext {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "txt" => "text/plain; charset=utf-8",
        _ => return None,
    })
}

/// Whether `/static/{path}` serves this file of `web/`: not the node tests, the notes or node's package file,
/// not the pages (they have their own routes), nothing outside the folder.
fn is_public(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\\')
        && !path
            .split('/')
            .any(|seg| seg.is_empty() || seg == "." || seg == "..")
        && !path.starts_with("tests/")
        && path != "package.json"
        && !path.ends_with(".html")
        && content_type(path).is_some()
}

fn etag(file: &EmbeddedFile) -> String {
    let hash = file.metadata.sha256_hash();
    let hex: String = hash[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// Whether `If-None-Match` names this ETag (or `*`); weak tags compare equal too, as RFC 9110 wants for GET.
fn not_modified(headers: &HeaderMap, tag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim())
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == tag)
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, CACHE_CONTROL),
        ],
        "not found\n",
    )
        .into_response()
}

/// Page `file`, served at `route`, as browsers get it: the header in place of its mark, the header's link to
/// `route` marked as the current page; its ETag from both files' hashes (a page has one route).
fn rendered(file: &str, route: &str) -> Option<(Vec<u8>, String)> {
    let page = Assets::get(file)?;
    let header = Assets::get(HEADER_FILE)?;
    let text = std::str::from_utf8(&page.data).ok()?;
    let shared = std::str::from_utf8(&header.data).ok()?;
    // The header file's own comment stays out of the pages.
    let shared = shared.split_once("-->\n").map_or(shared, |(_, rest)| rest);
    let link = format!("<a href=\"{route}\"");
    let shared = shared.replacen(&link, &format!("{link} aria-current=\"page\""), 1);
    let body = text.replacen(HEADER_MARK, &shared, 1);
    let tag = format!("\"{}{}\"", &etag(&page)[1..17], &etag(&header)[1..17]);
    Some((body.into_bytes(), tag))
}

/// A file of the embed with its headers, or a 304 when the browser's copy is current.
fn serve(path: &str, content_type: &'static str, headers: &HeaderMap, is_page: bool) -> Response {
    match Assets::get(path) {
        Some(file) => {
            let tag = etag(&file);
            answer(file.data.into_owned(), tag, content_type, headers, is_page)
        }
        None => not_found(),
    }
}

/// `body` with its headers, or a 304 when the browser's copy (`If-None-Match`) is `tag`.
fn answer(
    body: Vec<u8>,
    tag: String,
    content_type: &'static str,
    headers: &HeaderMap,
    is_page: bool,
) -> Response {
    let mut response = if not_modified(headers, &tag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut r = body.into_response();
        r.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        r
    };
    let h = response.headers_mut();
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(CACHE_CONTROL),
    );
    if let Ok(tag) = HeaderValue::from_str(&tag) {
        h.insert(header::ETAG, tag);
    }
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if is_page {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        );
        // Invite tokens travel in page addresses; keep them off other sites' logs.
        h.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        );
        h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    response
}

fn page(file: &'static str, route: &str, headers: &HeaderMap) -> Response {
    match rendered(file, route) {
        Some((body, tag)) => answer(body, tag, "text/html; charset=utf-8", headers, true),
        None => not_found(),
    }
}

async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    match content_type(&path) {
        Some(ct) if is_public(&path) => serve(&path, ct, &headers, false),
        _ => not_found(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};
    use std::net::SocketAddr;

    fn text(path: &str) -> String {
        let file = Assets::get(path).unwrap_or_else(|| panic!("{path} is not in the embed"));
        String::from_utf8(file.data.into_owned()).unwrap_or_else(|_| panic!("{path} is not UTF-8"))
    }

    fn files_with(ext: &str) -> Vec<String> {
        Assets::iter()
            .map(|p| p.into_owned())
            .filter(|p| p.ends_with(ext) && !p.starts_with("tests/"))
            .collect()
    }

    fn dictionary(lang: &str) -> BTreeMap<String, String> {
        let path = format!("i18n/{lang}.json");
        serde_json::from_str(&text(&path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// Values of `name="..."` attributes in an HTML text.
    fn attribute_values(html: &str, name: &str) -> Vec<String> {
        let needle = format!(" {name}=\"");
        let mut out = Vec::new();
        let mut rest = html;
        while let Some(at) = rest.find(&needle) {
            rest = &rest[at + needle.len()..];
            let end = rest.find('"').expect("unclosed attribute");
            out.push(rest[..end].to_string());
            rest = &rest[end..];
        }
        out
    }

    /// The quoted string literals of a JavaScript text, those inside `${...}` of template literals included
    /// (a template's own text is not a literal). Enough for our modules: no quotes inside regular expressions.
    fn string_literals(js: &str) -> Vec<String> {
        let chars: Vec<char> = js.chars().collect();
        let mut out = Vec::new();
        let mut in_template = false;
        let mut depths: Vec<u32> = Vec::new(); // brace depth inside each open `${`
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let next = chars.get(i + 1).copied();
            i += 1;
            if in_template {
                match c {
                    '\\' => i += 1,
                    '`' => in_template = false,
                    '$' if next == Some('{') => {
                        depths.push(0);
                        in_template = false;
                        i += 1;
                    }
                    _ => {}
                }
                continue;
            }
            match c {
                '"' | '\'' => {
                    let mut s = String::new();
                    while i < chars.len() {
                        let d = chars[i];
                        i += 1;
                        match d {
                            '\\' => i += 1,
                            d if d == c => break,
                            d => s.push(d),
                        }
                    }
                    out.push(s);
                }
                '`' => in_template = true,
                '/' if next == Some('/') => {
                    while i < chars.len() && chars[i] != '\n' {
                        i += 1;
                    }
                }
                '/' if next == Some('*') => {
                    i += 1;
                    while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                        i += 1;
                    }
                    i += 2;
                }
                '{' => {
                    if let Some(d) = depths.last_mut() {
                        *d += 1;
                    }
                }
                '}' => match depths.last_mut() {
                    Some(0) => {
                        depths.pop();
                        in_template = true;
                    }
                    Some(d) => *d -= 1,
                    None => {}
                },
                _ => {}
            }
        }
        out
    }

    /// The module specifiers of `import ... from "x"` and `import("x")`.
    fn imports(js: &str) -> Vec<String> {
        let mut out = Vec::new();
        for needle in ["from \"", "import(\"", "import \""] {
            let mut rest = js;
            while let Some(at) = rest.find(needle) {
                rest = &rest[at + needle.len()..];
                let end = rest.find('"').expect("unclosed import");
                out.push(rest[..end].to_string());
            }
        }
        out
    }

    /// `js/game.js` + `./board.js` → `js/board.js`.
    fn resolve(from: &str, spec: &str) -> String {
        let mut parts: Vec<&str> = from.split('/').collect();
        parts.pop();
        for seg in spec.split('/') {
            match seg {
                "." => {}
                ".." => {
                    parts.pop();
                }
                s => parts.push(s),
            }
        }
        parts.join("/")
    }

    /// Page `file` as served: with the site's header.
    fn served(file: &str) -> String {
        let route = PAGES
            .iter()
            .find(|(_, f)| *f == file)
            .map_or("", |(route, _)| *route);
        let (body, _) = rendered(file, route).unwrap_or_else(|| panic!("{file} does not render"));
        String::from_utf8(body).unwrap()
    }

    #[test]
    fn every_page_has_the_one_header_with_its_own_link_current() {
        let pages = PAGES.iter().copied().chain([("", NOT_FOUND_PAGE)]);
        for (route, file) in pages {
            let source = text(file);
            assert_eq!(source.matches(HEADER_MARK).count(), 1, "{file}: one mark");
            assert!(
                !source.contains("<header"),
                "{file} writes a header of its own"
            );
            let html = served(file);
            assert!(!html.contains("site header -->"), "{file}");
            assert_eq!(
                html.matches("<header class=\"site-header\">").count(),
                1,
                "{file}"
            );
            let current: Vec<&str> = html
                .match_indices("aria-current=\"page\"")
                .map(|(at, _)| html[..at].rsplit_once("<a ").unwrap().1)
                .collect();
            let linked = ["/", "/replay", "/archive"].contains(&route);
            assert_eq!(
                current,
                if linked {
                    vec![format!("href=\"{route}\" ")]
                } else {
                    vec![]
                },
                "{file}"
            );
        }
        // A page's tag changes with the header as with the page.
        let (_, index) = rendered("index.html", "/").unwrap();
        let (_, game) = rendered("game.html", "/game/{id}").unwrap();
        assert_ne!(index, game);
        assert_eq!(index[17..], game[17..], "the header's half of the tag");
    }

    #[test]
    fn every_page_file_is_embedded() {
        for &(_, file) in PAGES {
            let html = served(file);
            assert!(html.starts_with("<!doctype html>"), "{file}");
            assert!(html.contains("<script type=\"module\""), "{file}");
            assert!(html.contains("id=\"lang\""), "{file}: no language selector");
        }
    }

    #[test]
    fn every_reference_of_a_page_or_module_exists() {
        for file in files_with(".html") {
            let html = text(&file);
            let refs = attribute_values(&html, "src")
                .into_iter()
                .chain(attribute_values(&html, "href"));
            for r in refs.filter(|r| r.starts_with("/static/")) {
                let path = &r["/static/".len()..];
                assert!(is_public(path), "{file}: {r} would not be served");
                assert!(Assets::get(path).is_some(), "{file}: {r} is missing");
            }
        }
        let modules = files_with(".js");
        assert!(modules.len() >= 10, "{modules:?}");
        for module in modules {
            for spec in imports(&text(&module)) {
                assert!(
                    spec.starts_with("./") || spec.starts_with("../"),
                    "{module}: import {spec:?} must be relative (no build step, no CDN)"
                );
                let target = resolve(&module, &spec);
                assert!(is_public(&target), "{module}: {spec} would not be served");
                assert!(
                    Assets::get(&target).is_some(),
                    "{module}: {spec} is missing"
                );
            }
        }
    }

    /// The reason codes the API answers, read from the one place that names them (`http/answer.rs`, as
    /// `(StatusCode::…, "code")` pairs).
    fn reason_codes() -> BTreeSet<String> {
        let source = include_str!("http/answer.rs");
        let mut codes = BTreeSet::new();
        let mut rest = source;
        while let Some(at) = rest.find("(StatusCode::") {
            rest = &rest[at..];
            let pair = &rest[..rest.find(')').expect("unclosed pair")];
            if let Some((_, code)) = pair.split_once(", \"") {
                codes.insert(code.trim_end_matches('"').to_owned());
            }
            rest = &rest[1..];
        }
        codes
    }

    #[test]
    fn every_reason_the_api_answers_has_a_headline_in_every_language() {
        let codes = reason_codes();
        // The list is read from the source: it must hold the codes known to be there.
        assert!(codes.len() >= 40, "{codes:?}");
        for code in [
            "not_found",
            "wrong_password",
            "games_in_play",
            "upload_quota",
        ] {
            assert!(
                codes.contains(code),
                "{code} not read from error.rs: {codes:?}"
            );
        }
        for lang in ["en", "zh-Hans", "ja", "ko"] {
            let dictionary = dictionary(lang);
            let missing: Vec<&String> = codes
                .iter()
                .filter(|c| !dictionary.contains_key(&format!("reason.{c}")))
                .collect();
            assert!(missing.is_empty(), "{lang} has no headline for {missing:?}");
        }
    }

    #[test]
    fn dictionaries_have_the_same_keys_and_placeholders() {
        let en = dictionary("en");
        let en_keys: BTreeSet<&String> = en.keys().collect();
        let placeholders = |s: &str| -> BTreeSet<String> {
            s.split('{')
                .skip(1)
                .filter_map(|p| p.split_once('}').map(|(name, _)| name.to_string()))
                .collect()
        };
        for (key, value) in &en {
            assert!(!value.trim().is_empty(), "en {key} is empty");
        }
        for lang in LANGUAGES.iter().filter(|&&l| l != "en") {
            let other = dictionary(lang);
            let keys: BTreeSet<&String> = other.keys().collect();
            assert_eq!(
                en_keys.symmetric_difference(&keys).collect::<Vec<_>>(),
                Vec::<&&String>::new(),
                "keys in en or {lang} only"
            );
            for (key, value) in &en {
                assert!(!other[key].trim().is_empty(), "{lang} {key} is empty");
                assert_eq!(
                    placeholders(value),
                    placeholders(&other[key]),
                    "{lang} {key}"
                );
            }
        }
    }

    /// Every page's language selector offers exactly these, and each has its dictionary (above).
    const LANGUAGES: [&str; 4] = ["en", "zh-Hans", "ja", "ko"];

    #[test]
    fn every_page_offers_every_language() {
        for page in [
            "index.html",
            "game.html",
            "login.html",
            "player.html",
            "archive.html",
            "replay.html",
            "reset.html",
            "notfound.html",
            "account.html",
        ] {
            let html = served(page);
            // The options of the language selector, `<select id="lang">`.
            let selector = html
                .split_once("id=\"lang\"")
                .and_then(|(_, rest)| rest.split_once("</select>"))
                .map(|(options, _)| options)
                .unwrap_or_else(|| panic!("{page} has no language selector"));
            let offered: Vec<&str> = selector
                .split("<option value=\"")
                .skip(1)
                .filter_map(|o| o.split_once('"').map(|(v, _)| v))
                .collect();
            assert_eq!(offered, LANGUAGES, "{page}");
        }
    }

    #[test]
    fn every_key_the_pages_use_is_in_the_dictionary() {
        let en = dictionary("en");
        let prefixes: BTreeSet<&str> = en.keys().filter_map(|k| k.split('.').next()).collect();
        for file in files_with(".html") {
            let html = text(&file);
            for attr in [
                "data-i18n",
                "data-i18n-placeholder",
                "data-i18n-title",
                "data-i18n-aria-label",
            ] {
                for key in attribute_values(&html, attr) {
                    assert!(
                        en.contains_key(&key),
                        "{file}: {attr}={key:?} is not in en.json"
                    );
                }
            }
        }
        // Every literal that looks like a key of ours ("lobby.watch") must be one.
        for module in files_with(".js") {
            for s in string_literals(&text(&module)) {
                let Some((prefix, rest)) = s.split_once('.') else {
                    continue;
                };
                let looks_like_key = prefixes.contains(prefix)
                    && !rest.is_empty()
                    && !rest.ends_with('.')
                    && s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
                if looks_like_key {
                    assert!(en.contains_key(&s), "{module}: {s:?} is not in en.json");
                }
            }
        }
        // Keys built at run time: each family complete.
        let families: &[(&str, &[&str])] = &[
            ("color", &["black", "white", "random"]),
            (
                "preset",
                &[
                    "bga",
                    "tromp-taylor",
                    "ideal",
                    "aga",
                    "chinese",
                    "japanese",
                    "korean",
                    "new-zealand",
                ],
            ),
            ("counting", &["japanese", "chinese"]),
            (
                "bga.komi",
                &[
                    "none", "normal", "big", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9",
                ],
            ),
            ("rules.aga", &["on", "off"]),
            ("rules.counting", &["japanese", "chinese"]),
            ("rules.bga-komi", &["none", "normal", "big", "h1"]),
            ("live", &["connecting", "open", "closed"]),
            ("status", &["open", "playing", "marking", "over"]),
            (
                "move",
                &["pass", "resign", "accept", "dispute", "mark", "mark-none"],
            ),
            (
                "result",
                &[
                    "points", "resign", "time", "forfeit", "win", "tiebreak", "draw", "void",
                ],
            ),
            ("scoring", &["area", "territory", "area-reach", "stones"]),
            (
                "score",
                &[
                    "stones",
                    "territory",
                    "shared",
                    "captures",
                    "dead",
                    "pass_stones",
                    "komi",
                    "handicap_bonus",
                    "groups",
                    "total",
                    "dame",
                    "margin",
                ],
            ),
            // The refusals of docs/API.md that a page can meet.
            (
                "reason",
                &[
                    "occupied",
                    "suicide",
                    "ko",
                    "forced_pass",
                    "handicap_placement",
                    "not_your_turn",
                    "game_over",
                    "not_seated",
                    "not_started",
                    "not_playing",
                    "not_marking",
                    "off_board",
                    "stale_version",
                    "seat_taken",
                    "bad_invite",
                    "already_seated",
                    "csrf",
                    "not_signed_in",
                    "bad_name",
                    "bad_password",
                    "name_taken",
                    "wrong_login",
                    "rate_limited",
                    "store_unavailable",
                    "ranked_needs_account",
                    "too_large",
                    "bad_sgf",
                    "too_many_moves",
                ],
            ),
        ];
        for (family, members) in families {
            for m in *members {
                let key = format!("{family}.{m}");
                assert!(en.contains_key(&key), "{key} is not in en.json");
            }
        }
    }

    /// The ids and data attributes that browser tests rely on (web/README.md).
    #[test]
    fn pages_carry_the_test_ids() {
        let expect: &[(&str, &[&str])] = &[
            (
                "index.html",
                &[
                    "open-tables",
                    "games-playing",
                    "create",
                    "size",
                    "counting",
                    "komi",
                    "aga",
                    "preset",
                    "handicap",
                    "komi-text",
                    "spec",
                    "color",
                    "opponent",
                    "ranked",
                    "create-submit",
                    "create-error",
                    "invite-link",
                    "me",
                    "lang",
                    "news",
                    "news-list",
                    "news-seen",
                    "undo-allowed",
                    "seek",
                    "seek-form",
                    "seek-size",
                    "seek-speed",
                    "seek-submit",
                    "seek-waiting",
                    "seek-cancel",
                    "seek-list",
                    "seek-error",
                ],
            ),
            (
                "game.html",
                &[
                    "board",
                    "pass",
                    "resign",
                    "accept",
                    "dispute",
                    "join",
                    "message",
                    "result",
                    "turn",
                    "moves",
                    "score",
                    "sgf",
                    "confirm",
                    "confirm-yes",
                    "replay-link",
                    "chat-list",
                    "chat-input",
                    "chat-send",
                    "chat-error",
                    "undo",
                    "undo-prompt",
                    "undo-accept",
                    "undo-decline",
                    "undo-waiting",
                    "sounds",
                    "sound-move",
                    "sound-pass",
                    "sound-clock",
                    "notify-enable",
                    "away-black",
                    "away-white",
                    "analysis",
                    "analysis-ask",
                    "analysis-signin",
                    "analysis-progress",
                    "analysis-error",
                    "analysis-results",
                    "analysis-graph",
                    "analysis-position",
                    "analysis-summary",
                    "analysis-best",
                    "analysis-territory",
                    "analysis-mistakes",
                    "estimate",
                    "estimate-ask",
                    "estimate-signin",
                    "estimate-error",
                    "estimate-result",
                    "estimate-figures",
                    "estimate-best",
                    "estimate-stale",
                    "estimate-show",
                ],
            ),
            (
                "player.html",
                &[
                    "games",
                    "player-name",
                    "rating",
                    "rating-graph",
                    "record",
                    "current",
                    "vacation",
                    "vacation-allowance",
                    "vacation-current",
                    "vacation-until",
                    "vacation-end",
                    "vacation-form",
                    "vacation-days",
                    "vacation-take",
                    "vacation-none-left",
                    "vacation-error",
                ],
            ),
            ("archive.html", &["games", "no-games", "more-games"]),
            (
                "replay.html",
                &[
                    "board",
                    "first",
                    "prev",
                    "next",
                    "last",
                    "slider",
                    "move-number",
                    "sgf-file",
                    "message",
                    "game-info",
                    "moves",
                    "sgf",
                    "analysis",
                    "analysis-ask",
                    "analysis-signin",
                    "analysis-login",
                    "analysis-progress",
                    "analysis-error",
                    "analysis-results",
                    "analysis-graph",
                    "analysis-position",
                    "analysis-summary",
                    "analysis-best",
                    "analysis-territory",
                    "analysis-mistakes",
                ],
            ),
            ("login.html", &["signup", "login", "guest"]),
            ("reset.html", &["reset", "reset-done", "reset-missing"]),
        ];
        for (file, ids) in expect {
            let found: BTreeSet<String> =
                attribute_values(&served(file), "id").into_iter().collect();
            for id in *ids {
                assert!(found.contains(*id), "{file} has no #{id}");
            }
        }
        let login = text("login.html");
        assert_eq!(
            attribute_values(&login, "name")
                .iter()
                .filter(|n| *n == "name")
                .count(),
            3
        );
        assert_eq!(
            attribute_values(&login, "name")
                .iter()
                .filter(|n| *n == "password")
                .count(),
            2
        );
        let board = text("js/board.js");
        for attr in ["data-point", "data-stone"] {
            assert!(board.contains(attr), "board.js sets no {attr}");
        }
    }

    #[test]
    fn literals_inside_templates_are_found() {
        let js = "// it's\nx = `a ${t(\"k.one\")} b ${f({ a: `c ${t('k.two')}` })} d`; /* \"no\" */ y = \"k.three\";";
        assert_eq!(string_literals(js), ["k.one", "k.two", "k.three"]);
    }

    #[test]
    fn static_paths() {
        assert!(is_public("css/style.css"));
        assert!(is_public("js/game.js"));
        assert!(is_public("i18n/zh-Hans.json"));
        assert!(is_public("favicon.svg"));
        for private in [
            "",
            "tests/spec.test.mjs",
            "package.json",
            "README.md",
            "index.html",
            "../Cargo.toml",
            "js/../../src/web.rs",
            "/etc/passwd",
            "js//game.js",
            "js\\game.js",
        ] {
            assert!(!is_public(private), "{private:?}");
        }
        assert_eq!(content_type("a.js"), Some("text/javascript; charset=utf-8"));
        assert_eq!(content_type("noext"), None);
    }

    async fn start() -> SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, routes::<()>()).await });
        address
    }

    #[tokio::test]
    async fn serves_pages_and_assets_with_their_headers() {
        let base = format!("http://{}", start().await);
        let http = reqwest::Client::new();
        for path in [
            "/",
            "/game/7",
            "/game/12345",
            "/player/3",
            "/replay",
            "/replay?game=4",
            "/login?next=%2F",
        ] {
            let r = http.get(format!("{base}{path}")).send().await.unwrap();
            assert_eq!(r.status(), 200, "{path}");
            let h = r.headers();
            assert_eq!(
                h[header::CONTENT_TYPE],
                "text/html; charset=utf-8",
                "{path}"
            );
            assert_eq!(h[header::CACHE_CONTROL], "no-cache", "{path}");
            assert!(h.contains_key(header::CONTENT_SECURITY_POLICY), "{path}");
            assert!(h.contains_key(header::ETAG), "{path}");
            assert!(
                r.text().await.unwrap().contains("<script type=\"module\""),
                "{path}"
            );
        }
        let game = http
            .get(format!("{base}/game/1"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let other = http
            .get(format!("{base}/game/2"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(game, other, "one HTML for every game");

        for (path, ct) in [
            ("/static/css/style.css", "text/css; charset=utf-8"),
            ("/static/js/game.js", "text/javascript; charset=utf-8"),
            ("/static/i18n/en.json", "application/json"),
            ("/static/i18n/zh-Hans.json", "application/json"),
            ("/static/i18n/ja.json", "application/json"),
            ("/static/i18n/ko.json", "application/json"),
            ("/static/favicon.svg", "image/svg+xml"),
        ] {
            let r = http.get(format!("{base}{path}")).send().await.unwrap();
            assert_eq!(r.status(), 200, "{path}");
            assert_eq!(r.headers()[header::CONTENT_TYPE], ct, "{path}");
            assert_eq!(r.headers()[header::CACHE_CONTROL], "no-cache", "{path}");
            assert_eq!(
                r.headers()[header::X_CONTENT_TYPE_OPTIONS],
                "nosniff",
                "{path}"
            );
            let tag = r.headers()[header::ETAG].clone();
            assert!(!r.bytes().await.unwrap().is_empty(), "{path}");
            // The browser's copy is current: 304, no body.
            let again = http
                .get(format!("{base}{path}"))
                .header(header::IF_NONE_MATCH, tag.clone())
                .send()
                .await
                .unwrap();
            assert_eq!(again.status(), 304, "{path}");
            assert_eq!(again.headers()[header::ETAG], tag, "{path}");
            assert!(again.bytes().await.unwrap().is_empty(), "{path}");
            let stale = http
                .get(format!("{base}{path}"))
                .header(header::IF_NONE_MATCH, "\"0000\"")
                .send()
                .await
                .unwrap();
            assert_eq!(stale.status(), 200, "{path}");
        }

        for path in [
            "/static/nope.js",
            "/static/js/nope.js",
            "/static/",
            "/static/README.md",
            "/static/package.json",
            "/static/tests/spec.test.mjs",
            "/static/index.html",
            "/static/js/%2e%2e/%2e%2e/src/web.rs",
            "/static/..%2F..%2FCargo.toml",
        ] {
            let r = http.get(format!("{base}{path}")).send().await.unwrap();
            assert_eq!(r.status(), 404, "{path}");
        }
        // An address a person typed or followed gets the not-found page, translated like the others.
        for path in [
            "/nowhere",
            "/game",
            "/games/7",
            "/player/1/games",
            "/login/x",
        ] {
            let r = http.get(format!("{base}{path}")).send().await.unwrap();
            assert_eq!(r.status(), 404, "{path}");
            assert_eq!(
                r.headers()[header::CONTENT_TYPE],
                "text/html; charset=utf-8",
                "{path}"
            );
            assert!(
                r.headers().contains_key(header::CONTENT_SECURITY_POLICY),
                "{path}"
            );
            assert!(!r.headers().contains_key(header::ETAG), "{path}");
            let body = r.text().await.unwrap();
            assert!(
                body.contains("data-i18n=\"notfound.title\""),
                "{path}: {body}"
            );
        }
    }
}
