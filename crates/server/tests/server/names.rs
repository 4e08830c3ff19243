//! Names over the API: look-alikes of an account refused with their reason, one account for the NFC and NFD
//! forms of a name, guests kept from accounts' names, and the skeletons of accounts made before they were kept.

use std::path::Path;

use serde_json::{Value, json};
use tesuji_server::store::sqlite::SqliteStore;
use tesuji_server::store::{AccountStore, SiteStore};
use tesuji_server::{Database, Limits, Running, ServerConfig, start};

const PASSWORD: &str = "correct horse battery";

/// A server on port 0 keeping its data in `dir`, with room for the many sign-ins of a test.
async fn server(dir: &Path) -> Running {
    start(ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        database: Database::Sqlite(dir.to_path_buf()),
        limits: Limits {
            auth_per_minute: 1000,
            ..Limits::default()
        },
        ..ServerConfig::default()
    })
    .await
    .expect("server starts")
}

/// Posts `body` to `path` from a new browser (its own cookies); answers the status and the JSON body.
async fn post(running: &Running, path: &str, body: Value) -> (u16, Value) {
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    let response = client
        .post(format!("http://{}{path}", running.address))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

async fn sign_up(running: &Running, name: &str) -> (u16, Value) {
    post(
        running,
        "/api/signup",
        json!({ "name": name, "password": PASSWORD }),
    )
    .await
}

async fn guest(running: &Running, name: &str) -> (u16, Value) {
    post(running, "/api/guest", json!({ "name": name })).await
}

/// Asserts a `bad_name` refusal whose sentence contains `why`.
fn assert_bad_name((status, body): (u16, Value), why: &str) {
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["reason"], "bad_name", "{body}");
    let error = body["error"].as_str().unwrap();
    assert!(error.contains(why), "{error:?} lacks {why:?}");
}

#[tokio::test]
async fn look_alikes_of_an_account_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (status, body) = sign_up(&running, "alice").await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["user"]["name"], "alice");

    // A Cyrillic "а" before Latin letters.
    assert_bad_name(
        sign_up(&running, "\u{430}lice").await,
        "mixes scripts: Cyrillic and Latin",
    );
    // A capital I for the l: one script, the same skeleton.
    assert_bad_name(
        sign_up(&running, "aIice").await,
        "the name looks like the existing name alice",
    );
    assert_bad_name(
        sign_up(&running, "a1ice").await,
        "looks like the existing name alice",
    );
    // Hangul fillers, alone or among letters.
    assert_bad_name(
        sign_up(&running, "\u{3164}").await,
        "contains an invisible character U+3164",
    );
    assert_bad_name(
        sign_up(&running, "ali\u{FFA0}ce").await,
        "contains an invisible character U+FFA0",
    );
    assert_bad_name(
        sign_up(&running, "ali\u{200B}ce").await,
        "contains an invisible character U+200B",
    );
    assert_bad_name(sign_up(&running, "   ").await, "1 to 32 characters");
    // The same name in another case is taken, as before.
    let (status, body) = sign_up(&running, "ALICE").await;
    assert_eq!((status, body["reason"].as_str()), (409, Some("name_taken")));

    // "m" looks like "rn"; "O" like "0".
    assert_eq!(sign_up(&running, "rn").await.0, 201);
    assert_bad_name(sign_up(&running, "m").await, "the existing name rn");
    assert_eq!(sign_up(&running, "0").await.0, 201);
    assert_bad_name(sign_up(&running, "O").await, "the existing name 0");
    // A whole-script look-alike: Cyrillic "асе" of the Latin "ace".
    assert_eq!(sign_up(&running, "ace").await.0, 201);
    assert_bad_name(
        sign_up(&running, "\u{430}\u{441}\u{435}").await,
        "the existing name ace",
    );
    // Other names in other scripts are fine.
    for name in ["Дмитрий", "王小明", "やまだ太郎", "देवनागरी", "محمد"]
    {
        let (status, body) = sign_up(&running, name).await;
        assert_eq!(status, 201, "{name}: {body}");
        assert_eq!(body["user"]["name"], name);
    }
    running.stop().await.unwrap();
}

#[tokio::test]
async fn nfd_and_nfc_are_one_account() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (status, made) = sign_up(&running, "Jos\u{E9}").await;
    assert_eq!(status, 201, "{made}");
    // Decomposed: an "e" and a combining acute accent.
    let (status, logged) = post(
        &running,
        "/api/login",
        json!({ "name": "jose\u{301}", "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, 200, "{logged}");
    assert_eq!(logged["user"]["id"], made["user"]["id"]);
    assert_eq!(logged["user"]["name"], "Jos\u{E9}");
    // Signing up the decomposed form is the same name, taken; a decomposed sign-up is stored composed.
    let (status, body) = sign_up(&running, "JOSE\u{301}").await;
    assert_eq!((status, body["reason"].as_str()), (409, Some("name_taken")));
    let (status, body) = sign_up(&running, "Rene\u{301}e").await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["user"]["name"], "Ren\u{E9}e");
    let (status, body) = post(
        &running,
        "/api/login",
        json!({ "name": "Ren\u{E9}e", "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    running.stop().await.unwrap();
}

#[tokio::test]
async fn guests_may_not_take_or_imitate_an_account() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    assert_eq!(sign_up(&running, "alice").await.0, 201);
    let (status, body) = guest(&running, "Alice").await;
    assert_eq!((status, body["reason"].as_str()), (409, Some("name_taken")));
    assert_bad_name(
        guest(&running, "aIice").await,
        "looks like the existing name alice",
    );
    assert_bad_name(guest(&running, "\u{430}lice").await, "mixes scripts");
    assert_bad_name(
        guest(&running, "\u{1160}").await,
        "invisible character U+1160",
    );
    // Guests' names may repeat, and never keep an account from a name.
    assert_eq!(guest(&running, "bob").await.0, 201);
    assert_eq!(guest(&running, "bob").await.0, 201);
    assert_eq!(guest(&running, "b0b").await.0, 201);
    let (status, body) = sign_up(&running, "bob").await;
    assert_eq!(status, 201, "{body}");
    running.stop().await.unwrap();
}

#[tokio::test]
async fn earlier_accounts_get_their_skeleton() {
    let dir = tempfile::tempdir().unwrap();
    // Accounts made without a skeleton, as before the migration (or by a tool).
    let store = SqliteStore::open(dir.path()).await.unwrap();
    store
        .create_user("ace", Some("ace"), Some("$argon2id$fake"))
        .await
        .unwrap();
    store
        .create_user("rn", Some("rn"), Some("$argon2id$fake"))
        .await
        .unwrap();
    store.create_user("bill", None, None).await.unwrap();
    store.close().await.unwrap();

    let running = server(dir.path()).await;
    assert_bad_name(
        sign_up(&running, "\u{430}\u{441}\u{435}").await,
        "the existing name ace",
    );
    assert_bad_name(guest(&running, "m").await, "the existing name rn");
    // A guest's name blocks nobody.
    assert_eq!(sign_up(&running, "bi1l").await.0, 201);
    running.stop().await.unwrap();
}
