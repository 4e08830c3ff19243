//! Ratings: ranked games rated once, farming, the change shown live, ranked settings, games left unrated.

use super::*;

/// A player's page until its rating history has `points` points (a game is rated just after its ending).
async fn rated_page(c: &Client, user: i64, points: usize) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (status, page) = c.get(&format!("/api/users/{user}/games")).await.unwrap();
        assert_eq!(status, 200, "{page}");
        let have = page["rating_history"].as_array().unwrap().len();
        if have == points {
            return page;
        }
        assert!(
            have < points && std::time::Instant::now() < deadline,
            "{have} of {points} points: {page}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// A 9×9 game under Chinese rules with its own komi 7.5, as the rating counts it.
fn chinese_9() -> tesuji_rating::Setup {
    tesuji_rating::Setup {
        komi_half_points: 15,
        ..tesuji_rating::Setup::even(9)
    }
}

/// `ann` (Black) and `bob` (White) play a ranked 9×9 game that `bob` resigns after five plays each: its id.
async fn ranked_resigned(ann: &Client, bob: &Client) -> i64 {
    let (status, body) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "ranked": true}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["state"]["ranked"], true);
    let id = body["id"].as_i64().unwrap();
    let (status, state) = bob.join(id, None).await.unwrap();
    assert_eq!((status, &state["ranked"]), (200, &json!(true)), "{state}");
    play_ten(ann, bob, id).await;
    let (status, state) = bob
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, &state["result"]), (200, &json!("B+R")), "{state}");
    id
}

#[tokio::test]
async fn a_ranked_game_changes_both_ratings_once() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (ann, ann_id) = account(&running, "ann").await;
    let (bob, bob_id) = account(&running, "bob").await;
    let gus = guest(&running, "gus").await;

    // Guests are not rated: they neither create nor join a ranked table; the computer is never ranked.
    let (status, body) = gus
        .create_game(json!({"rules": "chinese:size=9", "ranked": true}))
        .await
        .unwrap();
    assert_eq!(
        (status, &body["reason"]),
        (403, &json!("ranked_needs_account"))
    );
    let (status, body) = ann
        .create_game(json!({"rules": "chinese:size=9", "opponent": "bot", "ranked": true}))
        .await
        .unwrap();
    assert_eq!(
        (status, &body["reason"]),
        (400, &json!("bad_request")),
        "{body}"
    );
    let open = ann
        .create_game(json!({"rules": "chinese:size=9", "ranked": true}))
        .await
        .unwrap()
        .1["id"]
        .as_i64()
        .unwrap();
    let (status, body) = gus.join(open, None).await.unwrap();
    assert_eq!(
        (status, &body["reason"]),
        (403, &json!("ranked_needs_account"))
    );
    assert_eq!(
        ann.post(&format!("/api/games/{open}/cancel"), json!({}))
            .await
            .unwrap()
            .0,
        200
    );

    // Before any rated game: a new player's rating, provisional, no history; a guest has none.
    let page = rated_page(&ann, ann_id, 0).await;
    assert_eq!(page["rating"]["rating"], 1500);
    assert_eq!(page["rating"]["rank"], "6k?");
    assert_eq!(page["user"]["rank"], "6k?");
    let (_, me) = gus.get("/api/session").await.unwrap();
    let gus_id = me["user"]["id"].as_i64().unwrap();
    let (_, page) = gus
        .get(&format!("/api/users/{gus_id}/games"))
        .await
        .unwrap();
    assert_eq!(page["rating"], Value::Null);
    assert!(page["user"].get("rank").is_none(), "{page}");

    // An unranked game changes nothing.
    let id = table(&ann, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    assert_eq!(ann.play(id, "E5").await.unwrap().0, 200);
    let (status, _) = bob
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);

    // A table of Ann's that waits while she plays shows her new rating once she is rated.
    let waiting = table(&ann, "chinese:size=13", "black", "anyone").await["id"].clone();
    let game = ranked_resigned(&ann, &bob).await;
    let (black, white) = tesuji_rating::rate(
        tesuji_rating::Rating::default(),
        tesuji_rating::Rating::default(),
        tesuji_rating::Outcome::BlackWins,
        &chinese_9(),
    );
    let page = rated_page(&ann, ann_id, 1).await;
    assert_eq!(page["rating"]["rating"], black.rating.round() as i64);
    // The page's user and its rating card say the same.
    assert_eq!(page["user"]["rank"], page["rating"]["rank"], "{page}");
    assert_eq!(page["user"]["rating"], page["rating"]["rating"], "{page}");
    assert_eq!(page["rating_history"][0][0], game);
    assert_eq!(page["rating_history"][0][2], black.rating.round() as i64);
    let page = rated_page(&bob, bob_id, 1).await;
    assert_eq!(page["rating"]["rating"], white.rating.round() as i64);
    assert!(black.rating > 1500.0 && white.rating < 1500.0);
    // The rated game's own page names the new ratings too, as the others do (on the node that rated it, and
    // on the other once it has).
    for c in [&ann, &bob] {
        let state = state_until(c, game, "the game's players rated", |s| {
            s["players"]["white"]["rating"] == white.rating.round() as i64
        })
        .await;
        assert_eq!(
            state["players"]["black"]["rating"],
            black.rating.round() as i64
        );
        assert_eq!(state["players"]["black"]["rank"], black.label());
    }

    // The new rating shows beside the name: in the lobby and in a new game's state.
    let (_, body) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black"}))
        .await
        .unwrap();
    assert_eq!(
        body["state"]["players"]["black"]["rating"],
        black.rating.round() as i64,
        "{body}"
    );
    assert_eq!(body["state"]["players"]["black"]["rank"], black.label());
    let (_, lobby) = bob.get("/api/lobby").await.unwrap();
    let entry = entry_of(&lobby, "open", &body["id"]);
    assert_eq!(
        entry["players"]["black"]["rating"],
        black.rating.round() as i64
    );
    let entry = entry_of(&lobby, "open", &waiting);
    assert_eq!(entry["players"]["black"]["rank"], black.label(), "{entry}");

    // A restart rates nothing again.
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let c = anonymous(&running);
    let page = rated_page(&c, ann_id, 1).await;
    assert_eq!(page["rating"]["rating"], black.rating.round() as i64);
    running.stop().await.unwrap();
}

/// The farming loop of two accounts of one person: rematch and resign, over and over. A resignation before
/// five plays each is not rated at all; played games between the same two accounts within a day count as one
/// game, so the winner ends where one win takes a new player, however many they play.
#[tokio::test]
async fn farming_a_rating_with_a_second_account_gains_one_game() {
    let dir = tempfile::tempdir().unwrap();
    // As fast as a script plays: the action rate limit is not what is tested.
    let limits = Limits {
        actions_per_second: 1000,
        ..Limits::default()
    };
    let running = server_with(dir.path(), limits).await;
    let (ann, ann_id) = account(&running, "ann").await;
    let (bob, bob_id) = account(&running, "bob").await;
    let one = tesuji_rating::rate(
        tesuji_rating::Rating::default(),
        tesuji_rating::Rating::default(),
        tesuji_rating::Outcome::BlackWins,
        &chinese_9(),
    );

    // Resigning at move 0, or after a move, ten times in a row with rematches: nothing is rated.
    let (status, body) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "ranked": true}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    let mut id = body["id"].as_i64().unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    for round in 0..10 {
        // Ann is Black in even rounds (rematches swap colours); Bob, the loser, resigns.
        if round % 2 == 1 {
            assert_eq!(bob.play(id, "E5").await.unwrap().0, 200);
        }
        let (status, state) = bob
            .post(&format!("/api/games/{id}/resign"), json!({}))
            .await
            .unwrap();
        assert_eq!(status, 200, "round {round}: {state}");
        let rematch = format!("/api/games/{id}/rematch");
        let (status, table) = ann.post(&rematch, json!({})).await.unwrap();
        assert_eq!(status, 200, "round {round}: {table}");
        let (status, started) = bob.post(&rematch, json!({})).await.unwrap();
        assert_eq!(status, 200, "round {round}: {started}");
        assert_eq!(started["ranked"], true);
        id = started["id"].as_i64().unwrap();
    }
    let (_, state) = ann.game(id).await.unwrap();
    let ann_black = state["players"]["black"]["name"] == "ann";
    assert!(ann_black, "{state}");
    // The games are not rated, not even late: a played game is rated next, and the history has it alone.
    let (black, white) = (&ann, &bob);
    play_ten(black, white, id).await;
    let (status, _) = bob
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let page = rated_page(&ann, ann_id, 1).await;
    assert_eq!(
        page["rating"]["rating"],
        one.0.rating.round() as i64,
        "{page}"
    );

    // Played games, rematch after rematch: the pair's games count as one game of their mean result and mean
    // advantage (Ann's komi of 7.5 is a quarter rank against her as Black and for her as White), so the
    // ratings move no further than one game moves them.
    let quarter = chinese_9().advantage_ranks();
    let mut advantages = vec![quarter];
    for round in 0..4 {
        let rematch = format!("/api/games/{id}/rematch");
        ann.post(&rematch, json!({})).await.unwrap();
        let (status, started) = bob.post(&rematch, json!({})).await.unwrap();
        assert_eq!(status, 200, "round {round}: {started}");
        id = started["id"].as_i64().unwrap();
        let (black, white) = if round % 2 == 0 {
            (&bob, &ann)
        } else {
            (&ann, &bob)
        };
        advantages.push(if round % 2 == 0 { -quarter } else { quarter });
        play_ten(black, white, id).await;
        let (status, _) = bob
            .post(&format!("/api/games/{id}/resign"), json!({}))
            .await
            .unwrap();
        assert_eq!(status, 200);
        let mean = advantages.iter().sum::<f64>() / advantages.len() as f64;
        let combined = tesuji_rating::rate_score(
            tesuji_rating::Rating::default(),
            tesuji_rating::Rating::default(),
            1.0,
            mean,
        );
        let page = rated_page(&ann, ann_id, round + 2).await;
        let gained = page["rating"]["rating"].as_i64().unwrap();
        assert!(
            (gained - combined.0.rating.round() as i64).abs() <= 1,
            "round {round}: {gained}, one game of the mean gives {}",
            combined.0.rating
        );
        assert!(
            gained <= one.0.rating.round() as i64,
            "round {round}: {gained} is more than one win gives"
        );
        let page = rated_page(&bob, bob_id, round + 2).await;
        let lost = page["rating"]["rating"].as_i64().unwrap();
        assert!(
            (lost - combined.1.rating.round() as i64).abs() <= 1,
            "round {round}: {lost}"
        );
    }
    running.stop().await.unwrap();
}

/// What happens is seen: when a rated game ends, its page hears the rating change live (an event), its state
/// carries it, also once read back from the store after a restart; a ranked game too short to be rated says so.
#[tokio::test]
async fn a_rated_games_end_shows_the_rating_change_live() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (ann, _) = account(&running, "ann").await;
    let (bob, _) = account(&running, "bob").await;
    let (status, body) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "ranked": true}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_i64().unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    let mut watching = ann.game_socket(id).await.unwrap();
    play_ten(&ann, &bob, id).await;
    assert_eq!(resign(&bob, id).await, 200);
    let (black, white) = tesuji_rating::rate(
        tesuji_rating::Rating::default(),
        tesuji_rating::Rating::default(),
        tesuji_rating::Outcome::BlackWins,
        &chinese_9(),
    );
    let change = |before: f64, after: f64| {
        let (b, a) = (before.round() as i64, after.round() as i64);
        json!({"before": b, "after": a, "change": a - b})
    };
    let expected =
        json!({"black": change(1500.0, black.rating), "white": change(1500.0, white.rating)});
    let event = watching
        .next_matching(|m| m["type"] == "rated")
        .await
        .unwrap();
    assert_eq!(event["rating_change"], expected, "{event}");
    assert!(expected["black"]["change"].as_i64().unwrap() > 0);
    let (_, state) = ann.game(id).await.unwrap();
    assert_eq!(state["rating_change"], expected, "{state}");
    assert!(state.get("unrated").is_none(), "{state}");

    // A ranked game resigned at once: no change, and the state says why.
    let (_, body) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "ranked": true}))
        .await
        .unwrap();
    let short = body["id"].as_i64().unwrap();
    assert_eq!(bob.join(short, None).await.unwrap().0, 200);
    assert_eq!(resign(&bob, short).await, 200);
    let (_, state) = ann.game(short).await.unwrap();
    assert_eq!(state["unrated"], "short", "{state}");
    assert!(state.get("rating_change").is_none(), "{state}");

    // Read back from the store after a restart, the rated game still says how it changed the ratings.
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let (_, state) = anonymous(&running).game(id).await.unwrap();
    assert_eq!(state["rating_change"], expected, "{state}");
    running.stop().await.unwrap();
}

/// Ranked tables take standard settings only (a tester made ranked tables with komi −50, on 2×2 and with nine
/// stones on 9×9); the same tables unranked are fine.
#[tokio::test]
async fn a_ranked_table_takes_standard_settings_only() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (ann, _) = account(&running, "ann").await;
    for rules in [
        "chinese:size=9,komi=-50",
        "chinese:size=2",
        "chinese:size=9,handicap=9,komi=0.5",
        "japanese:size=19,komi=0",
        "chinese:size=19,suicide=all",
    ] {
        let (status, body) = ann
            .create_game(json!({"rules": rules, "color": "black", "ranked": true}))
            .await
            .unwrap();
        assert_eq!(
            (status, &body["reason"]),
            (400, &json!("ranked_settings")),
            "{rules}: {body}"
        );
        assert!(body["error"].as_str().unwrap().contains("ranked"), "{body}");
        let (status, body) = ann
            .create_game(json!({"rules": rules, "color": "black"}))
            .await
            .unwrap();
        assert_eq!(status, 201, "{rules} unranked: {body}");
        let id = body["id"].as_i64().unwrap();
        ann.post(&format!("/api/games/{id}/cancel"), json!({}))
            .await
            .unwrap();
    }
    for rules in [
        "chinese:size=19",
        "japanese:size=13,handicap=3,komi=0.5",
        "bga:size=9,counting=japanese,komi=normal,aga=on",
    ] {
        let (status, body) = ann
            .create_game(json!({"rules": rules, "color": "black", "ranked": true}))
            .await
            .unwrap();
        assert_eq!(status, 201, "{rules}: {body}");
        let id = body["id"].as_i64().unwrap();
        ann.post(&format!("/api/games/{id}/cancel"), json!({}))
            .await
            .unwrap();
    }
    running.stop().await.unwrap();
}

#[tokio::test]
async fn a_ranked_game_that_ended_unrated_is_rated_at_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (_, ann_id) = account(&running, "ann").await;
    let (_, bob_id) = account(&running, "bob").await;
    running.stop().await.unwrap();

    // Ended while no node could rate it: the ending stored, no rating (written behind the server's back).
    let store = tesuji_server::store::open(&crate::backend().database(dir.path()))
        .await
        .unwrap();
    let moves = TEN_PLAYS
        .iter()
        .chain(&["resign"])
        .zip(1..)
        .map(|(text, number)| tesuji_server::store::StoredMove {
            number,
            // Black plays the odd moves; White resigns.
            color: if number % 2 == 1 && *text != "resign" {
                "black"
            } else {
                "white"
            }
            .into(),
            text: (*text).into(),
            spent_ms: None,
            lag_ms: None,
            at_ms: None,
        });
    let ended = |ranked: bool, result: &str| tesuji_server::store::ImportedGame {
        rules: "chinese:size=9".into(),
        created: 1,
        state: "over".into(),
        seats: tesuji_server::store::Seats {
            black: Some(ann_id),
            white: Some(bob_id),
            opponent: "anyone".into(),
            joined: true,
            ranked,
            ..Default::default()
        },
        time_control: None,
        moves: moves.clone().collect(),
        ending: Some(tesuji_server::store::Ending {
            result: Some(result.into()),
            ended: 2,
            moves: 1,
        }),
    };
    let ids = store
        .import_games(&[ended(true, "B+R"), ended(false, "B+R")])
        .await
        .unwrap();
    store.close().await.unwrap();

    let running = server(dir.path()).await;
    let c = anonymous(&running);
    let page = rated_page(&c, ann_id, 1).await;
    assert_eq!(page["rating_history"][0][0], ids[0]);
    assert!(page["rating"]["rating"].as_i64().unwrap() > 1500, "{page}");
    let page = rated_page(&c, bob_id, 1).await;
    assert!(page["rating"]["rating"].as_i64().unwrap() < 1500, "{page}");
    running.stop().await.unwrap();
    // Once only: a second start finds nothing left to rate.
    let running = server(dir.path()).await;
    let c = anonymous(&running);
    rated_page(&c, ann_id, 1).await;
    running.stop().await.unwrap();
}
