//! Issue 42's accounts: sessions that lapse when unused, a password changed (the other sessions ending), an
//! account's sessions listed and ended, and an operator's one-time password reset.

use super::*;

const DAY_MS: u64 = 86_400_000;

/// The signed-in user's name of a client, or `None` when its session is refused.
async fn who(c: &Client) -> Option<String> {
    let (status, body) = c.get("/api/session").await.unwrap();
    assert_eq!(status, 200, "{body}");
    body["user"]["name"].as_str().map(str::to_owned)
}

/// Whether a client's session is refused within 10 s: at once on its own node, and on another node of a site
/// once NATS has told it (an ended session is forgotten there when the signal arrives).
async fn signed_out(c: &Client) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        if who(c).await.is_none() {
            return true;
        }
        if std::time::Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// A second browser signed in to account `name` (password "a long password").
async fn logged_in(running: &Site, name: &str, password: &str) -> Client {
    let mut c = anonymous(running);
    c.log_in(name, password).await.unwrap();
    c
}

/// The token of a sign-in's cookie.
fn cookie_token(c: &Client) -> String {
    let set = c.session().unwrap().set_cookie.clone().unwrap();
    let value = set.split(';').next().unwrap();
    value.split_once('=').unwrap().1.to_owned()
}

/// A session unused for 14 days is refused, and gone from the list of the account's sessions; one used within
/// 14 days lives on. (Sessions used to last 30 days whatever their use.)
#[tokio::test]
async fn a_session_unused_for_fourteen_days_lapses() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let (ann, _) = account(&running, "ann").await;
    let idle = logged_in(&running, "ann", "a long password").await;

    // Used on day 10 and day 20: still in.
    time.advance(10 * DAY_MS);
    assert_eq!(who(&ann).await.as_deref(), Some("ann"));
    time.advance(10 * DAY_MS);
    assert_eq!(who(&ann).await.as_deref(), Some("ann"));
    // The idle one, unused for 20 days, is refused, and it stays refused.
    assert_eq!(who(&idle).await, None);
    assert_eq!(who(&idle).await, None);
    let (status, listed) = ann.get("/api/account/sessions").await.unwrap();
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["sessions"].as_array().unwrap().len(), 1, "{listed}");

    // Exactly 14 days without use is still in; a second more is not.
    let fresh = logged_in(&running, "ann", "a long password").await;
    time.advance(14 * DAY_MS);
    assert_eq!(who(&fresh).await.as_deref(), Some("ann"));
    time.advance(14 * DAY_MS + 1_000);
    assert_eq!(who(&fresh).await, None);

    running.stop().await.unwrap();
}

/// Changing the password needs the current one and a new one of sign-up's form; it ends the account's other
/// sessions (and says how many) and keeps the one that changed it. The old password no longer signs in.
#[tokio::test]
async fn changing_the_password_ends_the_other_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (ann, _) = account(&running, "ann").await;
    let other = logged_in(&running, "ann", "a long password").await;
    let change = |current: &str, new: &str| json!({"current": current, "new": new});

    let (status, body) = ann
        .post(
            "/api/account/password",
            change("a wrong password", "a new password"),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (403, Some("wrong_password")),
        "{body}"
    );
    let (status, body) = ann
        .post("/api/account/password", change("a long password", "short"))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_password")),
        "{body}"
    );
    // Without the CSRF token: refused.
    let mut forged = ann.clone();
    forged.set_csrf(None);
    let (status, body) = forged
        .post(
            "/api/account/password",
            change("a long password", "a new password"),
        )
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (403, Some("csrf")));
    // Nothing changed so far.
    assert_eq!(who(&other).await.as_deref(), Some("ann"));

    let (status, body) = ann
        .post(
            "/api/account/password",
            change("a long password", "a new password"),
        )
        .await
        .unwrap();
    assert_eq!((status, body["ended"].as_u64()), (200, Some(1)), "{body}");
    assert_eq!(who(&ann).await.as_deref(), Some("ann"));
    assert!(signed_out(&other).await, "the other session still works");

    let mut again = anonymous(&running);
    let (status, body) = again
        .post(
            "/api/login",
            json!({"name": "ann", "password": "a long password"}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (401, Some("wrong_login"))
    );
    again.log_in("ann", "a new password").await.unwrap();

    // A guest has no password to change.
    let g = guest(&running, "gus").await;
    let (status, body) = g
        .post(
            "/api/account/password",
            change("a long password", "a new password"),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (403, Some("not_an_account")),
        "{body}"
    );
    running.stop().await.unwrap();
}

/// The account page lists the user's sessions (made, last used, address; the asking one marked current; no
/// token shown) and ends one of them, or all the others; nobody ends another user's session.
#[tokio::test]
async fn sessions_are_listed_and_ended() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (ann, _) = account(&running, "ann").await;
    let second = logged_in(&running, "ann", "a long password").await;
    let third = logged_in(&running, "ann", "a long password").await;
    let (bob, _) = account(&running, "bob").await;

    let (status, listed) = ann.get("/api/account/sessions").await.unwrap();
    assert_eq!(status, 200, "{listed}");
    let sessions = listed["sessions"].as_array().unwrap().clone();
    assert_eq!(sessions.len(), 3, "{listed}");
    assert_eq!(
        sessions.iter().filter(|s| s["current"] == true).count(),
        1,
        "{listed}"
    );
    for s in &sessions {
        let id = s["id"].as_str().unwrap();
        assert!(
            id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit()),
            "{s}"
        );
        assert!(s["created"].as_i64().unwrap() > 0, "{s}");
        assert!(s["last_used"].as_i64().unwrap() >= s["created"].as_i64().unwrap());
        assert_eq!(s["address"], "127.0.0.1", "{s}");
    }
    let text = listed.to_string();
    for c in [&ann, &second, &third] {
        assert!(!text.contains(&cookie_token(c)), "a token is shown");
    }
    // Bob sees his own only, and cannot end Ann's.
    let (_, bobs) = bob.get("/api/account/sessions").await.unwrap();
    assert_eq!(bobs["sessions"].as_array().unwrap().len(), 1, "{bobs}");
    let not_current = sessions
        .iter()
        .filter(|s| s["current"] == false)
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect::<Vec<_>>();
    let (status, body) = bob
        .post(
            &format!("/api/account/sessions/{}/end", not_current[0]),
            json!({}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (404, Some("no_session")),
        "{body}"
    );
    assert_eq!(who(&second).await.as_deref(), Some("ann"));
    assert_eq!(who(&third).await.as_deref(), Some("ann"));

    // Ann ends one of her others by its id: exactly one of the two is out.
    let (status, body) = ann
        .post(
            &format!("/api/account/sessions/{}/end", not_current[0]),
            json!({}),
        )
        .await
        .unwrap();
    assert_eq!((status, body["ended"].as_u64()), (200, Some(1)), "{body}");
    let (_, listed) = ann.get("/api/account/sessions").await.unwrap();
    assert_eq!(listed["sessions"].as_array().unwrap().len(), 2, "{listed}");
    let (status, body) = ann
        .post(
            &format!("/api/account/sessions/{}/end", not_current[0]),
            json!({}),
        )
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (404, Some("no_session")));

    // Then all the others: the one left ends, Ann's stays.
    let (status, body) = ann
        .post("/api/account/sessions/end-others", json!({}))
        .await
        .unwrap();
    assert_eq!((status, body["ended"].as_u64()), (200, Some(1)), "{body}");
    assert!(signed_out(&second).await);
    assert!(signed_out(&third).await);
    assert_eq!(who(&ann).await.as_deref(), Some("ann"));
    assert_eq!(who(&bob).await.as_deref(), Some("bob"));
    running.stop().await.unwrap();
}

/// An operator's reset link (`tesuji reset-password`) sets a new password once, within a day, and ends every
/// session of the account; a used, expired or made-up token is refused.
#[tokio::test]
async fn a_reset_link_sets_a_new_password_once_within_a_day() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let (ann, _) = account(&running, "Ann").await;
    let other = logged_in(&running, "ann", "a long password").await;
    let store = tesuji_server::store::open(&crate::backend().database(dir.path()))
        .await
        .unwrap();
    let now = || i64::try_from(time.now_ms() / 1000).unwrap();
    let issue = |name: &'static str| {
        let store = std::sync::Arc::clone(&store);
        async move { tesuji_server::auth::issue_reset(&*store, name, now()).await }
    };
    assert!(matches!(
        issue("nobody").await,
        Err(tesuji_server::auth::ResetError::NoAccount(_))
    ));
    let token = issue("ANN").await.unwrap();
    let c = anonymous(&running);
    let reset = |token: &str, password: &str| json!({"token": token, "password": password});

    let (status, body) = c
        .post("/api/account/reset", reset("0123", "a reset password"))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (400, Some("bad_reset")));
    let (status, body) = c
        .post("/api/account/reset", reset(&token, "short"))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_password"))
    );
    // Nothing used up so far: the token still works, once.
    let (status, body) = c
        .post("/api/account/reset", reset(&token, "a reset password"))
        .await
        .unwrap();
    assert_eq!((status, body["ended"].as_u64()), (200, Some(2)), "{body}");
    assert!(signed_out(&ann).await);
    assert!(signed_out(&other).await);
    let (status, body) = c
        .post("/api/account/reset", reset(&token, "another password"))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (400, Some("bad_reset")));
    logged_in(&running, "ann", "a reset password").await;

    // A link unused for a day is refused.
    let late = issue("ann").await.unwrap();
    time.advance(DAY_MS + 1_000);
    let (status, body) = c
        .post("/api/account/reset", reset(&late, "a late password"))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (400, Some("bad_reset")));
    logged_in(&running, "ann", "a reset password").await;
    store.close().await.unwrap();
    running.stop().await.unwrap();
}

/// Deleting an account needs its password and no game in play (the refusal names them); its open tables and
/// seeks are cancelled, its finished games and chat stay under "deleted player", its sessions end, and its name
/// is free again.
#[tokio::test]
async fn a_deleted_account_leaves_its_games_under_a_neutral_name() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (ann, ann_id) = account(&running, "Ann").await;
    let other = logged_in(&running, "ann", "a long password").await;
    let (bob, _) = account(&running, "bob").await;

    // A game in play, with a word said in it.
    let id = table(&ann, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    let (status, state) = bob
        .post(&format!("/api/games/{id}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    let (status, said) = ann
        .post(
            &format!("/api/games/{id}/chat"),
            json!({"text": "good luck"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 201, "{said}");
    let delete = |password: &str| json!({ "password": password });

    let (status, body) = ann
        .post("/api/account/delete", delete("a wrong password"))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (403, Some("wrong_password")),
        "{body}"
    );
    let (status, body) = ann
        .post("/api/account/delete", delete("a long password"))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("games_in_play")),
        "{body}"
    );
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains(&format!("game {id}")),
        "{body}"
    );
    assert_eq!(resign(&ann, id).await, 200);

    // An open table and a waiting seek, which the deletion cancels.
    let open = table(&ann, "chinese:size=9", "white", "anyone").await["id"]
        .as_i64()
        .unwrap();
    let (status, sought) = seek(&ann, json!({"size": 13, "speed": "rapid"})).await;
    assert_eq!(status, 201, "{sought}");

    let (status, body) = ann
        .post("/api/account/delete", delete("a long password"))
        .await
        .unwrap();
    assert_eq!(
        (status, body["deleted"].as_i64()),
        (200, Some(ann_id)),
        "{body}"
    );
    assert_eq!(who(&ann).await, None);
    assert!(signed_out(&other).await);
    assert_eq!(bob.game(open).await.unwrap().0, 404);
    let (shown, _) = seek_lists(&bob).await;
    assert!(shown.is_empty(), "{shown:?}");

    // The finished game and its chat stay, under the neutral name.
    let (status, state) = bob.game(id).await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(
        state["players"]["black"]["name"], "deleted player",
        "{state}"
    );
    let (status, chat) = bob.get(&format!("/api/games/{id}/chat")).await.unwrap();
    assert_eq!(status, 200, "{chat}");
    let said = chat.to_string();
    assert!(
        said.contains("good luck") && said.contains("deleted player") && !said.contains("Ann"),
        "{chat}"
    );
    let (status, page) = bob
        .get(&format!("/api/users/{ann_id}/games"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{page}");
    assert!(!page.to_string().contains("Ann"), "{page}");

    // The password signs nobody in; the name and its look-alikes are free.
    let mut c = anonymous(&running);
    let (status, _) = c
        .post(
            "/api/login",
            json!({"name": "Ann", "password": "a long password"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 401);
    let new = c.sign_up("ANN", "another password").await.unwrap();
    assert_ne!(new.user.id, ann_id);
    running.stop().await.unwrap();
}
