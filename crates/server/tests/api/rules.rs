//! Rulings the server passes on: handicap placement, superko and its refusals, voids, counts under every ruleset.

use super::*;

/// A handicap in the table's rules is played by its placement: White's forced passes (ideal), fixed stones.
#[tokio::test]
async fn a_table_handicap_is_honoured_by_its_placement() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "ideal:size=9,handicap=3").await;
    let (status, _) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 200);
    let (status, refused) = white.play(id, "C3").await.unwrap();
    assert_eq!(status, 422, "{refused}");
    assert_eq!(refused["reason"], "forced_pass");
    assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
    assert_eq!(black.play(id, "C7").await.unwrap().0, 200);
    assert_eq!(
        white.play(id, "C3").await.unwrap().1["reason"],
        "forced_pass"
    );
    assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
    assert_eq!(black.play(id, "G3").await.unwrap().0, 200);
    // Both forced passes made: White plays.
    assert_eq!(white.play(id, "C3").await.unwrap().0, 200);

    let (id, _black, white) = seated(&running, "chinese:size=9,handicap=4,placement=fixed").await;
    let (_, state) = white.get(&format!("/api/games/{id}")).await.unwrap();
    let stones: usize = state["board"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row.as_str().unwrap().matches('X').count())
        .sum();
    assert_eq!(stones, 4, "{state}");
    assert_eq!(
        white.play(id, "E5").await.unwrap().0,
        200,
        "White moves first"
    );
    running.stop().await.unwrap();
}

/// A superko refusal names the move after which the position it would repeat stood, with that position, over
/// HTTP and over the game's socket.
#[tokio::test]
async fn a_superko_refusal_names_the_position_it_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "chinese:size=5").await;
    let mut after_eight = Value::Null;
    for (k, (color, mv)) in [
        ("black", "C4"),
        ("white", "B4"),
        ("black", "D3"),
        ("white", "A3"),
        ("black", "C2"),
        ("white", "C3"),
        ("black", "pass"),
        ("white", "B2"),
        ("black", "B3"),
    ]
    .into_iter()
    .enumerate()
    {
        let (status, body) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{mv}: {body}");
        if k + 1 == 8 {
            after_eight = body["board"].clone();
        }
    }
    assert!(after_eight.is_array(), "the answer carries the board");
    // White's retake at C3 would make the position after move 8 (White's B2) again.
    let (status, refused) = white.play(id, "C3").await.unwrap();
    assert_eq!(status, 422, "{refused}");
    assert_eq!(refused["reason"], "ko");
    assert_eq!(refused["repeats"], 8, "{refused}");
    assert_eq!(refused["board"], after_eight);
    assert!(
        refused["error"].as_str().unwrap().contains("after move 8"),
        "{refused}"
    );
    // The same over White's socket.
    let mut ws = white.game_socket(id).await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["type"], "state");
    ws.send_text(r#"{"type":"play","move":"C3","ref":1}"#)
        .await
        .unwrap();
    let refused = loop {
        let m = ws.next_json().await.unwrap();
        if m["type"] == "error" {
            break m;
        }
    };
    assert_eq!(
        (refused["ref"].clone(), refused["repeats"].clone()),
        (json!(1), json!(8))
    );
    assert_eq!(refused["board"], after_eight);
    // A simple ko refusal names nothing.
    let (id, black, white) = seated(&running, "japanese:size=5").await;
    for (color, mv) in [
        ("black", "C4"),
        ("white", "B4"),
        ("black", "D3"),
        ("white", "A3"),
        ("black", "C2"),
        ("white", "C3"),
        ("black", "pass"),
        ("white", "B2"),
        ("black", "B3"),
    ] {
        assert_eq!(by(color, &black, &white).play(id, mv).await.unwrap().0, 200);
    }
    let (_, refused) = white.play(id, "C3").await.unwrap();
    assert_eq!(refused["reason"], "ko");
    assert!(refused.get("repeats").is_none(), "{refused}");
    running.stop().await.unwrap();
}

/// The exploit that voided won games: the winner accepts the count, the loser disputes, both pass again, and the
/// position with the same player to move comes back a third time. Passes are no cycle of plays: the game stays in
/// the count however often that is done, and ends with its score once both accept.
#[tokio::test]
async fn a_dispute_and_passes_never_void_a_won_game() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    for spec in ["japanese:size=5", "korean:size=5"] {
        let (id, black, white) = seated(&running, spec).await;
        assert_eq!(black.play(id, "C3").await.unwrap().0, 200);
        assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
        assert_eq!(black.play(id, "pass").await.unwrap().0, 200);
        for round in 0..4 {
            let (status, body) = black
                .post(&format!("/api/games/{id}/accept"), json!({}))
                .await
                .unwrap();
            assert_eq!(status, 200, "{spec} round {round}: {body}");
            let (status, body) = white
                .post(&format!("/api/games/{id}/dispute"), json!({}))
                .await
                .unwrap();
            assert_eq!(status, 200, "{spec} round {round}: {body}");
            // Black passed last, so White moves first in the resumed play.
            assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
            let (status, state) = black.play(id, "pass").await.unwrap();
            assert_eq!(status, 200, "{spec} round {round}: {state}");
            assert_ne!(state["result"], "Void", "{spec} round {round}: {state}");
            assert_eq!(state["status"], "marking", "{spec} round {round}: {state}");
        }
        for player in [&black, &white] {
            player
                .post(&format!("/api/games/{id}/accept"), json!({}))
                .await
                .unwrap();
        }
        let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
        assert_eq!(state["status"], "over", "{spec}: {state}");
        assert!(
            state["result"].as_str().unwrap().starts_with("B+"),
            "{spec}: {state}"
        );
    }
    running.stop().await.unwrap();
}

/// A cycle of plays (found by random play on 4×4) voids the game at the third occurrence of its state, and the
/// game names the moves after which that state stood before.
#[tokio::test]
async fn a_void_by_repetition_names_the_repeated_state() {
    const CYCLE: [&str; 27] = [
        "C4", "C3", "D3", "D1", "D4", "B1", "C1", "B3", "B4", "A1", "A3", "D2", "A4", "B2", "C2",
        "D2", "D1", "D2", "C2", "D1", "C1", "D2", "D1", "D2", "C2", "D1", "C1",
    ];
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "japanese:size=4").await;
    // The same plays in the rules crate: the earlier occurrences of the final state.
    let mut game = Game::new("japanese:size=4".parse().unwrap()).unwrap();
    let mut state = Value::Null;
    for (k, mv) in CYCLE.iter().enumerate() {
        let color = if k % 2 == 0 { "black" } else { "white" };
        assert_eq!(state["result"], Value::Null, "move {k}: {state}");
        let (status, body) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "move {} {mv}: {body}", k + 1);
        state = body;
        let x = mv.as_bytes()[0] - b'A';
        let y = 4 - (mv.as_bytes()[1] - b'0');
        game.play_move(Move::Play(Point::new(x, y))).unwrap();
    }
    assert_eq!(state["result"], "Void", "{state}");
    let turns = game.repetition_turns();
    assert_eq!(turns.len(), 2, "{turns:?}");
    assert_eq!(state["repeated"], json!(turns), "{state}");
    // A game that ended otherwise has none.
    let (id, black, _white) = seated(&running, "japanese:size=5").await;
    let (_, body) = black
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert!(body.get("repeated").is_none(), "{body}");
    running.stop().await.unwrap();
}

/// A finished game counted under its own rules and every other, its own first; refused while in play.
#[tokio::test]
async fn a_finished_game_is_counted_under_every_ruleset() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "chinese:size=9,komi=7").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    let (status, body) = black
        .get(&format!("/api/games/{id}/rulesets"))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("not_over")),
        "{body}"
    );
    assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
    assert_eq!(black.play(id, "pass").await.unwrap().0, 200);
    for c in [&black, &white] {
        let (status, body) = c
            .post(&format!("/api/games/{id}/accept"), json!({}))
            .await
            .unwrap();
        assert_eq!(status, 200, "{body}");
    }
    let (status, body) = black
        .get(&format!("/api/games/{id}/rulesets"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    let counts = body["counts"].as_array().unwrap();
    assert_eq!(counts.len(), 1 + tesuji_rules::compare::COMPARED.len());
    // The game's own count first: Black's 81 points against komi 7.
    assert_eq!(counts[0]["result"], "B+74");
    assert_eq!(
        (counts[0]["black"].as_i64(), counts[0]["white"].as_i64()),
        (Some(162), Some(14))
    );
    // Area counting agrees; territory counting gives Black 80 points; the ideal rules both players' area.
    for c in counts {
        let spec = c["spec"].as_str().unwrap();
        let expected = match spec {
            "japanese" | "korean" | "bga:counting=japanese,aga=off" => "B+73",
            // With AGA rules on, territory counting takes pass stones (White's pass, and White's last pass
            // after Black's) against Black's: the same margin as area counting, as everywhere else.
            _ => "B+74",
        };
        assert_eq!(c["result"], expected, "{spec}: {c}");
        let rules: tesuji_rules::Rules = c["rules"].as_str().unwrap().parse().unwrap();
        assert_eq!(
            rules.komi,
            tesuji_rules::Komi::white(14),
            "{spec}: the game's komi"
        );
    }
    running.stop().await.unwrap();
}

/// A player's games a page at a time: `?before=ID&limit=N`, newest first, `next` where the following page starts;
/// no game repeated or skipped, also while games are being added; bad values are a 400 with a reason.
#[tokio::test]
async fn a_players_games_come_in_pages() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let black = guest(&running, "pager").await;
    let mut ids = Vec::new();
    for _ in 0..7 {
        ids.push(
            table(&black, "chinese:size=9", "black", "anyone").await["id"]
                .as_i64()
                .unwrap(),
        );
    }
    let me = black.get("/api/session").await.unwrap().1["user"]["id"]
        .as_i64()
        .unwrap();
    let mut seen = Vec::new();
    let mut path = format!("/api/users/{me}/games?limit=3");
    let mut pages = 0;
    loop {
        let (status, page) = black.get(&path).await.unwrap();
        assert_eq!(status, 200, "{page}");
        let games = page["games"].as_array().unwrap();
        assert!(games.len() <= 3, "{page}");
        seen.extend(games.iter().map(|g| g["id"].as_i64().unwrap()));
        pages += 1;
        if pages == 1 {
            // A game added meanwhile is newer than every page still to come: it repeats nothing and skips nothing.
            table(&black, "chinese:size=9", "black", "anyone").await;
        }
        match page["next"].as_i64() {
            Some(next) => {
                assert_eq!(Some(next), seen.last().copied());
                path = format!("/api/users/{me}/games?limit=3&before={next}");
            }
            None => break,
        }
    }
    ids.reverse();
    assert_eq!(seen, ids, "every game once, newest first");
    assert_eq!(pages, 3);
    // The default page holds them all here, with no next page.
    let (_, all) = black.get(&format!("/api/users/{me}/games")).await.unwrap();
    assert_eq!(all["games"].as_array().unwrap().len(), 8);
    assert!(all["next"].is_null());
    for bad in [
        "limit=0",
        "limit=101",
        "limit=x",
        "before=-1",
        "before=0",
        "before=99999999999999999999",
        "limit=1&limit=2",
    ] {
        let (status, body) = black
            .get(&format!("/api/users/{me}/games?{bad}"))
            .await
            .unwrap();
        assert_eq!(
            (status, body["reason"].as_str()),
            (400, Some("bad_request")),
            "{bad}: {body}"
        );
    }
    running.stop().await.unwrap();
}
