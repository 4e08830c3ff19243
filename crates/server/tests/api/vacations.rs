//! Vacations.

use super::*;

/// Client `c`'s vacation request (`days`, or `None` to come back): the answer's status and body.
async fn vacation(c: &Client, days: Option<u32>) -> (u16, Value) {
    match days {
        Some(days) => c.post("/api/vacation", json!({ "days": days })).await,
        None => c.post("/api/vacation/end", json!({})).await,
    }
    .unwrap()
}

/// White's time and vacation as `c` sees game `id`, once its node agrees with `away_ms` (another node hears of a
/// vacation over NATS).
async fn white_away(c: &Client, id: i64, away_ms: Option<u64>) -> Value {
    state_until(c, id, "white's vacation seen", |s| {
        s["clock"]["white"]["away_ms"].as_u64() == away_ms
    })
    .await
}

/// A vacation stops the player's correspondence clocks exactly while it lasts, only on their own turns (the
/// opponent's clock runs), not their clocks of games at one sitting; a vacation ended early gives the rest back;
/// the turn's time is stored without it (a restart agrees) and the flag falls exactly that much later.
#[tokio::test]
async fn a_vacation_stops_the_clock_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "ann").await;
    let white = guest(&running, "bob").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "absolute:5d").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);

    // Bob is away from day 1 to day 3, on his own turn: his clock stands still meanwhile, on every node.
    time.advance(DAY_MS);
    let (status, taken) = vacation(&white, Some(2)).await;
    assert_eq!(status, 200, "{taken}");
    assert_eq!(
        (&taken["current"]["start_ms"], &taken["current"]["end_ms"]),
        (&json!(DAY_MS), &json!(3 * DAY_MS))
    );
    assert_eq!(
        (
            taken["allowance_days"].as_u64(),
            taken["left_days"].as_u64()
        ),
        (Some(30), Some(28))
    );
    let (status, again) = vacation(&white, Some(1)).await;
    assert_eq!(
        (status, again["reason"].as_str()),
        (409, Some("on_vacation"))
    );
    for c in [&black, &white] {
        let state = white_away(c, id, Some(2 * DAY_MS)).await;
        assert_eq!(main_ms(&state, "white"), 4 * DAY_MS);
        assert_eq!(state["clock"]["running"], "white");
    }
    time.advance(DAY_MS);
    let state = white_away(&black, id, Some(DAY_MS)).await;
    assert_eq!(main_ms(&state, "white"), 4 * DAY_MS);
    // Back on day 3, Bob moves on day 4: two days charged.
    time.advance(2 * DAY_MS);
    let (status, state) = white.play(id, "D5").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(main_ms(&state, "white"), 3 * DAY_MS);

    // Away again for Ann's turn (day 4 to 5): her clock runs all the same.
    let (status, _) = vacation(&white, Some(1)).await;
    assert_eq!(status, 200);
    white_away(&black, id, Some(DAY_MS)).await;
    time.advance(DAY_MS);
    let state = white_away(&black, id, None).await;
    assert_eq!(main_ms(&state, "black"), 4 * DAY_MS);
    assert_eq!(black.play(id, "E4").await.unwrap().0, 200);

    // On day 5 Bob leaves for ten days, with a blitz game too, whose clock does not stop; he comes back on
    // day 6. His correspondence clock runs again from then: 3 days, and the second of lag allowed, to the flag.
    let (blitz, _) = timed(&black, &white, "chinese:size=9", "absolute:10m").await;
    assert_eq!(black.play(blitz, "E5").await.unwrap().0, 200);
    let (status, _) = vacation(&white, Some(10)).await;
    assert_eq!(status, 200);
    white_away(&black, id, Some(10 * DAY_MS)).await;
    let state = white_away(&black, blitz, None).await;
    assert_eq!(state["clock"]["running"], "white");
    time.advance(DAY_MS);
    let state = state_until(&black, blitz, "the blitz game lost on time", |s| {
        s["result"] == "B+T"
    })
    .await;
    assert_eq!(state["clock"]["white"]["flagged"], true);
    let (status, back) = vacation(&white, None).await;
    assert_eq!(status, 200, "{back}");
    assert_eq!(back["current"], Value::Null);
    assert_eq!(back["used_ms"].as_u64(), Some(4 * DAY_MS));
    assert_eq!(back["left_days"].as_u64(), Some(26));
    let (status, body) = vacation(&white, None).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("not_on_vacation"))
    );
    let state = white_away(&black, id, None).await;
    assert_eq!(main_ms(&state, "white"), 3 * DAY_MS);
    let mut ws = anonymous(&running).game_socket(id).await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["type"], "state");
    time.advance(3 * DAY_MS + 1_000);
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["result"], Value::Null, "{state}");
    assert_eq!(main_ms(&state, "white"), 0);
    time.advance(1);
    let m = ws.next_matching(|m| m["type"] == "timeout").await.unwrap();
    assert_eq!(m["state"]["result"], "B+T");

    // The allowance: 26 whole days left this year; a vacation is 1 to 30 whole days.
    for (days, status, reason) in [(27, 422, "vacation_too_long"), (0, 400, "bad_request")] {
        let (got, body) = vacation(&white, Some(days)).await;
        assert_eq!(
            (got, body["reason"].as_str()),
            (status, Some(reason)),
            "{days}"
        );
    }
    let (status, view) = white.get("/api/vacation").await.unwrap();
    assert_eq!((status, view["left_days"].as_u64()), (200, Some(26)));
    assert_eq!(
        anonymous(&running).get("/api/vacation").await.unwrap().0,
        401
    );
    drop(ws);
    running.stop().await.unwrap();

    // Stored without the vacations: the record after a restart has White's three days left after D5.
    let running = server_at(dir.path(), &time).await;
    let (status, sgf) = anonymous(&running)
        .get_text(&format!("/api/games/{id}/sgf"))
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert!(sgf.contains("W[de]WL[259200"), "{sgf}");
    running.stop().await.unwrap();
}
