//! Issue 42's attacks on one server, each a test: aborting an automatch game, a game with chat and a table with
//! chat before any move; take-back requests asked and declined in a loop; seeks without end; chat of direction
//! overrides, invisible text and blank lines; look-alike account names; guessing one account's password from
//! many addresses.

use super::*;

/// A game made by automatch (two seekers' compatible seeks) can be aborted before any move, by either player,
/// as any other; so can a game or a table whose players talked before the first move. Each was refused with a
/// 500 (`storage failed`): the taken seek and the chat messages referred to the game the abort deleted.
#[tokio::test]
async fn an_automatch_game_or_one_with_chat_is_aborted_before_any_move() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let body = json!({"size": 9, "speed": "rapid"});
    let (status, waiting) = seek(&ann, body.clone()).await;
    assert_eq!(status, 201, "{waiting}");
    let (status, matched) = seek(&bob, body).await;
    assert_eq!(status, 200, "{matched}");
    let id = matched["game"]["id"].as_i64().unwrap();
    // Ann's page finds the game through her seek; then she aborts it.
    assert_eq!(seek_lists(&ann).await.1[0].1, json!(id));
    let (status, answer) = ann
        .post(&format!("/api/games/{id}/abort"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, answer["aborted"].as_i64()),
        (200, Some(id)),
        "{answer}"
    );
    assert_eq!(bob.game(id).await.unwrap().0, 404);
    // Her seek no longer points at a game that is gone.
    let (_, mine) = seek_lists(&ann).await;
    assert!(mine.iter().all(|(_, game)| game != &json!(id)), "{mine:?}");

    // A game whose players said hello before the first move.
    let (id, black, white) = seated(&running, "chinese:size=9").await;
    let chat = format!("/api/games/{id}/chat");
    let (status, said) = black.post(&chat, json!({"text": "hello"})).await.unwrap();
    assert_eq!(status, 201, "{said}");
    let (status, answer) = white
        .post(&format!("/api/games/{id}/abort"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, answer["aborted"].as_i64()),
        (200, Some(id)),
        "{answer}"
    );
    assert_eq!(black.game(id).await.unwrap().0, 404);

    // A table whose creator said something while waiting is cancelled the same way.
    let open = table(&black, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    let (status, said) = black
        .post(
            &format!("/api/games/{open}/chat"),
            json!({"text": "anyone?"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 201, "{said}");
    let (status, answer) = black
        .post(&format!("/api/games/{open}/cancel"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, answer["cancelled"].as_i64()),
        (200, Some(open)),
        "{answer}"
    );
    assert_eq!(black.game(open).await.unwrap().0, 404);

    // All three stay gone after a restart, and the server starts.
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let c = anonymous(&running);
    assert_eq!(c.get(&format!("/api/games/{open}")).await.unwrap().0, 404);
    running.stop().await.unwrap();
}

/// A game whose only move was taken back is no longer unplayed: it cannot be aborted (its actions are kept),
/// so it can be claimed when the opponent stays away, as any game with a move. The claim was refused with
/// `no_moves` ("abort the game instead") while the abort was refused with `moved`: neither way out.
#[tokio::test]
async fn a_game_whose_first_move_was_taken_back_is_claimed_not_aborted() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "fischer:10m+10s").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    assert_eq!(undo_step(&black, id, "undo").await.0, 200);
    let (status, state) = undo_step(&white, id, "undo/accept").await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["last_move"], Value::Null, "{state}");
    time.advance(61_000);
    let (status, body) = black
        .post(&format!("/api/games/{id}/abort"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, &body["reason"]), (409, &json!("moved")), "{body}");
    let (status, state) = claim(&black, id).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["result"], "B+F", "{state}");
    running.stop().await.unwrap();
}

/// Take-back requests asked and declined in a loop (the attack stored 50 actions in a quarter of a second): one
/// request waits at a time, and after a decline its requester may ask again about that move 30 s later (on the
/// server's time, here a manual one), or about a newer move of theirs at once.
#[tokio::test]
async fn take_back_requests_wait_one_at_a_time_and_pause_after_a_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let id = table(&black, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(white.join(id, None).await.unwrap().0, 200);
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    assert_eq!(undo_step(&black, id, "undo").await.0, 200);
    let (status, body) = undo_step(&black, id, "undo").await;
    assert_eq!(
        (status, &body["reason"]),
        (409, &json!("no_undo")),
        "{body}"
    );
    assert!(
        body["error"].as_str().unwrap().contains("waiting"),
        "{body}"
    );
    let (status, declined) = undo_step(&white, id, "undo/decline").await;
    assert_eq!(status, 200, "{declined}");
    assert_eq!(declined["undo_again_in_ms"], 30_000, "{declined}");
    // The attack: ask, decline, ask, decline... as fast as the server answers.
    for _ in 0..25 {
        let (status, body) = undo_step(&black, id, "undo").await;
        assert_eq!(
            (status, &body["reason"]),
            (409, &json!("no_undo")),
            "{body}"
        );
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .contains("ask again in 30 s"),
            "the refusal says when asking is possible again: {body}"
        );
        let (status, body) = undo_step(&white, id, "undo/decline").await;
        assert_eq!(
            (status, &body["reason"]),
            (409, &json!("no_undo")),
            "{body}"
        );
    }
    let (_, after) = black.game(id).await.unwrap();
    assert_eq!(
        after["move_count"], 3,
        "E5, the request, the refusal: {after}"
    );
    assert_eq!(after["undo_asked"], Value::Null);
    // The pause holds across a restart (it runs from the refusal's stored time) and ends 30 s after it.
    running.stop().await.unwrap();
    let running = server_at(dir.path(), &time).await;
    let black = black.at(&base(&running)).unwrap();
    let white = white.at(&base(&running)).unwrap();
    time.advance(29_000);
    let (status, body) = undo_step(&black, id, "undo").await;
    assert_eq!(
        (status, &body["reason"]),
        (409, &json!("no_undo")),
        "{body}"
    );
    assert!(body["error"].as_str().unwrap().contains("in 1 s"), "{body}");
    assert_eq!(black.game(id).await.unwrap().1["undo_again_in_ms"], 1_000);
    time.advance(1_000);
    let (status, asked) = undo_step(&black, id, "undo").await;
    assert_eq!(status, 200, "{asked}");
    assert_eq!(asked["undo_again_in_ms"], Value::Null, "{asked}");
    assert_eq!(undo_step(&white, id, "undo/decline").await.0, 200);
    // A newer move may be asked about at once; the refusal only holds back the move it refused.
    assert_eq!(white.play(id, "C3").await.unwrap().0, 200);
    assert_eq!(black.play(id, "G7").await.unwrap().0, 200);
    assert_eq!(undo_step(&black, id, "undo").await.0, 200);
    assert_eq!(undo_step(&white, id, "undo/accept").await.0, 200);
    running.stop().await.unwrap();
}

/// One user held 39 seeks at once (the lobby grew to 4,300 px): three may wait at once; a fourth is refused
/// with its own reason, saying the limit, until one is withdrawn or matched. A seek of a kind already waiting
/// replaces it, at the limit too, and a seek that finds its match at once is no waiting one.
#[tokio::test]
async fn a_user_has_at_most_three_seeks_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let kinds = [
        json!({"size": 9, "speed": "rapid"}),
        json!({"size": 13, "speed": "rapid"}),
        json!({"size": 19, "speed": "rapid"}),
        json!({"size": 9, "speed": "blitz"}),
    ];
    let mut ids = Vec::new();
    for body in &kinds[..3] {
        let (status, answer) = seek(&ann, body.clone()).await;
        assert_eq!(status, 201, "{answer}");
        ids.push(answer["seek"]["id"].as_i64().unwrap());
    }
    for _ in 0..5 {
        let (status, answer) = seek(&ann, kinds[3].clone()).await;
        assert_eq!(
            (status, &answer["reason"]),
            (429, &json!("too_many_seeks")),
            "{answer}"
        );
        assert!(
            answer["error"].as_str().unwrap().contains("3 seeks"),
            "{answer}"
        );
    }
    assert_eq!(seek_lists(&bob).await.0, ids);
    // The same kind again replaces its seek: still three.
    let (status, answer) = seek(
        &ann,
        json!({"size": 9, "speed": "rapid", "min_rank": "20k"}),
    )
    .await;
    assert_eq!(status, 201, "{answer}");
    let replaced = answer["seek"]["id"].as_i64().unwrap();
    assert_eq!(seek_lists(&bob).await.0, [ids[1], ids[2], replaced]);
    // Bob's seek that matches one of hers makes a game; then she may seek a fourth kind.
    let (status, matched) = seek(&bob, kinds[1].clone()).await;
    assert_eq!(status, 200, "{matched}");
    let (status, answer) = seek(&ann, kinds[3].clone()).await;
    assert_eq!(status, 201, "{answer}");
    // At the limit again, a withdrawn seek makes room.
    let (status, answer) = seek(&ann, json!({"size": 13, "speed": "classical"})).await;
    assert_eq!(
        (status, &answer["reason"]),
        (429, &json!("too_many_seeks")),
        "{answer}"
    );
    let cancel = format!("/api/seeks/{}/cancel", ids[2]);
    assert_eq!(ann.post(&cancel, json!({})).await.unwrap().0, 200);
    let (status, answer) = seek(&ann, json!({"size": 13, "speed": "classical"})).await;
    assert_eq!(status, 201, "{answer}");
    // Another user is counted apart.
    let (status, answer) = seek(&bob, json!({"size": 19, "speed": "blitz"})).await;
    assert_eq!(status, 201, "{answer}");
    running.stop().await.unwrap();
}

/// Chat took right-to-left overrides, invisible-only messages and 200 newlines. Direction controls are refused
/// (naming the character), a text with nothing visible is refused, runs of blank lines collapse to one and a
/// message holds at most 20 lines; what is refused is not stored.
#[tokio::test]
async fn chat_refuses_direction_controls_invisible_text_and_walls_of_lines() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, _white) = seated(&running, "chinese:size=9").await;
    let chat = format!("/api/games/{id}/chat");
    let say = |text: String| {
        let black = &black;
        let chat = &chat;
        async move { black.post(chat, json!({ "text": text })).await.unwrap() }
    };
    for (text, says) in [
        ("gg \u{202E}dlrow olleh".to_owned(), "U+202E"),
        ("a\u{2066}b\u{2069}".to_owned(), "U+2066"),
        ("left\u{200E}mark".to_owned(), "U+200E"),
        ("arabic\u{061C}mark".to_owned(), "U+061C"),
        ("\u{200B}\u{200B}\u{200B}".to_owned(), "visible"),
        ("\u{2060}\u{FEFF} \u{3164}\n\u{200D}".to_owned(), "visible"),
        ("\u{00A0}\u{2003}\u{3000}".to_owned(), "visible"),
        (format!("x{}", "\ny".repeat(30)), "20 lines"),
    ] {
        let (status, body) = say(text.clone()).await;
        assert_eq!(
            (status, &body["reason"]),
            (400, &json!("bad_request")),
            "{text:?}: {body}"
        );
        assert!(
            body["error"].as_str().unwrap().contains(says),
            "{text:?}: {body}"
        );
    }
    // 200 newlines between two words: one blank line is kept.
    let (status, said) = say(format!("top{}bottom", "\n".repeat(200))).await;
    assert_eq!(status, 201, "{said}");
    assert_eq!(said["text"], "top\n\nbottom");
    let (status, said) = say("a\n \n\u{3000}\u{200B}\n\nb  \nc".to_owned()).await;
    assert_eq!(status, 201, "{said}");
    assert_eq!(said["text"], "a\n\nb\nc");
    // Right-to-left text itself, and a joiner inside an emoji, are welcome.
    let (status, said) = say("שלום עולם 👨\u{200D}👩\u{200D}👧".to_owned()).await;
    assert_eq!(status, 201, "{said}");
    assert_eq!(
        chat_texts(&black, id).await,
        [
            "top\n\nbottom",
            "a\n\nb\nc",
            "שלום עולם 👨\u{200D}👩\u{200D}👧"
        ]
    );
    running.stop().await.unwrap();
}

/// Names like `B0b`, `Bob_` and `B.ob` passed beside `Bob`. Names are compared folded: the confusable skeleton,
/// in one case, digits read as the letters they look like (0 o, 1 l, 3 e, 5 s...), `i` as `l`, and without `_`,
/// `-` and `.`. Each look-alike is refused with the one sentence that names the account it looks like, for a
/// guest too; a name that only starts the same is fine.
#[tokio::test]
async fn look_alike_names_are_refused_beside_an_account() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    account(&running, "Bob").await;
    for name in ["B0b", "Bob_", "B.ob", "b-o-b", "BOB.", "8ob", "_B_0_B_"] {
        let (status, body) = anonymous(&running)
            .post(
                "/api/signup",
                json!({"name": name, "password": "correct horse"}),
            )
            .await
            .unwrap();
        assert_eq!(
            (status, &body["reason"]),
            (400, &json!("bad_name")),
            "{name}: {body}"
        );
        assert_eq!(
            body["error"], "the name looks like the existing name Bob",
            "{name}: {body}"
        );
        let (status, body) = anonymous(&running)
            .post("/api/guest", json!({ "name": name }))
            .await
            .unwrap();
        assert_eq!(
            (status, &body["reason"]),
            (400, &json!("bad_name")),
            "{name}: {body}"
        );
    }
    account(&running, "Bobby").await;
    account(&running, "B0bcat").await;
    // The older look-alike rules hold: a capital I for an l, "rn" for "m".
    account(&running, "alice").await;
    let (status, body) = anonymous(&running)
        .post(
            "/api/signup",
            json!({"name": "A1ice", "password": "correct horse"}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, &body["reason"]),
        (400, &json!("bad_name")),
        "{body}"
    );
    running.stop().await.unwrap();
}

/// Guessing one account's password from many addresses: each address had its own budget, the account none.
/// Now after five failed log-ins to an account (from anywhere) every further guess from an address the account
/// has not signed in from waits, the wait doubling with each failure; the answer is the same for a right
/// password then, so a guess is never tested early. The owner, from an address they signed in from before, is
/// never held back, and anyone may try again when the wait is over.
#[tokio::test]
async fn guessing_one_accounts_password_from_many_addresses_is_slowed_down() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = start(ServerConfig {
        time: TimeSource::manual(&time),
        limits: Limits {
            behind_proxy: true,
            ..Limits::default()
        },
        ..config(dir.path())
    })
    .await
    .unwrap();
    let c = anonymous(&running);
    let attempt = |name: &'static str, password: &'static str, from: String| {
        let request = c
            .request(Method::POST, "/api/login")
            .header("x-forwarded-for", from)
            .json(&json!({"name": name, "password": password}));
        async move {
            let r = request.send().await.unwrap();
            let retry = r
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().parse::<u64>().unwrap());
            let status = r.status().as_u16();
            let body: Value = r.json().await.unwrap();
            (
                status,
                body["reason"].as_str().unwrap_or("").to_owned(),
                retry,
            )
        }
    };
    // The owner signs up from home.
    let r = c
        .request(Method::POST, "/api/signup")
        .header("x-forwarded-for", "198.51.100.7")
        .json(&json!({"name": "victim", "password": "correct horse"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let home = || "198.51.100.7".to_owned();
    let far = |k: u32| format!("203.0.113.{k}");
    // Five guesses from five addresses are tested (and wrong).
    for k in 1..=5 {
        let (status, reason, _) = attempt("victim", "guess", far(k)).await;
        assert_eq!((status, reason.as_str()), (401, "wrong_login"), "guess {k}");
    }
    // Then every address waits: 1 s after the fifth failure; the right password too, from a new address.
    for k in 6..30 {
        let (status, reason, retry) = attempt("victim", "guess", far(k)).await;
        assert_eq!(
            (status, reason.as_str(), retry),
            (429, "rate_limited", Some(1)),
            "guess {k}"
        );
    }
    let (status, reason, _) = attempt("victim", "correct horse", far(30)).await;
    assert_eq!((status, reason.as_str()), (429, "rate_limited"));
    // The owner at home signs in at once.
    let (status, reason, _) = attempt("victim", "correct horse", home()).await;
    assert_eq!(
        (status, reason.as_str()),
        (200, ""),
        "the owner is never held back"
    );
    // The wait over, one more guess is tested; the next waits twice as long.
    time.advance(1_000);
    assert_eq!(attempt("victim", "guess", far(31)).await.0, 401);
    let (status, _, retry) = attempt("victim", "guess", far(32)).await;
    assert_eq!((status, retry), (429, Some(2)));
    time.advance(2_000);
    // Another account is not held back by this one's attack; an unknown name waits as an account would.
    let (status, reason, _) = attempt("victim", "correct horse", far(33)).await;
    assert_eq!(
        (status, reason.as_str()),
        (200, ""),
        "the wait over, the owner anywhere"
    );
    for k in 40..45 {
        assert_eq!(attempt("nobody", "guess", far(k)).await.0, 401);
    }
    assert_eq!(attempt("nobody", "guess", far(45)).await.0, 429);
    running.stop().await.unwrap();
}
