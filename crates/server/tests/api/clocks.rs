//! Clocks on manual time (nothing here waits for the clocks to run in real time), the flag, claims against an
//! absent player, presence.

use super::*;

#[tokio::test]
async fn clocks_are_exact_across_reconnects_and_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "fischer:1m+10s").await;
    // Black's first move takes no time (`no_clock_runs_before_the_first_move`); White's clock starts.
    let (status, state) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["clock"]["running"], "white");
    // White thinks 4 s and reports 50 ms of lag: 60 - 3.95 + 10 s of increment.
    time.advance(4_000);
    let (status, state) = white
        .post(
            &format!("/api/games/{id}/moves"),
            json!({"move": "D5", "lag_ms": 50}),
        )
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["clock"]["running"], "black");
    assert_eq!(main_ms(&state, "white"), 66_050);
    assert_eq!(main_ms(&state, "black"), 60_000);
    assert_eq!(state["clock"]["white"]["overtime"], "sudden-death");

    // Black's clock runs 7 s; a new socket and a fresh GET both see exactly that.
    time.advance(7_000);
    let mut ws = black.game_socket(id).await.unwrap();
    let first = ws.next_json().await.unwrap();
    assert_eq!(first["type"], "state");
    let (_, got) = black.get(&format!("/api/games/{id}")).await.unwrap();
    for s in [&first, &got] {
        assert_eq!(
            (main_ms(s, "white"), main_ms(s, "black")),
            (66_050, 53_000),
            "{s}"
        );
        assert_eq!(s["clock"]["running"], "black");
    }
    ws.close().await.unwrap();
    drop(ws);
    let mut again = black.game_socket(id).await.unwrap();
    time.advance(1_000);
    again.resync().await.unwrap();
    let first = again.next_json().await.unwrap();
    let resynced = again.next_matching(|m| m["type"] == "state").await.unwrap();
    assert_eq!(main_ms(&first, "black"), 53_000);
    assert_eq!(main_ms(&resynced, "black"), 52_000);
    drop(again);
    running.stop().await.unwrap();

    // After a restart the clocks are rebuilt from the stored turn times: White's exactly; Black's turn starts
    // again from where it began (no time runs while the server is down), and then runs on.
    time.advance(500_000);
    let running = server_at(dir.path(), &time).await;
    let c = anonymous(&running);
    let (_, after) = c.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(after["clock"]["running"], "black");
    assert_eq!(
        (main_ms(&after, "white"), main_ms(&after, "black")),
        (66_050, 60_000)
    );
    time.advance(2_500);
    let (_, after) = c.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(main_ms(&after, "black"), 57_500);
    running.stop().await.unwrap();
}

/// No clock runs before the game's first move: the player who moves first is not charged for the time between
/// the join and their first move (however long: an unplayed game is aborted, never lost on time), and it takes
/// no time of theirs; from it on the clocks run as usual.
#[tokio::test]
async fn no_clock_runs_before_the_first_move() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, state) = timed(&black, &white, "chinese:size=9", "fischer:1m+10s").await;
    assert_eq!(
        (main_ms(&state, "black"), main_ms(&state, "white")),
        (60_000, 60_000)
    );
    let mut ws = anonymous(&running).game_socket(id).await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["type"], "state");
    // An hour after the join: Black's time is whole, nothing runs, no flag.
    time.advance(3_600_000);
    let (_, state) = white.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["clock"]["running"], Value::Null, "{state}");
    assert_eq!(main_ms(&state, "black"), 60_000, "{state}");
    assert_eq!(state["clock"]["black"]["flagged"], false, "{state}");
    assert_eq!(state["result"], Value::Null, "{state}");
    // Black's first move is a move, not a loss on time (had the clock run, it would come an hour late), and
    // costs nothing; White's clock runs from it.
    let (status, state) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["result"], Value::Null, "{state}");
    assert_eq!(state["moves"][0]["move"], "E5", "{state}");
    assert_eq!(main_ms(&state, "black"), 60_000, "{state}");
    assert_eq!(state["clock"]["running"], "white");
    // The only action was the move: no timeout before it (presence events aside: both players are away).
    let m = ws.next_matching(|m| m["type"] != "presence").await.unwrap();
    assert_eq!(
        (m["type"].as_str(), m["version"].as_u64()),
        (Some("move"), Some(2)),
        "{m}"
    );
    time.advance(5_000);
    let (_, state) = white.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(main_ms(&state, "white"), 55_000, "{state}");
    let (_, state) = white.play(id, "D5").await.unwrap();
    assert_eq!(main_ms(&state, "white"), 65_000, "{state}");
    // Black's clock runs from White's answer on, and falls as usual: 60 s and the 1 s lag allowance.
    time.advance(3_000);
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(
        (state["clock"]["running"].as_str(), main_ms(&state, "black")),
        (Some("black"), 57_000),
        "{state}"
    );
    time.advance(58_001);
    let m = ws.next_matching(|m| m["type"] == "timeout").await.unwrap();
    assert_eq!(
        (m["action"]["color"].as_str(), m["state"]["result"].as_str()),
        (Some("black"), Some("W+T"))
    );
    // A restart replays the free first move the same.
    running.stop().await.unwrap();
    let running = server_at(dir.path(), &time).await;
    let (_, state) = anonymous(&running)
        .get(&format!("/api/games/{id}"))
        .await
        .unwrap();
    assert_eq!(state["result"], "W+T");
    assert_eq!(
        (
            main_ms(&state, "white"),
            state["clock"]["black"]["flagged"].as_bool()
        ),
        (65_000, Some(true)),
        "{state}"
    );
    running.stop().await.unwrap();
}

#[tokio::test]
async fn a_player_whose_flag_falls_loses_on_time() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "slow").await;
    let white = guest(&running, "quick").await;

    // After the first moves (the first takes no time), Black does not move: 1 s, plus the 1 s lag allowance.
    let (b_lost, _) = timed(&black, &white, "japanese:size=9", "absolute:1s").await;
    assert_eq!(black.play(b_lost, "E5").await.unwrap().0, 200);
    assert_eq!(white.play(b_lost, "D5").await.unwrap().0, 200);
    let mut ws = anonymous(&running).game_socket(b_lost).await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["type"], "state");
    // Up to 1 s + 1 s, a move is on time (the lag allowance is the server's to credit): no flag yet.
    time.advance(2_000);
    let (_, state) = black.get(&format!("/api/games/{b_lost}")).await.unwrap();
    assert_eq!(state["result"], Value::Null, "{state}");
    assert_eq!(state["clock"]["black"]["main_ms"], 0);
    assert_eq!(state["clock"]["black"]["flagged"], false);
    time.advance(1);
    let m = ws.next_matching(|m| m["type"] == "timeout").await.unwrap();
    assert_eq!(m["action"]["color"], "black");
    assert_eq!(m["state"]["result"], "W+T");
    assert_eq!(m["state"]["clock"]["black"]["flagged"], true, "{m}");
    assert_eq!(m["state"]["clock"]["running"], Value::Null);

    // White loses: White moves in time once, then runs out.
    let (w_lost, _) = timed(&black, &white, "japanese:size=9", "absolute:1s").await;
    let mut ws = anonymous(&running).game_socket(w_lost).await.unwrap();
    assert_eq!(black.play(w_lost, "E5").await.unwrap().0, 200);
    time.advance(900);
    let (status, state) = white.play(w_lost, "D5").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(main_ms(&state, "white"), 100);
    assert_eq!(black.play(w_lost, "E4").await.unwrap().0, 200);
    time.advance(1_101);
    let m = ws.next_matching(|m| m["type"] == "timeout").await.unwrap();
    assert_eq!(
        (m["action"]["color"].as_str(), m["state"]["result"].as_str()),
        (Some("white"), Some("B+T"))
    );
    // A move after the flag fell is refused: the game is over.
    let (status, body) = white.play(w_lost, "D4").await.unwrap();
    assert_eq!((status, body["reason"].as_str()), (422, Some("game_over")));

    // A move that comes 1 s late with 1 s of reported lag is on time, at the last millisecond.
    let (just, _) = timed(&black, &white, "japanese:size=9", "absolute:1s").await;
    let (status, _) = black.play(just, "E5").await.unwrap();
    assert_eq!(status, 200);
    // (Black's first move started White's clock.)
    time.advance(2_000);
    let (status, state) = white
        .post(
            &format!("/api/games/{just}/moves"),
            json!({"move": "D5", "lag_ms": 1_000}),
        )
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(
        (
            state["result"].as_null(),
            state["clock"]["white"]["main_ms"].as_u64()
        ),
        (Some(()), Some(0))
    );
    running.stop().await.unwrap();

    // Stored like any action: the results survive a restart.
    let running = server_at(dir.path(), &time).await;
    let c = anonymous(&running);
    for (id, result) in [(b_lost, "W+T"), (w_lost, "B+T")] {
        let (_, state) = c.get(&format!("/api/games/{id}")).await.unwrap();
        assert_eq!(
            (state["result"].as_str(), state["phase"].as_str()),
            (Some(result), Some("over"))
        );
    }
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_move_and_the_flag_timer_lose_the_game_on_time_once() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "late").await;
    let white = guest(&running, "waits").await;
    // Black's first move takes no time; White's is the late one.
    let only_the_timeout = json!([
        {"number": 1, "color": "black", "move": "E5"},
        {"number": 2, "color": "white", "move": "timeout"},
    ]);
    // A move with no lag reported is late after 1 s; the flag timer fires after 1 s plus the 1 s lag
    // allowance. A late move that comes before the timer is the time-out; the timer, waking after it, finds
    // the game over and adds nothing.
    let (id, _) = timed(&black, &white, "japanese:size=9", "absolute:1s").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    time.advance(2_000);
    let (status, state) = white.play(id, "D5").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["result"], "B+T");
    // The flag timer still sleeps until its deadline, a millisecond on: it wakes, finds the game over and ends.
    let sleeping = time.sleepers();
    assert!(sleeping >= 1, "the flag timer sleeps");
    time.advance(1);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while time.sleepers() >= sleeping {
        assert!(
            std::time::Instant::now() < deadline,
            "the flag timer never woke"
        );
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["moves"], only_the_timeout, "{state}");
    assert_eq!(state["board"][4], "....X....");
    // The timer first: the move that follows is refused, the game over.
    let (id, _) = timed(&black, &white, "japanese:size=9", "absolute:1s").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    time.advance(2_001);
    state_until(&black, id, "the time-out", |s| s["result"] == "B+T").await;
    let (status, body) = white.play(id, "D5").await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (422, Some("game_over")),
        "{body}"
    );
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["moves"], only_the_timeout, "{state}");
    running.stop().await.unwrap();
}

#[tokio::test]
async fn bad_controls_are_refused_and_ideal_games_get_self_fill() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let (status, body) = ann
        .post(
            "/api/games",
            json!({"rules": "chinese", "time": "fischer:soon"}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    assert!(
        body["error"].as_str().unwrap().contains("time control"),
        "{body}"
    );
    // Self-fill needs a clock.
    let (status, body) = ann
        .post("/api/games", json!({"rules": "ideal:self-fill=10"}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_rules")),
        "{body}"
    );
    // A timed game under the ideal rules has the self-fill rule, and its state shows each player's run.
    let (status, body) = ann
        .post(
            "/api/games",
            json!({"rules": "ideal:size=9", "time": "absolute:10m"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    assert!(
        body["state"]["rules"]
            .as_str()
            .unwrap()
            .contains("self-fill=10"),
        "{body}"
    );
    assert_eq!(
        body["state"]["self_fill"],
        json!({"limit": 10, "black": 0, "white": 0})
    );
    let (_, body) = ann
        .post(
            "/api/games",
            json!({"rules": "chinese:size=9", "time": "absolute:10m"}),
        )
        .await
        .unwrap();
    assert_eq!(body["state"]["self_fill"], Value::Null);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn an_absent_player_can_be_claimed_against_after_the_grace_period() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "stays").await;
    let white = guest(&running, "leaves").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "fischer:10m+10s").await;
    // A game nobody has moved in is aborted, not claimed (`a_game_nobody_has_moved_in_is_aborted`).
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);

    // Both at the board: nobody is absent, and there is nothing to claim.
    let mut b_ws = black.game_socket(id).await.unwrap();
    let mut w_ws = white.game_socket(id).await.unwrap();
    assert_eq!(b_ws.next_json().await.unwrap()["type"], "state");
    assert_eq!(w_ws.next_json().await.unwrap()["type"], "state");
    let state = state_until(&black, id, "both present", |s| {
        s["absent"].as_array().is_some_and(Vec::is_empty)
    })
    .await;
    assert_eq!(state["absent"], json!([]));
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("opponent_present"))
    );

    // White closes the page: Black's socket hears of it, with the claim 60 s away.
    time.advance(5_000);
    w_ws.close().await.unwrap();
    drop(w_ws);
    let m = b_ws
        .next_matching(|m| m["type"] == "presence" && m["state"]["absent"] != json!([]))
        .await
        .unwrap();
    assert_eq!(
        m["state"]["absent"],
        json!([{"color": "white", "absent_ms": 0, "claim_in_ms": 60_000}])
    );
    assert_eq!(
        m["version"], 2,
        "presence changes no version (the join and E5 did)"
    );
    time.advance(30_000);
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("grace_not_over"))
    );
    assert_eq!(body["claim_in_ms"], 30_000, "{body}");
    // Over the socket too.
    b_ws.send_json(&json!({"type": "claim", "ref": 7}))
        .await
        .unwrap();
    let m = b_ws.next_matching(|m| m["type"] == "error").await.unwrap();
    assert_eq!(
        (m["ref"].as_i64(), m["reason"].as_str()),
        (Some(7), Some("grace_not_over"))
    );
    assert_eq!(m["claim_in_ms"], 30_000);

    // White comes back (a presence event) and leaves again: the grace period starts over.
    let w_ws = white.game_socket(id).await.unwrap();
    let m = b_ws
        .next_matching(|m| m["type"] == "presence")
        .await
        .unwrap();
    assert_eq!(m["state"]["absent"], json!([]));
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("opponent_present"))
    );
    drop(w_ws);
    let m = b_ws
        .next_matching(|m| m["type"] == "presence" && m["state"]["absent"] != json!([]))
        .await
        .unwrap();
    assert_eq!(m["state"]["absent"][0]["claim_in_ms"], 60_000);
    time.advance(59_999);
    let (status, body) = claim(&black, id).await;
    assert_eq!((status, body["claim_in_ms"].as_u64()), (409, Some(1)));
    // Neither a spectator nor the absent player's own claim counts.
    let cat = guest(&running, "cat").await;
    let (status, body) = claim(&cat, id).await;
    assert_eq!((status, body["reason"].as_str()), (403, Some("not_seated")));
    time.advance(1);
    // The end of the grace period is an event of its own: no client has to count down.
    let m = b_ws
        .next_matching(|m| m["type"] == "presence" && m["state"]["absent"][0]["claim_in_ms"] == 0)
        .await
        .unwrap();
    assert_eq!(m["state"]["absent"][0]["color"], "white");
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["absent"][0]["claim_in_ms"], 0, "{state}");
    let (status, state) = claim(&black, id).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["result"], "B+F");
    assert_eq!(state["absent"], json!([]));
    assert_eq!(
        state["moves"].as_array().unwrap().last().unwrap(),
        &json!({"number": 2, "color": "black", "move": "claim"})
    );
    let m = b_ws.next_matching(|m| m["type"] == "claim").await.unwrap();
    assert_eq!(m["state"]["result"], "B+F");
    let (status, body) = claim(&black, id).await;
    assert_eq!((status, body["reason"].as_str()), (422, Some("game_over")));
    drop(b_ws);

    // An untimed game has its own, far longer absence (`an_untimed_game_is_claimed_after_days_of_absence`);
    // games against the computer have nothing to claim.
    let (untimed, _, _) = {
        let id = table(&black, "chinese:size=9", "black", "anyone").await["id"]
            .as_i64()
            .unwrap();
        white
            .post(&format!("/api/games/{id}/join"), json!({}))
            .await
            .unwrap();
        (id, (), ())
    };
    let (status, body) = black
        .post(&format!("/api/games/{untimed}/claim"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (409, Some("no_moves")));
    let (status, table) = black
        .post(
            "/api/games",
            json!({"rules": "chinese:size=9", "color": "white", "opponent": "bot", "bot": "simple", "time": "fischer:10m+10s"}),
        )
        .await.unwrap();
    assert_eq!(status, 201, "{table}");
    let bot_game = table["id"].as_i64().unwrap();
    time.advance(100_000);
    let (status, body) = black
        .post(&format!("/api/games/{bot_game}/claim"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("opponent_present"))
    );
    // A correspondence-scale control has no grace period.
    let (corr, state) = timed(&black, &white, "chinese:size=9", "absolute:3d").await;
    assert_eq!(state["absent"], json!([]));
    time.advance(1_000_000);
    let (status, body) = white
        .post(&format!("/api/games/{corr}/claim"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (422, Some("no_claim")));
    running.stop().await.unwrap();

    // The claim is stored like the other actions.
    let running = server_at(dir.path(), &time).await;
    let c = anonymous(&running);
    let (_, state) = c.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["result"], "B+F");
    running.stop().await.unwrap();
}

/// An untimed game has no grace period but a long absence (7 days by default): the opponent of the player it
/// waits for, away that long, may claim it, as in a timed game (`B+F`/`W+F`). The absence counts from when the
/// game began waiting for them; a player it does not wait for holds nobody up and cannot be claimed against.
#[tokio::test]
async fn an_untimed_game_is_claimed_after_days_of_absence() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let cat = guest(&running, "cat").await;
    let id = table(&black, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(white.join(id, None).await.unwrap().0, 200);
    // Nobody has moved: nothing to claim, however long.
    time.advance(8 * DAY_MS);
    // White keeps her session (unused for 14 days it lapses) without looking at the game.
    assert!(white.get("/api/session").await.unwrap().1["user"].is_object());
    assert!(cat.get("/api/session").await.unwrap().1["user"].is_object());
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("no_moves")),
        "{body}"
    );
    let (status, state) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 200, "{state}");
    // The game waits for White, who has no socket open: only White is listed, a week from Black's move.
    assert_eq!(
        state["absent"],
        json!([{"color": "white", "absent_ms": 0, "claim_in_ms": 7 * DAY_MS}])
    );
    time.advance(6 * DAY_MS);
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (
            status,
            body["reason"].as_str(),
            body["claim_in_ms"].as_u64()
        ),
        (409, Some("grace_not_over"), Some(DAY_MS)),
        "{body}"
    );
    time.advance(DAY_MS - 1);
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["claim_in_ms"].as_u64()),
        (409, Some(1)),
        "{body}"
    );
    // Nor may White, the absent player: the game waits for her, not for Black (who is away too).
    let (status, body) = claim(&white, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("not_their_turn")),
        "{body}"
    );
    // Black's page hears when the claim opens.
    let mut b_ws = black.game_socket(id).await.unwrap();
    assert_eq!(b_ws.next_json().await.unwrap()["type"], "state");
    time.advance(1);
    let m = b_ws
        .next_matching(|m| m["type"] == "presence" && m["state"]["absent"][0]["claim_in_ms"] == 0)
        .await
        .unwrap();
    assert_eq!(m["state"]["absent"][0]["color"], "white", "{m}");
    // Black's socket makes him present; a spectator may not claim.
    let (status, body) = claim(&cat, id).await;
    assert_eq!((status, body["reason"].as_str()), (403, Some("not_seated")));
    let (status, state) = claim(&black, id).await;
    assert_eq!(
        (status, state["result"].as_str()),
        (200, Some("B+F")),
        "{state}"
    );
    assert_eq!(
        state["moves"].as_array().unwrap().last().unwrap(),
        &json!({"number": 2, "color": "black", "move": "claim"})
    );
    drop(b_ws);

    // A player's absence counts from when the game began waiting for them: Black, away since his move, is
    // awaited only from White's answer six days later.
    let id = table(&black, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(white.join(id, None).await.unwrap().0, 200);
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    time.advance(6 * DAY_MS);
    // White may not claim while it is White's own turn, however long Black has been away.
    let (status, body) = claim(&white, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("not_their_turn")),
        "{body}"
    );
    assert_eq!(white.play(id, "C3").await.unwrap().0, 200);
    time.advance(7 * DAY_MS - 1);
    let (status, body) = claim(&white, id).await;
    assert_eq!(
        (
            status,
            body["reason"].as_str(),
            body["claim_in_ms"].as_u64()
        ),
        (409, Some("grace_not_over"), Some(1)),
        "{body}"
    );
    // Black, the absent player, may not claim against White either.
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("not_their_turn")),
        "{body}"
    );
    time.advance(1);
    let (status, state) = claim(&white, id).await;
    assert_eq!(
        (status, state["result"].as_str()),
        (200, Some("W+F")),
        "{state}"
    );
    running.stop().await.unwrap();
}

/// A game both players sit at and nobody has moved in: either player may abort it (it ends without a result
/// and is gone, its watchers told), nobody may claim it; once a move is played it can only be resigned.
#[tokio::test]
async fn a_game_nobody_has_moved_in_is_aborted() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let stranger = guest(&running, "stranger").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "fischer:10m+10s").await;
    // White is away long past the grace period, but with no move played there is nothing to claim.
    time.advance(61_000);
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("no_moves")),
        "{body}"
    );
    let (status, body) = stranger
        .post(&format!("/api/games/{id}/abort"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (403, Some("not_seated")),
        "{body}"
    );
    let mut watcher = anonymous(&running).game_socket(id).await.unwrap();
    let first = watcher.next_json().await.unwrap();
    assert_eq!(first["type"], "state");
    let (status, body) = white
        .post(&format!("/api/games/{id}/abort"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["aborted"].as_i64()),
        (200, Some(id)),
        "{body}"
    );
    let m = watcher
        .next_matching(|m| m["type"] == "aborted")
        .await
        .unwrap();
    assert_eq!(m["version"], first["version"], "aborting is no action: {m}");
    let (status, _) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(status, 404);
    let (_, lobby) = black.get("/api/lobby").await.unwrap();
    for list in ["open", "playing"] {
        let ids: Vec<i64> = lobby[list]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|g| g["id"].as_i64())
            .collect();
        assert!(!ids.contains(&id), "{list}: {lobby}");
    }
    let aborted = id;

    // After a move: refused, and the game goes on; an open table is cancelled, not aborted.
    let (id, _) = timed(&black, &white, "chinese:size=9", "fischer:10m+10s").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    let (_, before) = black.get(&format!("/api/games/{id}")).await.unwrap();
    let (status, body) = black
        .post(&format!("/api/games/{id}/abort"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("moved")),
        "{body}"
    );
    assert_eq!(
        black.get(&format!("/api/games/{id}")).await.unwrap().1,
        before
    );
    let open = table(&black, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    let (status, body) = black
        .post(&format!("/api/games/{open}/abort"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (422, Some("not_started")),
        "{body}"
    );
    // An aborted game stays gone after a restart.
    running.stop().await.unwrap();
    let running = server_at(dir.path(), &time).await;
    let c = anonymous(&running);
    assert_eq!(
        c.get(&format!("/api/games/{aborted}")).await.unwrap().0,
        404
    );
    assert_eq!(c.get(&format!("/api/games/{id}")).await.unwrap().0, 200);
    running.stop().await.unwrap();
}

/// A client without a socket (a bot over HTTP) is at the board when it asks for the game: each look starts its
/// grace period again, and a look after its opponent's claim opened closes the claim, with a presence event.
#[tokio::test]
async fn a_player_who_polls_over_http_is_present() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "socket").await;
    let white = guest(&running, "poller").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "fischer:10m+10s").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    let mut b_ws = black.game_socket(id).await.unwrap();
    assert_eq!(b_ws.next_json().await.unwrap()["type"], "state");
    // Black is at the board on every node before the time moves (on a site of several, the socket's node tells
    // the others within milliseconds; the manual time would otherwise leap ahead of the news).
    state_until(&white, id, "Black present", |s| {
        s["absent"]
            .as_array()
            .is_some_and(|a| a.iter().all(|p| p["color"] != "black"))
    })
    .await;
    let url = format!("/api/games/{id}");
    // White has no socket; looking every 50 s keeps the claim away, and Black's page hears of each look (its
    // countdown would otherwise reach 0 with no claim to make).
    for _ in 0..3 {
        time.advance(50_000);
        let (_, state) = white.get(&url).await.unwrap();
        let absent = json!([{"color": "white", "absent_ms": 0, "claim_in_ms": 60_000}]);
        assert_eq!(state["absent"], absent, "{state}");
        let m = b_ws
            .next_matching(|m| m["type"] == "presence")
            .await
            .unwrap();
        assert_eq!(m["state"]["absent"], absent, "{m}");
        let (status, body) = claim(&black, id).await;
        assert_eq!(
            (
                status,
                body["reason"].as_str(),
                body["claim_in_ms"].as_u64()
            ),
            (409, Some("grace_not_over"), Some(60_000))
        );
    }
    // A spectator's look is not White's.
    let cat = guest(&running, "cat").await;
    time.advance(60_000);
    let (_, state) = cat.get(&url).await.unwrap();
    assert_eq!(state["absent"][0]["claim_in_ms"], 0, "{state}");
    let m = b_ws
        .next_matching(|m| m["type"] == "presence" && m["state"]["absent"][0]["claim_in_ms"] == 0)
        .await
        .unwrap();
    assert_eq!(m["state"]["absent"][0]["color"], "white");
    // White looks again: the claim closes, Black hears it, and the grace period's end is announced again.
    white.get(&url).await.unwrap();
    let m = b_ws
        .next_matching(|m| m["type"] == "presence")
        .await
        .unwrap();
    assert_eq!(m["state"]["absent"][0]["claim_in_ms"], 60_000, "{m}");
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("grace_not_over"))
    );
    time.advance(60_000);
    let m = b_ws
        .next_matching(|m| m["type"] == "presence")
        .await
        .unwrap();
    assert_eq!(m["state"]["absent"][0]["claim_in_ms"], 0, "{m}");
    let (status, state) = claim(&black, id).await;
    assert_eq!((status, state["result"].as_str()), (200, Some("B+F")));
    running.stop().await.unwrap();
}

#[tokio::test]
async fn after_a_restart_the_grace_period_starts_again() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, state) = timed(&black, &white, "chinese:size=9", "byoyomi:10m+5x30s").await;
    // Nobody has a socket open: both are absent from the start of the game.
    assert_eq!(state["absent"].as_array().unwrap().len(), 2, "{state}");
    let (status, _) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 200);
    time.advance(70_000);
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(
        state["absent"][1],
        json!({"color": "white", "absent_ms": 70_000, "claim_in_ms": 0})
    );
    running.stop().await.unwrap();

    // White's claimable absence does not survive the server's: the grace period runs from the restart.
    time.advance(10_000);
    let running = server_at(dir.path(), &time).await;
    let black = black.at(&base(&running)).unwrap();
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(
        state["absent"],
        json!([
            {"color": "black", "absent_ms": 0, "claim_in_ms": 60_000},
            {"color": "white", "absent_ms": 0, "claim_in_ms": 60_000},
        ])
    );
    let (status, body) = black
        .post(&format!("/api/games/{id}/claim"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (
            status,
            body["reason"].as_str(),
            body["claim_in_ms"].as_u64()
        ),
        (409, Some("grace_not_over"), Some(60_000))
    );
    time.advance(60_000);
    let (status, state) = black
        .post(&format!("/api/games/{id}/claim"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, state["result"].as_str()),
        (200, Some("B+F")),
        "{state}"
    );
    running.stop().await.unwrap();
}

#[tokio::test]
async fn the_sgf_of_a_timed_game_has_the_time_left_after_each_move() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "byoyomi:10s+3x5s").await;
    // Black's first move: no time (no clock runs before it). White: 4 s of 10 in main time. Black: all 10 s of
    // main time and 2 s of a period (the period stays whole). White: the last 6 s of main time and 11 s more:
    // two periods used up, the third whole again.
    for (player, wait, mv) in [
        (&black, 4_000, "E5"),
        (&white, 4_000, "D5"),
        (&black, 12_000, "E4"),
        (&white, 17_000, "D4"),
    ] {
        time.advance(wait);
        let (status, state) = player.play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{state}");
    }
    let sgf = black
        .get_text(&format!("/api/games/{id}/sgf"))
        .await
        .unwrap()
        .1;
    for part in [
        "TM[10]",
        "OT[3x5 byo-yomi]",
        ";B[ee]BL[10]",
        ";W[de]WL[6]",
        ";B[ef]BL[5]OB[3]",
        ";W[df]WL[5]OW[1]",
    ] {
        assert!(sgf.contains(part), "{part} in {sgf}");
    }
    // An untimed game's record has none of these.
    let (untimed, _, _) = {
        let id = table(&black, "chinese:size=9", "black", "anyone").await["id"]
            .as_i64()
            .unwrap();
        white
            .post(&format!("/api/games/{id}/join"), json!({}))
            .await
            .unwrap();
        (id, (), ())
    };
    assert_eq!(black.play(untimed, "E5").await.unwrap().0, 200);
    let sgf = black
        .get_text(&format!("/api/games/{untimed}/sgf"))
        .await
        .unwrap()
        .1;
    assert!(!sgf.contains("BL[") && !sgf.contains("TM["), "{sgf}");
    running.stop().await.unwrap();
}
