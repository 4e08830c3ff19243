//! Taking back a move.

use super::*;

#[tokio::test]
async fn an_undo_takes_a_move_back_and_the_ko_is_judged_as_if_it_was_never_played() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    // Positional superko: were the taken-back capture's position still in the history, taking the ko again
    // would repeat it.
    let (status, body) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "time": "fischer:5m+10s"}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_i64().unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    assert_eq!(undo_step(&ann, id, "undo").await.1["reason"], "no_undo");
    // A ko at E5/F5: White's E5 in Black's mouth, Black takes it at F5.
    for (k, mv) in ["D5", "F4", "E4", "F6", "E6", "G5", "A9", "E5"]
        .into_iter()
        .enumerate()
    {
        let (status, body) = by(if k % 2 == 0 { "black" } else { "white" }, &ann, &bob)
            .play(id, mv)
            .await
            .unwrap();
        assert_eq!(status, 200, "{mv}: {body}");
    }
    let (_, before) = ann.game(id).await.unwrap();
    assert_eq!(ann.play(id, "F5").await.unwrap().0, 200);
    let mut watching = bob.game_socket(id).await.unwrap();

    // Only one's own last move, one request at a time, answered by the opponent only.
    let (status, body) = undo_step(&bob, id, "undo").await;
    assert_eq!(
        (status, &body["reason"]),
        (409, &json!("no_undo")),
        "{body}"
    );
    let (status, body) = undo_step(&bob, id, "undo/accept").await;
    assert_eq!(
        (status, &body["reason"]),
        (409, &json!("no_undo")),
        "{body}"
    );
    let (status, asked) = undo_step(&ann, id, "undo").await;
    assert_eq!(status, 200, "{asked}");
    assert_eq!(asked["undo_asked"], "black");
    let event = watching
        .next_matching(|m| m["type"] == "undo")
        .await
        .unwrap();
    assert_eq!(event["state"]["undo_asked"], "black");
    assert_eq!(undo_step(&ann, id, "undo").await.1["reason"], "no_undo");
    assert_eq!(
        undo_step(&ann, id, "undo/accept").await.1["reason"],
        "no_undo"
    );

    // Declined: the move stands, and may be asked about again after the pause (tests/api/limits.rs).
    let (status, declined) = undo_step(&bob, id, "undo/decline").await;
    assert_eq!(status, 200, "{declined}");
    assert_eq!(declined["undo_asked"], Value::Null);
    assert_eq!(declined["last_move"], "F5");
    time.advance(30_000);
    assert_eq!(undo_step(&ann, id, "undo").await.0, 200);

    // Accepted: the board, the player to move, the captures and the running clock are as before F5.
    let (status, after) = undo_step(&bob, id, "undo/accept").await;
    assert_eq!(status, 200, "{after}");
    for field in ["board", "to_move", "captures", "last_move"] {
        assert_eq!(after[field], before[field], "{field}");
    }
    assert_eq!(after["clock"]["running"], "black");
    let texts: Vec<&str> = after["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts[8..],
        ["F5", "undo", "undo-decline", "undo", "undo-accept"]
    );
    watching
        .next_matching(|m| m["type"] == "undo_accept")
        .await
        .unwrap();

    // Taking the ko again is legal (the taken-back capture left no position behind); White may not take it
    // straight back (the ko itself still holds).
    let (status, body) = ann.play(id, "F5").await.unwrap();
    assert_eq!(status, 200, "{body}");
    let (status, body) = bob.play(id, "E5").await.unwrap();
    assert_eq!((status, &body["reason"]), (422, &json!("ko")), "{body}");

    // The record leaves the taken-back move out; a restart replays the same game.
    let (_, sgf) = ann.get_text(&format!("/api/games/{id}/sgf")).await.unwrap();
    assert_eq!(sgf.matches("B[fe]").count(), 1, "{sgf}");
    assert_eq!(
        sgf.matches(";B[").count() + sgf.matches(";W[").count(),
        9,
        "{sgf}"
    );
    assert_eq!(undo_step(&ann, id, "undo").await.0, 200);
    let (_, asked) = ann.game(id).await.unwrap();
    running.stop().await.unwrap();
    let running = server_at(dir.path(), &time).await;
    let (_, again) = anonymous(&running).game(id).await.unwrap();
    for field in ["board", "to_move", "captures", "undo_asked", "move_count"] {
        assert_eq!(again[field], asked[field], "{field}");
    }
    running.stop().await.unwrap();
}

#[tokio::test]
async fn a_table_may_forbid_undo_and_a_move_leaves_a_request_unanswered() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let (_, created) = ann
        .create_game(json!({"rules": "japanese:size=9", "color": "black", "undo": false}))
        .await
        .unwrap();
    let strict = created["id"].as_i64().unwrap();
    assert_eq!(ann.game(strict).await.unwrap().1["undo"], false);
    assert_eq!(bob.join(strict, None).await.unwrap().0, 200);
    assert_eq!(ann.play(strict, "E5").await.unwrap().0, 200);
    let (status, body) = undo_step(&ann, strict, "undo").await;
    assert_eq!(
        (status, &body["reason"]),
        (409, &json!("no_undo")),
        "{body}"
    );
    assert!(
        body["error"].as_str().unwrap().contains("does not allow"),
        "{body}"
    );

    let (id, black, white) = seated(&running, "japanese:size=9").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    assert_eq!(undo_step(&black, id, "undo").await.0, 200);
    // White plays on instead of answering: the request lapses.
    let (status, state) = white.play(id, "C3").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["undo_asked"], Value::Null);
    assert_eq!(
        undo_step(&white, id, "undo/accept").await.1["reason"],
        "no_undo"
    );
    // A game whose first move was taken back is no longer unplayed: it cannot be aborted.
    let (id, black, white) = seated(&running, "japanese:size=9").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    assert_eq!(undo_step(&black, id, "undo").await.0, 200);
    assert_eq!(undo_step(&white, id, "undo/accept").await.0, 200);
    let (status, body) = white
        .post(&format!("/api/games/{id}/abort"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, &body["reason"]), (409, &json!("moved")), "{body}");
    // Against the computer there is no taking back.
    let bot = table(&ann, "chinese:size=9", "black", "bot").await["id"].clone();
    let (_, state) = ann.get(&format!("/api/games/{bot}")).await.unwrap();
    assert_eq!(
        (&state["undo"], &state["status"]),
        (&json!(false), &json!("playing"))
    );
    running.stop().await.unwrap();
}

#[tokio::test]
async fn a_superko_refusal_in_a_timed_game_after_an_undo_names_the_move_as_listed() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, _) = timed(&black, &white, "chinese:size=5", "fischer:5m+10s").await;
    // Black's first move is taken back and played again: three actions more in the list than in the log.
    assert_eq!(black.play(id, "C4").await.unwrap().0, 200);
    assert_eq!(undo_step(&black, id, "undo").await.0, 200);
    assert_eq!(undo_step(&white, id, "undo/accept").await.0, 200);
    let mut after_b2 = Value::Null;
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
        let (status, body) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{mv}: {body}");
        if mv == "B2" {
            after_b2 = body["board"].clone();
            assert_eq!(body["move_count"], 11);
        }
    }
    // White's retake at C3 would make the position after White's B2 again: action 11 of the list.
    let (status, refused) = white.play(id, "C3").await.unwrap();
    assert_eq!(
        (status, &refused["reason"]),
        (422, &json!("ko")),
        "{refused}"
    );
    assert_eq!(refused["repeats"], 11, "{refused}");
    assert_eq!(refused["board"], after_b2);
    assert!(
        refused["error"].as_str().unwrap().contains("after move 11"),
        "{refused}"
    );
    running.stop().await.unwrap();
}
