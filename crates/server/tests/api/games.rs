//! Tables and games over HTTP and the socket: creating, playing, refusing, resigning, downloading; bad
//! requests; restarts; concurrent moves; a game that no longer replays.

use super::*;

#[tokio::test]
async fn create_play_refuse_resign_and_download() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "Japanese : size = 9").await;
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    let canonical = state["rules"].as_str().unwrap().to_owned();
    assert_eq!(canonical.parse::<Rules>().unwrap().to_string(), canonical);
    assert_eq!(state["players"]["black"]["name"], "black");
    assert_eq!(state["players"]["white"]["guest"], true);
    // The join was an event of its own.
    assert_eq!(state["version"], 1);

    for (k, (color, mv)) in KO_SETUP.iter().enumerate() {
        let (status, state) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{state}");
        assert_eq!(state["version"], k as u64 + 2);
    }
    let (status, state) = black.play(id, "E4").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["captures"]["black"], 1);
    assert_eq!(state["to_move"], "white");
    assert_eq!(state["last_move"], "E4");
    // Row 4 from the bottom of 9 is the sixth row from the top; E is the fifth column.
    assert_eq!(&state["board"][5].as_str().unwrap()[..6], "..X.XO");

    // Refusals name their reason, and change nothing.
    for (player, mv, reason) in [
        (&white, "D4", "ko"),
        (&white, "C4", "occupied"),
        (&black, "G7", "not_your_turn"),
    ] {
        let (status, body) = player.play(id, mv).await.unwrap();
        assert_eq!(status, 422, "{body}");
        assert_eq!(body["reason"], reason, "{body}");
        assert!(body["error"].as_str().unwrap().len() > 3);
    }
    // A spectator, a stranger without a session, and a player claiming the other colour may not act.
    let spectator = guest(&running, "watcher").await;
    let (status, body) = spectator.play(id, "G7").await.unwrap();
    assert_eq!((status, body["reason"].as_str()), (403, Some("not_seated")));
    let stranger = anonymous(&running);
    let (status, body) = stranger.play(id, "G7").await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (401, Some("not_signed_in"))
    );
    let (status, body) = black
        .post(
            &format!("/api/games/{id}/moves"),
            json!({"color": "white", "move": "G7"}),
        )
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (403, Some("not_seated")));
    let (status, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(state["version"], 10);
    assert_eq!(state["moves"].as_array().unwrap().len(), 9);

    // A stale version is refused.
    let (status, body) = white
        .post(
            &format!("/api/games/{id}/moves"),
            json!({"move": "pass", "version": 3}),
        )
        .await
        .unwrap();
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["reason"], "stale_version");

    let (status, state) = white
        .post(
            &format!("/api/games/{id}/moves"),
            json!({"move": "pass", "version": 10}),
        )
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["last_move"], Value::Null);
    let (status, state) = black
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["phase"], "over");
    assert_eq!(state["status"], "over");
    assert_eq!(state["result"], "W+R");
    let (status, body) = white.play(id, "G7").await.unwrap();
    assert_eq!(status, 422);
    assert_eq!(body["reason"], "game_over");

    // The SGF replays to the same position as the same moves played here, and names the players.
    let r = black
        .request(Method::GET, &format!("/api/games/{id}/sgf"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(
        r.headers()[reqwest::header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("application/x-go-sgf")
    );
    // Named after the players and the day: black-white-YYYY-MM-DD.sgf.
    let disposition = r.headers()[reqwest::header::CONTENT_DISPOSITION]
        .to_str()
        .unwrap()
        .to_owned();
    let date = disposition
        .split("filename=\"black-white-")
        .nth(1)
        .and_then(|rest| rest.split(".sgf\"").next())
        .unwrap_or_else(|| panic!("{disposition}"))
        .to_owned();
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    let parts: Vec<&str> = date.split('-').collect();
    assert!(
        parts.len() == 3 && parts.iter().all(|p| digits(p)) && parts[0].len() == 4,
        "{disposition}"
    );
    let bytes = r.bytes().await.unwrap();
    let read = tesuji_sgf::read(&bytes).unwrap();
    let tree = &read.collection.trees[0];
    let rules = tesuji_sgf::record::record_rules(tree, None, Rules::default()).unwrap();
    let replay = tesuji_sgf::record::replay(tree, rules).unwrap();

    let mut expected = Game::new(canonical.parse().unwrap()).unwrap();
    let size = expected.rules().size;
    for (color, mv) in KO_SETUP.iter().copied().chain([("black", "E4")]) {
        let color = if color == "black" {
            Color::Black
        } else {
            Color::White
        };
        let p = Point::from_gtp(mv, size).unwrap();
        expected.play(color, Move::Play(p)).unwrap();
    }
    expected.play(Color::White, Move::Pass).unwrap();
    assert_eq!(replay.game.grid(), expected.grid());
    assert_eq!(replay.turns, 10);
    assert_eq!(tree.root().value("RE"), Some("W+R"));
    // Guests by their names, said to be guests in GC; the day the game was made in DT, as in the file name.
    assert_eq!(tree.root().value("PB"), Some("black"));
    assert_eq!(tree.root().value("PW"), Some("white"));
    assert_eq!(
        tree.root()
            .get("GC")
            .and_then(|p| p.text_value())
            .as_deref(),
        Some("Black and White played as guests.")
    );
    assert_eq!(tree.root().value("DT"), Some(date.as_str()));
    assert_eq!(tree.root().value("PC"), Some("tesuji"));

    // The replay shows the board after every turn.
    let (status, view) = spectator
        .get(&format!("/api/games/{id}/replay"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["moves"].as_array().unwrap().len(), 10);
    let boards = boards_of(&view);
    assert_eq!(boards.len(), 11);
    assert_eq!(json!(boards[10]), state["board"]);
    assert_eq!(view["info"]["result"], "W+R");

    // The same file uploaded replays the same way.
    let (status, uploaded) = spectator
        .send(
            spectator
                .request(Method::POST, "/api/replay")
                .body(bytes.to_vec()),
        )
        .await
        .unwrap();
    assert_eq!(status, 200);
    for part in ["start", "moves", "colors", "removed"] {
        assert_eq!(uploaded[part], view[part], "{part}");
    }
    assert_eq!(uploaded["info"]["black"], "black");
    let (status, refused) = spectator
        .send(
            spectator
                .request(Method::POST, "/api/replay")
                .body("(;SZ[9];B[ee];W[ee])"),
        )
        .await
        .unwrap();
    assert_eq!(status, 422);
    assert_eq!(refused["reason"], "bad_sgf");

    // Records that real files hold: two moves of one colour in a row (the other's pass inserted), and play after
    // two passes under Tromp-Taylor (read as resumed play). Both replay, and say where.
    for (text, moves, notes) in [
        (
            "(;SZ[9];B[ee];B[cc];W[gg])",
            json!(["E5", "pass", "C7", "G3"]),
            json!([{"kind": "pass_inserted", "move": 2, "node": 2}]),
        ),
        (
            "(;SZ[5]RU[tromp-taylor];B[cc];W[];B[];W[bb])",
            json!(["C3", "pass", "pass", "B4"]),
            json!([{"kind": "play_after_end", "move": 4, "node": 4}]),
        ),
    ] {
        let (status, view) = spectator
            .send(spectator.request(Method::POST, "/api/replay").body(text))
            .await
            .unwrap();
        assert_eq!(status, 200, "{text}");
        assert_eq!(view["moves"], moves, "{text}");
        assert_eq!(view["notes"], notes, "{text}");
    }
    // Rules the record does not name, or that we do not know, are said to be so beside the ones counted under.
    for (text, note, ru) in [
        ("(;SZ[9]RU[Japanese];B[ee])", Value::Null, Value::Null),
        ("(;SZ[9];B[ee])", json!("absent"), Value::Null),
        (
            "(;SZ[9]RU[Klingon];B[ee])",
            json!("unknown"),
            json!("Klingon"),
        ),
    ] {
        let (status, view) = spectator
            .send(spectator.request(Method::POST, "/api/replay").body(text))
            .await
            .unwrap();
        assert_eq!(status, 200, "{text}");
        assert_eq!(view["info"]["rules_note"], note, "{text}: {view}");
        assert_eq!(view["info"]["record_rules"], ru, "{text}: {view}");
    }
    assert_eq!(
        view["info"]["rules_note"],
        Value::Null,
        "a stored game knows its rules"
    );

    running.stop().await.unwrap();
}

#[tokio::test]
async fn session_cookies_are_secure_when_asked() {
    for secure in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let running = start(ServerConfig {
            secure_cookies: secure,
            ..config(dir.path())
        })
        .await
        .expect("server starts");
        let mut c = anonymous(&running);
        let session = c.guest("ann").await.unwrap();
        let set = session.set_cookie.unwrap();
        assert_eq!(set.contains("; Secure"), secure, "{set}");
        let cookie = set.split(';').next().unwrap().to_owned();
        // Signing out clears the cookie with the same attributes, so the browser replaces it. (The cookie by
        // hand: whether a jar keeps a Secure cookie over plain HTTP is the jar's business.)
        let r = c
            .http()
            .post(c.url("/api/logout"))
            .header("cookie", &cookie)
            .header("x-csrf-token", &session.csrf)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        let cleared = r.headers()["set-cookie"].to_str().unwrap();
        assert!(cleared.contains("Max-Age=0"), "{cleared}");
        assert_eq!(cleared.contains("; Secure"), secure, "{cleared}");
        running.stop().await.unwrap();
    }
}

#[tokio::test]
async fn bad_requests_are_clear_json_errors() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, c, _white) = seated(&running, "tromp-taylor:size=9").await;

    let send = |path: String, body: Vec<u8>| {
        c.send(
            c.request(Method::POST, &path)
                .header("content-type", "application/json")
                .body(body),
        )
    };
    let (status, body) = send(format!("/api/games/{id}/moves"), b"{\"move\": ".to_vec())
        .await
        .unwrap();
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("malformed JSON"));
    let (status, body) = send(format!("/api/games/{id}/moves"), vec![b' '; 100_000])
        .await
        .unwrap();
    assert_eq!(status, 413, "{body}");
    let (status, body) = c
        .post(
            &format!("/api/games/{id}/moves"),
            json!({"color": "purple", "move": "D4"}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    let (status, body) = c.play(id, "Z99").await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    let (status, body) = c
        .post("/api/games", json!({"rules": "no-such-rules"}))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (400, Some("bad_rules")));
    assert!(body["error"].as_str().unwrap().contains("no-such-rules"));
    let (status, body) = c
        .post(
            "/api/games",
            json!({"rules": "chinese", "opponent": "martian"}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    let (status, _) = c.get("/api/games/12345").await.unwrap();
    assert_eq!(status, 404);
    let (status, _) = c.get("/api/games/x").await.unwrap();
    assert_eq!(status, 400);
    let (status, body) = c.get("/api/nothing-here").await.unwrap();
    assert_eq!((status, body["reason"].as_str()), (404, Some("not_found")));

    let (_, state) = c.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["version"], 1);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn websocket_sees_moves_with_increasing_versions() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let id = table(&black, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();

    let mut ws = anonymous(&running).game_socket(id).await.unwrap();
    let first = ws.next_json().await.unwrap();
    assert_eq!(first["type"], "state");
    assert_eq!(first["status"], "open");
    assert_eq!(first["version"], 0);
    // Before the second player sits down nobody may move.
    let (status, body) = black.play(id, "E5").await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (422, Some("not_started"))
    );

    assert_eq!(
        white
            .post(&format!("/api/games/{id}/join"), json!({}))
            .await
            .unwrap()
            .0,
        200
    );
    let joined = ws.next_json().await.unwrap();
    assert_eq!(
        (joined["type"].as_str(), joined["version"].as_u64()),
        (Some("join"), Some(1))
    );
    assert_eq!(joined["state"]["players"]["white"]["name"], "white");
    assert_eq!(
        (&joined["state"]["move_count"], joined["state"].get("moves")),
        (&json!(0), None),
        "a join adds no action"
    );

    let moves = [
        ("black", "E5"),
        ("white", "C3"),
        ("black", "G7"),
        ("white", "pass"),
    ];
    for (color, mv) in moves {
        let (status, _) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200);
    }
    // A refused move broadcasts nothing.
    assert_eq!(black.play(id, "E5").await.unwrap().0, 422);
    for (k, (color, mv)) in moves.iter().enumerate() {
        let event = ws.next_json().await.unwrap();
        assert_eq!(event["type"], "move");
        assert_eq!(event["version"], k as u64 + 2);
        assert_eq!(event["action"]["color"], *color);
        assert_eq!(event["action"]["move"], *mv);
        assert_eq!(event["state"]["version"], k as u64 + 2);
        // The event's state leaves the move list out (its size must not grow with the game): the watcher adds
        // the action to the list it has, whose length is `move_count`.
        assert_eq!(event["action"]["number"], k as u64 + 1);
        assert_eq!(event["state"]["move_count"], k as u64 + 1);
        assert_eq!(event["state"].get("moves"), None, "{event}");
    }

    // A watcher without a session cannot act over the socket; bad messages get an error and change nothing.
    ws.send_text("not json").await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["type"], "error");
    ws.send_text(r#"{"type":"play","move":"A1","ref":7}"#)
        .await
        .unwrap();
    let refused = ws.next_json().await.unwrap();
    assert_eq!(
        (refused["type"].as_str(), refused["reason"].as_str()),
        (Some("error"), Some("not_signed_in"))
    );
    assert_eq!(refused["ref"], 7);
    ws.resync().await.unwrap();
    let state = ws.next_json().await.unwrap();
    assert_eq!(state["type"], "state");
    assert_eq!(state["version"], 5);
    assert_eq!(state["moves"].as_array().unwrap().len(), 4);

    // Black plays over its own socket: an ack with the new version, and the event reaches every watcher.
    let mut black_ws = black.game_socket(id).await.unwrap();
    assert_eq!(black_ws.next_json().await.unwrap()["version"], 5);
    black_ws
        .send_text(r#"{"type":"play","move":"D4","version":5,"ref":"a"}"#)
        .await
        .unwrap();
    let mut acked = false;
    let mut seen = false;
    while !(acked && seen) {
        let m = black_ws.next_json().await.unwrap();
        match m["type"].as_str() {
            Some("ack") => {
                assert_eq!(
                    (m["ref"].as_str(), m["version"].as_u64()),
                    (Some("a"), Some(6))
                );
                acked = true;
            }
            Some("move") => {
                assert_eq!(m["version"], 6);
                seen = true;
            }
            // Black, whom the untimed game waited for, came to the board.
            Some("presence") => assert_eq!(m["version"], 5),
            other => panic!("unexpected {other:?}: {m}"),
        }
    }
    // (after the presence event of Black's socket)
    let event = ws.next_matching(|m| m["type"] == "move").await.unwrap();
    assert_eq!(
        (event["action"]["move"].as_str(), event["version"].as_u64()),
        (Some("D4"), Some(6))
    );
    // Not Black's turn now: refused over the socket with the rules' reason.
    black_ws
        .send_text(r#"{"type":"play","move":"A1","ref":2}"#)
        .await
        .unwrap();
    let refused = black_ws.next_json().await.unwrap();
    assert_eq!(refused["reason"], "not_your_turn");
    // Messages that are no action are refused with their ref and a sentence naming what is wrong.
    for (message, names) in [
        (json!({"type": "nuke", "ref": 3}), "nuke"),
        (json!({"type": "play", "mov": "A1", "ref": 3}), "mov"),
        (json!({"resync": true, "ref": 3}), "type"),
    ] {
        black_ws.send_json(&message).await.unwrap();
        let refused = black_ws.next_json().await.unwrap();
        let error = refused["error"].as_str().unwrap_or_default();
        assert_eq!(
            (refused["reason"].as_str(), &refused["ref"]),
            (Some("bad_request"), &json!(3)),
            "{message}: {refused}"
        );
        assert!(
            error.contains(names) && !error.contains("Some("),
            "{message}: {error}"
        );
    }

    // Over HTTP the same message plays, at the version it was decided at.
    let (status, state) = white
        .post(
            &format!("/api/games/{id}/actions"),
            json!({"type": "play", "move": "J9", "version": 6}),
        )
        .await
        .unwrap();
    assert_eq!((status, state["version"].as_u64()), (200, Some(7)));
    let event = ws.next_json().await.unwrap();
    assert_eq!(
        (event["type"].as_str(), event["action"]["move"].as_str()),
        (Some("move"), Some("J9"))
    );
    let (status, body) = white
        .post(
            &format!("/api/games/{id}/actions"),
            json!({"type": "play", "move": "J8", "version": 6}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("stale_version"))
    );
    let (status, body) = black
        .post(
            &format!("/api/games/{id}/moves"),
            json!({"type": "resign", "move": "J8"}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    let (status, body) = black
        .post(&format!("/api/games/{id}/resign"), json!({"point": "J8"}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    assert!(body["error"].as_str().unwrap().contains("point"), "{body}");

    white
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    let event = ws.next_json().await.unwrap();
    assert_eq!(
        (event["type"].as_str(), event["version"].as_u64()),
        (Some("resign"), Some(8))
    );
    // A socket opened from another site is refused before the upgrade.
    let foreign = SocketOptions {
        origin: Some("http://elsewhere.example".to_owned()),
        ..SocketOptions::default()
    };
    let path = format!("/api/games/{id}/ws");
    assert!(anonymous(&running).socket(&path, &foreign).await.is_err());
    ws.close().await.unwrap();
    running.stop().await.unwrap();
}

#[tokio::test]
async fn restart_continues_every_game_where_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "japanese:size=9").await;
    for (color, mv) in KO_SETUP.iter().copied().chain([("black", "E4")]) {
        assert_eq!(by(color, &black, &white).play(id, mv).await.unwrap().0, 200);
    }
    let other = table(&black, "aga:size=13", "white", "invite").await;
    let other_id = other["id"].as_i64().unwrap();
    let invite = other["invite"].as_str().unwrap().to_owned();
    let (_, before) = black.get(&format!("/api/games/{id}")).await.unwrap();
    let (_, before_other) = black.get(&format!("/api/games/{other_id}")).await.unwrap();
    running.stop().await.unwrap();

    let running = server(dir.path()).await;
    let black2 = black.at(&base(&running)).unwrap();
    let white2 = white.at(&base(&running)).unwrap();
    let (status, after) = black2.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(status, 200);
    // (`absent` starts again at a restart.)
    assert_eq!(settled(&after), settled(&before));
    assert_eq!(
        black2
            .get(&format!("/api/games/{other_id}"))
            .await
            .unwrap()
            .1,
        before_other
    );
    // Sessions survive too, and the ko is still a ko: the rebuilt game has its history, not only its position.
    let (status, body) = white2.play(id, "D4").await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (422, Some("ko")),
        "{body}"
    );
    let (status, state) = white2.play(id, "G7").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["version"], 11);
    // The invitation still holds: without the token no seat, with it the game starts.
    let (status, body) = white2
        .post(&format!("/api/games/{other_id}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (403, Some("bad_invite")));
    let (status, body) = white2
        .post(
            &format!("/api/games/{other_id}/join"),
            json!({"invite": invite}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some("playing")),
        "{body}"
    );
    assert_eq!(body["players"]["black"]["name"], "white");
    // New games get fresh ids.
    let third = table(&black2, "japanese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert!(third > other_id);
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_moves_at_one_version_accept_exactly_one() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, _white) = seated(&running, "japanese:size=9").await;
    let black = std::sync::Arc::new(black);
    let mut tasks = Vec::new();
    for mv in ["A1", "B2", "C3", "D4", "E5", "F6", "G7", "H8", "J9", "pass"] {
        let c = black.clone();
        tasks.push(tokio::spawn(async move {
            c.post(
                &format!("/api/games/{id}/moves"),
                json!({"move": mv, "version": 1}),
            )
            .await
            .unwrap()
            .0
        }));
    }
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.unwrap());
    }
    assert_eq!(
        statuses.iter().filter(|&&s| s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|&s| s == 200 || s == 409),
        "{statuses:?}"
    );
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["version"], 2);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn accounts_sessions_and_csrf() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let c = anonymous(&running);
    let (status, body) = c.get("/api/session").await.unwrap();
    assert_eq!((status, &body["user"]), (200, &Value::Null));

    for (name, password, reason) in [
        ("", "long enough", "bad_name"),
        ("has space", "long enough", "bad_name"),
        ("x".repeat(33).as_str(), "long enough", "bad_name"),
        ("ann", "short", "bad_password"),
    ] {
        let (status, body) = c
            .post("/api/signup", json!({"name": name, "password": password}))
            .await
            .unwrap();
        assert_eq!(
            (status, body["reason"].as_str()),
            (400, Some(reason)),
            "{name}: {body}"
        );
    }
    let (status, body) = c
        .post(
            "/api/signup",
            json!({"name": "Ann", "password": "correct horse"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["user"]["name"], "Ann");
    assert_eq!(body["user"]["guest"], false);
    let csrf = body["csrf"].as_str().unwrap().to_owned();
    let (_, me) = c.get("/api/session").await.unwrap();
    assert_eq!(
        (me["user"]["name"].as_str(), me["csrf"].as_str()),
        (Some("Ann"), Some(csrf.as_str()))
    );

    // Names are unique without regard to case; a name in another script is a name.
    let other = anonymous(&running);
    let (status, body) = other
        .post(
            "/api/signup",
            json!({"name": "ANN", "password": "another one"}),
        )
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (409, Some("name_taken")));
    let (status, body) = other
        .post(
            "/api/signup",
            json!({"name": "棋手", "password": "another one"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");

    // A state-changing request without the CSRF header is refused, with it accepted.
    // The same browser (its cookie jar), with no token.
    let mut no_csrf = c.clone();
    no_csrf.set_csrf(None);
    let (status, body) = no_csrf
        .post("/api/games", json!({"rules": "chinese:size=9"}))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (403, Some("csrf")));
    no_csrf.set_csrf(Some("0".repeat(csrf.len())));
    assert_eq!(
        no_csrf
            .post("/api/games", json!({"rules": "chinese"}))
            .await
            .unwrap()
            .0,
        403
    );
    let mut ann = no_csrf;
    ann.set_csrf(Some(csrf));
    assert_eq!(
        ann.post("/api/games", json!({"rules": "chinese:size=9"}))
            .await
            .unwrap()
            .0,
        201
    );

    // Log out, then log in again: a wrong password and an unknown name get the same answer.
    assert_eq!(ann.post("/api/logout", json!({})).await.unwrap().0, 200);
    assert_eq!(
        ann.get("/api/session").await.unwrap().1["user"],
        Value::Null
    );
    assert_eq!(
        ann.post("/api/games", json!({"rules": "chinese"}))
            .await
            .unwrap()
            .0,
        401
    );
    for (name, password) in [("ann", "wrong password"), ("nobody", "correct horse")] {
        let (status, body) = ann
            .post("/api/login", json!({"name": name, "password": password}))
            .await
            .unwrap();
        assert_eq!(
            (status, body["reason"].as_str()),
            (401, Some("wrong_login"))
        );
        assert_eq!(body["error"], "wrong name or password");
    }
    let (status, body) = ann
        .post(
            "/api/login",
            json!({"name": "aNN", "password": "correct horse"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["user"]["name"], "Ann");

    // Sign-in requests from another site are refused.
    let r = c
        .http()
        .post(c.url("/api/guest"))
        .header("origin", "http://elsewhere.example")
        .json(&json!({"name": "mallory"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn a_game_that_no_longer_replays_does_not_keep_the_others_offline() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (broken, black, _white) = seated(&running, "chinese:size=9").await;
    assert_eq!(black.play(broken, "E5").await.unwrap().0, 200);
    let (fine, black2, _white2) = seated(&running, "chinese:size=9").await;
    assert_eq!(black2.play(fine, "E5").await.unwrap().0, 200);
    running.stop().await.unwrap();

    // A second play on an occupied point, as if a rules change had made a stored move illegal.
    append_behind(dir.path(), broken, (2, "white", "E5"), "playing").await;

    let running = server(dir.path()).await;
    let c = anonymous(&running);
    assert_eq!(c.get(&format!("/api/games/{broken}")).await.unwrap().0, 404);
    let (status, state) = c.get(&format!("/api/games/{fine}")).await.unwrap();
    assert_eq!((status, state["moves"].as_array().unwrap().len()), (200, 1));
    running.stop().await.unwrap();
}
