//! Finished games: a player's pages, leaving memory and being served the same, the archive, summaries.

use super::*;

/// A server that keeps no finished game in memory once nobody holds it.
async fn server_without_cache(dir: &Path) -> Site {
    start(ServerConfig {
        finished_cache: 0,
        ..config(dir)
    })
    .await
    .expect("server starts")
}

/// The state, SGF and replay of game `id`, as any client reads them.
async fn records(c: &Client, id: i64) -> (Value, String, Value) {
    let (status, state) = c.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(status, 200, "{state}");
    let sgf = c.get_text(&format!("/api/games/{id}/sgf")).await.unwrap().1;
    let (status, replay) = c.get(&format!("/api/games/{id}/replay")).await.unwrap();
    assert_eq!(status, 200, "{replay}");
    (state, sgf, replay)
}

/// Polls the server's count of games in memory until `want` holds (the server lets a game go when its last
/// holder is done, which a client cannot see), for at most 5 s.
async fn resident_until(running: &Site, want: impl Fn(tesuji_server::game::ResidentCount) -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !want(running.resident()) {
        assert!(
            std::time::Instant::now() < deadline,
            "in memory: {:?}",
            running.resident()
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_finished_game_leaves_memory_and_is_served_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let running = server_without_cache(dir.path()).await;
    let (id, black, white) = seated(&running, "japanese:size=9").await;
    let (other, _, _) = seated(&running, "chinese:size=9").await;
    for (color, mv) in KO_SETUP {
        let (status, body) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{body}");
    }
    assert_eq!(
        running.resident(),
        tesuji_server::game::ResidentCount {
            live: 2,
            finished: 0
        }
    );
    // A watcher is connected when the game ends: it hears the end, and the game stays while it watches.
    let mut ws = anonymous(&running).game_socket(id).await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["type"], "state");
    let (status, ended) = white
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{ended}");
    let event = ws.next_json().await.unwrap();
    assert_eq!(
        (event["type"].as_str(), event["state"]["result"].as_str()),
        (Some("resign"), Some("B+R"))
    );
    let before = records(&black, id).await;
    assert_eq!(before.0, ended);
    assert_eq!(running.resident().live, 1, "the other game is still live");
    assert_eq!(running.resident().finished, 1, "held by its watcher");
    // The watcher still gets answers: a resync, and a refusal of a move.
    ws.resync().await.unwrap();
    let resync = ws.next_json().await.unwrap();
    assert_eq!(
        (resync["type"].as_str(), &resync["version"]),
        (Some("state"), &ended["version"])
    );
    drop(ws);
    resident_until(&running, |r| r.finished == 0).await;
    assert_eq!(running.resident().live, 1);

    // Read back from the store: the same state, record and replay.
    assert_eq!(records(&black, id).await, before);
    let (status, refused) = black.play(id, "A9").await.unwrap();
    assert_eq!(
        (status, refused["reason"].as_str()),
        (422, Some("game_over")),
        "{refused}"
    );
    running.stop().await.unwrap();

    // After a restart only the live game is replayed, and the finished one is served the same again.
    let running = server_without_cache(dir.path()).await;
    assert_eq!(
        running.resident(),
        tesuji_server::game::ResidentCount {
            live: 1,
            finished: 0
        }
    );
    let c = anonymous(&running);
    assert_eq!(records(&c, id).await, before);
    let (status, live) = c.get(&format!("/api/games/{other}")).await.unwrap();
    assert_eq!((status, live["status"].as_str()), (200, Some("playing")));
    // Read back into the cache of finished games, beside the live one.
    assert_eq!(
        running.resident(),
        tesuji_server::game::ResidentCount {
            live: 1,
            finished: 1
        }
    );
    running.stop().await.unwrap();
}

/// A game between `black` and `white` that ends at once (Black resigns); its id.
async fn finished_game(black: &Client, white: &Client) -> i64 {
    let id = table(black, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    let (status, body) = white
        .post(&format!("/api/games/{id}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    let (status, body) = black
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    id
}

#[tokio::test]
async fn the_archive_pages_through_finished_games_while_games_end() {
    let dir = tempfile::tempdir().unwrap();
    let running = server_without_cache(dir.path()).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let mut ended = Vec::new();
    for _ in 0..7 {
        ended.push(finished_game(&black, &white).await);
    }
    // A game still in play is not in the archive.
    let playing = table(&black, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    let (status, _) = white
        .post(&format!("/api/games/{playing}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let c = anonymous(&running);
    let mut seen = Vec::new();
    let mut path = "/api/archive?limit=3".to_owned();
    loop {
        let (status, page) = c.get(&path).await.unwrap();
        assert_eq!(status, 200, "{page}");
        let games = page["games"].as_array().unwrap();
        assert!(games.len() <= 3, "{page}");
        for g in games {
            assert_eq!(g["status"], "over", "{g}");
            assert_eq!(g["result"], "W+R", "{g}");
            assert!(g["ended"].as_i64().is_some(), "{g}");
            assert_eq!(g["players"]["black"]["name"], "black", "{g}");
            // Resigned before any move: the resignation is an action, not a move.
            assert_eq!(g["moves"], 0, "{g}");
            seen.push(g["id"].as_i64().unwrap());
        }
        // Games that end meanwhile come before the first page: they repeat and skip nothing.
        finished_game(&black, &white).await;
        match page["next"].as_i64() {
            Some(next) => {
                assert_eq!(Some(next), seen.last().copied());
                path = format!("/api/archive?limit=3&before={next}");
            }
            None => break,
        }
    }
    ended.reverse();
    assert_eq!(seen, ended, "every game once, the latest first");
    assert!(!seen.contains(&playing));
    let (_, first) = c.get("/api/archive").await.unwrap();
    assert_eq!(first["games"].as_array().unwrap().len(), 7 + 3);
    // A player's page reads the same rows, the live game's entry from memory.
    let (_, mine) = c
        .get(&format!("/api/users/{}/games", black.user_id().unwrap()))
        .await
        .unwrap();
    assert_eq!(mine["games"].as_array().unwrap().len(), 7 + 3 + 1);
    for g in mine["games"].as_array().unwrap() {
        let want = if g["id"] == playing {
            "playing"
        } else {
            "over"
        };
        assert_eq!(g["status"], want, "{g}");
    }
    // Every node lets the ended games go (another node hears of an end through NATS).
    resident_until(&running, |r| r.live == 1).await;
    for bad in [
        "limit=0",
        "limit=101",
        "before=x",
        "before=0",
        "limit=1&limit=2",
    ] {
        let (status, body) = c.get(&format!("/api/archive?{bad}")).await.unwrap();
        assert_eq!(
            (status, body["reason"].as_str()),
            (400, Some("bad_request")),
            "{bad}: {body}"
        );
    }
    // An unknown or unfinished game to start after gives an empty page, not an error.
    for before in [playing, 999_999] {
        let (status, page) = c
            .get(&format!("/api/archive?before={before}"))
            .await
            .unwrap();
        assert_eq!(
            (status, page["games"].as_array().map(Vec::len)),
            (200, Some(0)),
            "{page}"
        );
    }
    running.stop().await.unwrap();
}

#[tokio::test]
async fn games_that_ended_before_summaries_get_them_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, _white) = seated(&running, "chinese:size=9").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    running.stop().await.unwrap();
    // As a server before summary rows would have written it: a resignation with no ending on the row.
    append_behind(dir.path(), id, (2, "white", "resign"), "over").await;

    let running = server(dir.path()).await;
    let c = anonymous(&running);
    let (_, archive) = c.get("/api/archive").await.unwrap();
    let games = archive["games"].as_array().unwrap();
    assert_eq!(games.len(), 1, "{archive}");
    assert_eq!(
        (
            games[0]["id"].as_i64(),
            games[0]["result"].as_str(),
            games[0]["moves"].as_i64()
        ),
        // E5; the resignation is no move.
        (Some(id), Some("B+R"), Some(1))
    );
    assert_eq!(running.resident().live, 0);
    running.stop().await.unwrap();
}

/// The Moves column counts the moves played (plays and passes, after take-backs), not the stored actions (a
/// take-back's request and answer, the proposal, the acceptances): in the lobby while the game goes on, in the
/// archive and on the players' pages once it is over, and after a restart.
#[tokio::test]
async fn listings_count_moves_not_actions() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "chinese:size=9").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    assert_eq!(white.play(id, "C3").await.unwrap().0, 200);
    // White takes C3 back with Black's leave and plays G7 instead.
    let (status, body) = white
        .post(&format!("/api/games/{id}/undo"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    let (status, body) = black
        .post(&format!("/api/games/{id}/undo/accept"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(white.play(id, "G7").await.unwrap().0, 200);
    let (_, lobby) = black.get("/api/lobby").await.unwrap();
    assert_eq!(
        entry_of(&lobby, "playing", &json!(id))["moves"],
        2,
        "{lobby}"
    );
    assert_eq!(black.play(id, "pass").await.unwrap().0, 200);
    assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
    for c in [&black, &white] {
        let (status, body) = c
            .post(&format!("/api/games/{id}/accept"), json!({}))
            .await
            .unwrap();
        assert_eq!(status, 200, "{body}");
    }
    let (_, state) = black.game(id).await.unwrap();
    assert_eq!(state["status"], "over", "{state}");
    let actions = state["moves"].as_array().unwrap().len();
    assert!(actions > 4, "{actions} actions: {state}");
    let listed = |page: &Value| {
        page["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == id)
            .map(|g| g["moves"].clone())
    };
    let black_id = state["players"]["black"]["id"].as_i64().unwrap();
    let check = |running: Site, when: &'static str| async move {
        let c = anonymous(&running);
        let (_, archive) = c.get("/api/archive").await.unwrap();
        assert_eq!(listed(&archive), Some(json!(4)), "{when}: {archive}");
        let (_, page) = c
            .get(&format!("/api/users/{black_id}/games"))
            .await
            .unwrap();
        assert_eq!(listed(&page), Some(json!(4)), "{when}: {page}");
        running.stop().await.unwrap();
    };
    check(running, "as it ends").await;
    check(server(dir.path()).await, "after a restart").await;
}

#[tokio::test]
async fn a_game_with_days_on_its_clock_leaves_memory_when_it_ends() {
    // The flag watch of a correspondence clock sleeps for days: it must not keep a game that ended meanwhile.
    let dir = tempfile::tempdir().unwrap();
    let running = server_without_cache(dir.path()).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "fischer:3d+1d").await;
    let (status, body) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["clock"]["running"], "white", "{body}");
    let (status, ended) = white
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, ended["result"].as_str()), (200, Some("B+R")));
    resident_until(&running, |r| r.live == 0 && r.finished == 0).await;
    running.stop().await.unwrap();
}
