//! The end of play: the estimate's first proposal, unsure stones, dead stones marked, accepted or disputed,
//! and the computer's answers.

use super::*;

/// The turn that ends play brings the server's first proposal with it: the estimate's dead stones, stored as the
/// server's `mark` for the player who ended play (`by: "server"`), and its unsure stones beside them. The lone stones at B5 and
/// H5 are dead: the estimate may call them dead or unsure, never alive.
#[tokio::test]
async fn the_estimate_makes_the_first_proposal() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "chinese:size=9,komi=0.5").await;
    // Black walls off columns A-D, White F-J; White's lone stone at B5 and Black's at H5 are dead.
    let mut turns = Vec::new();
    for row in 1..=9 {
        turns.push(("black", format!("D{row}")));
        turns.push(("white", format!("F{row}")));
    }
    turns.extend([
        ("black", "H5".to_owned()),
        ("white", "B5".to_owned()),
        ("black", "pass".to_owned()),
    ]);
    for (color, mv) in &turns {
        let (status, state) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{color} {mv}: {state}");
    }
    let mut ws = anonymous(&running).game_socket(id).await.unwrap();
    let (status, state) = white.play(id, "pass").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["phase"], "marking");
    let moves = state["moves"].as_array().unwrap();
    let last = moves.last().unwrap().clone();
    assert_eq!(
        (last["color"].as_str(), last["by"].as_str()),
        (Some("white"), Some("server")),
        "the proposal is made for the player who ended play, by the server"
    );
    // Only the server's proposal says so: the players' own actions have no `by`.
    assert!(
        moves[..moves.len() - 1]
            .iter()
            .all(|m| m.get("by").is_none()),
        "{state}"
    );
    // Watchers hear it as the server's too.
    let m = ws.next_matching(|m| m["type"] == "mark").await.unwrap();
    assert_eq!(m["action"], last, "{m}");
    let dead: Vec<String> = serde_json::from_value(state["dead"].clone()).unwrap();
    let unsure: Vec<String> = serde_json::from_value(state["unsure"].clone()).unwrap();
    let text: Vec<&str> = last["move"].as_str().unwrap().split(' ').collect();
    assert_eq!(text[0], "mark");
    assert_eq!(text[1..].to_vec(), dead, "{state}");
    for stone in ["B5", "H5"] {
        assert!(
            dead.iter().chain(&unsure).any(|p| p == stone),
            "{stone} is neither dead nor unsure: {state}"
        );
    }
    // Never a living stone proposed dead. (Unsure is allowed anywhere: the estimate may doubt what it cannot
    // settle, and the players decide.)
    for p in &dead {
        assert!(p == "B5" || p == "H5", "{p} is alive: {state}");
    }
    drop(ws);
    // A player's own mark is theirs, and a restart still tells the server's from it.
    let (status, marked) = black
        .post(&format!("/api/games/{id}/dead"), json!({"point": "D1"}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{marked}");
    let mine = marked["moves"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(mine["color"], "black");
    assert!(mine.get("by").is_none(), "{mine}");
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let black = black.at(&base(&running)).unwrap();
    let white = white.at(&base(&running)).unwrap();
    let (_, replayed) = anonymous(&running)
        .get(&format!("/api/games/{id}"))
        .await
        .unwrap();
    let replayed = replayed["moves"].as_array().unwrap().clone();
    assert_eq!(replayed[replayed.len() - 2], last);
    assert_eq!(replayed[replayed.len() - 1], mine);
    black
        .post(&format!("/api/games/{id}/dead"), json!({"point": "D1"}))
        .await
        .unwrap();
    // Accepting it scores it.
    black
        .post(&format!("/api/games/{id}/accept"), json!({}))
        .await
        .unwrap();
    let (_, state) = white
        .post(&format!("/api/games/{id}/accept"), json!({}))
        .await
        .unwrap();
    assert_eq!(state["status"], "over");
    assert_eq!(state["unsure"], json!([]));
    // The proposal replays like any mark.
    let (_, before) = black.get(&format!("/api/games/{id}")).await.unwrap();
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    assert_eq!(
        anonymous(&running)
            .get(&format!("/api/games/{id}"))
            .await
            .unwrap()
            .1,
        before
    );
    running.stop().await.unwrap();
}

/// The estimate's unsure stones are part of the marking phase from its first state on, also without the first
/// proposal, and a restart shows the same ones at once (they were once made in the background, so a restart
/// could show none for a while, and a watcher never heard of them).
#[tokio::test]
async fn unsure_stones_come_with_the_end_of_play_and_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let config = || ServerConfig {
        first_proposal: false,
        ..config(dir.path())
    };
    let running = start(config()).await.expect("server starts");
    let (id, black, white) = seated(&running, "aga:size=9").await;
    let mut ws = anonymous(&running).game_socket(id).await.unwrap();
    // Four scattered stones: nothing on this board is settled.
    for (color, mv) in [
        ("black", "E5"),
        ("white", "C3"),
        ("black", "E4"),
        ("white", "G7"),
        ("black", "pass"),
    ] {
        let (status, state) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{color} {mv}: {state}");
    }
    let (status, ended) = white.play(id, "pass").await.unwrap();
    assert_eq!(status, 200, "{ended}");
    assert_eq!(ended["phase"], "marking");
    assert_eq!(ended["dead"], json!([]), "no first proposal: {ended}");
    let unsure = ended["unsure"].clone();
    assert!(
        !unsure.as_array().unwrap().is_empty(),
        "the turn that ends play shows the unsure stones: {ended}"
    );
    let (_, now) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(now["unsure"], unsure, "{now}");
    // Watchers heard of them with the pass.
    let m = ws
        .next_matching(|m| m["state"]["phase"] == "marking")
        .await
        .unwrap();
    assert_eq!(m["type"], "move", "{m}");
    assert_eq!(m["state"]["unsure"], unsure, "{m}");
    drop(ws);
    running.stop().await.unwrap();
    let running = start(config()).await.expect("server restarts");
    let (_, after) = anonymous(&running)
        .get(&format!("/api/games/{id}"))
        .await
        .unwrap();
    assert_eq!(after["phase"], "marking");
    assert_eq!(
        after["unsure"], unsure,
        "the first look after a restart: {after}"
    );
    running.stop().await.unwrap();
}

#[tokio::test]
async fn dead_stones_are_marked_accepted_or_disputed() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "japanese:size=5,komi=0.5").await;
    to_marking(&black, &white, id).await;
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(
        (state["phase"].as_str(), state["status"].as_str()),
        (Some("marking"), Some("marking"))
    );

    // Moves are over; marking is for the seated players only.
    let (status, body) = black.play(id, "A1").await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (422, Some("not_playing"))
    );
    let spectator = guest(&running, "watcher").await;
    let (status, _) = spectator
        .post(&format!("/api/games/{id}/dead"), json!({"point": "E5"}))
        .await
        .unwrap();
    assert_eq!(status, 403);
    let (status, body) = white
        .post(&format!("/api/games/{id}/dead"), json!({"point": "Z9"}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );

    // The end of play brought the estimate's proposal: E5 dead. White toggles it alive and dead again; Black
    // accepts; then White; the count follows RULES.md §7.
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["dead"], json!(["E5"]), "{state}");
    let (status, state) = white
        .post(&format!("/api/games/{id}/dead"), json!({"point": "E5"}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["dead"], json!([]));
    let (status, state) = white
        .post(&format!("/api/games/{id}/dead"), json!({"point": "E5"}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["dead"], json!(["E5"]));
    assert_eq!(
        state["moves"].as_array().unwrap().last().unwrap()["move"],
        "mark E5"
    );
    let (_, state) = black
        .post(&format!("/api/games/{id}/accept"), json!({}))
        .await
        .unwrap();
    assert_eq!(state["accepted"], json!({"black": true, "white": false}));
    // A new proposal clears the acceptances.
    white
        .post(&format!("/api/games/{id}/dead"), json!({"point": "E5"}))
        .await
        .unwrap();
    let (_, state) = white
        .post(&format!("/api/games/{id}/dead"), json!({"point": "E5"}))
        .await
        .unwrap();
    assert_eq!(state["accepted"], json!({"black": false, "white": false}));
    black
        .post(&format!("/api/games/{id}/accept"), json!({}))
        .await
        .unwrap();
    let (status, state) = white
        .post(&format!("/api/games/{id}/accept"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["status"], "over");
    // Black: A1..A5 = 5 points; White: E1..E4 + E5 = 5 points and one prisoner, komi 0.5: W+1.5.
    assert_eq!(state["result"], "W+1.5");
    let score = &state["score"];
    assert_eq!(score["scoring"], "territory");
    assert_eq!(score["black"]["territory"], 5);
    assert_eq!(score["white"]["territory"], 5);
    assert_eq!(score["white"]["dead"], 1);
    assert_eq!(score["white"]["komi"], 1);
    assert_eq!(score["margin"], -3);

    // A dispute resumes play with the right player to move (the opponent of the last passer).
    let (id2, black2, white2) = seated(&running, "japanese:size=5").await;
    to_marking(&black2, &white2, id2).await;
    let (status, state) = black2
        .post(&format!("/api/games/{id2}/dispute"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["phase"], "playing");
    assert_eq!(state["to_move"], "white");
    assert_eq!(
        white2.play(id2, "D4").await.unwrap().1["reason"],
        "occupied"
    );
    assert_eq!(white2.play(id2, "pass").await.unwrap().0, 200);

    // A restart replays marks, acceptances and disputes.
    let (_, before) = black.get(&format!("/api/games/{id}")).await.unwrap();
    let (_, before2) = black.get(&format!("/api/games/{id2}")).await.unwrap();
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let c = anonymous(&running);
    assert_eq!(
        settled(&c.get(&format!("/api/games/{id}")).await.unwrap().1),
        settled(&before)
    );
    assert_eq!(
        settled(&c.get(&format!("/api/games/{id2}")).await.unwrap().1),
        settled(&before2)
    );
    running.stop().await.unwrap();
}

#[tokio::test]
async fn the_computer_answers_moves_and_accepts_the_count() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        actions_per_second: 10_000,
        ..Limits::default()
    };
    let running = server_with(dir.path(), limits).await;
    let ann = guest(&running, "ann").await;
    // Tree search answers too: Black at E5, the computer (1,000 playouts a move) replies.
    let (status, table) = ann
        .post(
            "/api/games",
            json!({"rules": "japanese:size=9", "color": "black", "opponent": "bot", "bot": "mcts-1"}),
        )
        .await.unwrap();
    assert_eq!(status, 201, "{table}");
    let id = table["id"].as_i64().unwrap();
    let mut ws = anonymous(&running).game_socket(id).await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["version"], 0);
    assert_eq!(ann.play(id, "E5").await.unwrap().0, 200);
    assert_eq!(ws.next_json().await.unwrap()["version"], 1);
    let reply = ws.next_json().await.unwrap();
    assert_eq!(
        (reply["version"].as_u64(), reply["action"]["color"].as_str()),
        (Some(2), Some("white"))
    );
    assert_eq!(reply["state"]["players"]["white"]["bot"], "mcts-1");
    let (status, body) = ann
        .post(
            "/api/games",
            json!({"rules": "chinese", "opponent": "bot", "bot": "deep-blue"}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    // The refusal names the strengths there are.
    let error = body["error"].as_str().unwrap();
    for bot in ["simple", "mcts-1", "mcts-2", "mcts-3", "mcts-4"] {
        assert!(error.contains(bot), "{error}");
    }
    // Every strength takes its seat, the strongest (three seconds a move on two threads) too; Black is to
    // move, so none of them thinks yet.
    for bot in ["mcts-2", "mcts-3", "mcts-4"] {
        let (status, table) = ann
            .create_game(
                json!({"rules": "chinese:size=9", "color": "black", "opponent": "bot", "bot": bot}),
            )
            .await
            .unwrap();
        assert_eq!(status, 201, "{table}");
        assert_eq!(table["state"]["status"], "playing");
        assert_eq!(table["state"]["players"]["white"]["bot"], bot);
    }

    // The beginner bot, played to the end.
    let (status, table) = ann
        .post(
            "/api/games",
            json!({"rules": "chinese:size=9", "color": "black", "opponent": "bot", "bot": "simple"}),
        )
        .await.unwrap();
    assert_eq!(status, 201, "{table}");
    let id = table["id"].as_i64().unwrap();
    assert_eq!(table["state"]["status"], "playing");
    assert_eq!(table["state"]["players"]["white"]["bot"], "simple");
    let mut ws = ann.game_socket(id).await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["version"], 0);
    let (status, _) = ann.play(id, "E5").await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(ws.next_json().await.unwrap()["version"], 1);
    let reply = ws.next_json().await.unwrap();
    assert_eq!(
        (reply["version"].as_u64(), reply["action"]["color"].as_str()),
        (Some(2), Some("white"))
    );
    assert_eq!(reply["state"]["to_move"], "black");

    // When Black passes and the computer has nothing useful left it passes too; in the marking phase it
    // accepts what Black accepted. Play on by passing until the game is over (or 300 turns).
    let mut state = reply["state"].clone();
    for _ in 0..300 {
        if state["phase"] == "over" {
            break;
        }
        let (status, body) = if state["phase"] == "marking" {
            ann.post(&format!("/api/games/{id}/accept"), json!({}))
                .await
                .unwrap()
        } else {
            ann.play(id, "pass").await.unwrap()
        };
        assert_eq!(status, 200, "{body}");
        // Wait until it is Black's turn again, or the game is over: after this action (the events before it,
        // such as the server's first proposal that came with the end of play, are already answered).
        let acted = body["version"].as_u64().unwrap();
        loop {
            let m = ws.next_json().await.unwrap();
            let s = &m["state"];
            if s["version"].as_u64().unwrap() <= acted {
                continue;
            }
            let black_to_act = match s["phase"].as_str() {
                Some("playing") => s["to_move"] == "black",
                Some("marking") => s["accepted"]["black"] == false,
                _ => true,
            };
            if black_to_act {
                state = s.clone();
                break;
            }
        }
    }
    assert_eq!(state["phase"], "over", "{state}");
    assert!(
        state["result"].as_str().unwrap().starts_with("W+"),
        "{state}"
    );
    running.stop().await.unwrap();
}

/// Listings and states say each game's komi (White's net, in half-points), handicap and clock, from memory and
/// from the store's rows alike.
#[tokio::test]
async fn listings_and_states_carry_komi_handicap_and_clock() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, state) = timed(&black, &white, "japanese:size=9", "fischer:10m+10s").await;
    // Japanese komi: 6.5.
    let expected = 13;
    assert_eq!(state["komi"], expected, "{state}");
    assert_eq!(state["handicap"], 0, "{state}");
    let (_, lobby) = black.get("/api/lobby").await.unwrap();
    let entry = entry_of(&lobby, "playing", &json!(id));
    assert_eq!(
        (&entry["komi"], &entry["handicap"], &entry["time"]),
        (&json!(expected), &json!(0), &json!("fischer:10m+10s")),
        "{entry}"
    );
    let open = table(
        &black,
        "chinese:size=9,komi=0,handicap=3",
        "black",
        "anyone",
    )
    .await;
    assert_eq!(open["state"]["komi"], 0, "{open}");
    assert_eq!(open["state"]["handicap"], 3, "{open}");
    let (_, lobby) = black.get("/api/lobby").await.unwrap();
    let entry = entry_of(&lobby, "open", &json!(open["id"]));
    assert_eq!(
        (&entry["komi"], &entry["handicap"], &entry["time"]),
        (&json!(0), &json!(3), &Value::Null),
        "{entry}"
    );
    // Ended and read back from the store's row after a restart: the same.
    let (status, _) = black
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let c = anonymous(&running);
    let (_, archive) = c.get("/api/archive").await.unwrap();
    let entry = entry_of(&archive, "games", &json!(id));
    assert_eq!(
        (&entry["komi"], &entry["handicap"], &entry["time"]),
        (&json!(expected), &json!(0), &json!("fischer:10m+10s")),
        "{entry}"
    );
    running.stop().await.unwrap();
}

/// In the marking phase every state carries the count the current proposal gives; once both accept, the game's
/// score is exactly the last one shown.
#[tokio::test]
async fn the_marking_phase_shows_the_count_of_the_proposal() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    for rules in ["japanese:size=5", "chinese:size=5"] {
        let (id, black, white) = seated(&running, rules).await;
        let (_, playing) = black.get(&format!("/api/games/{id}")).await.unwrap();
        assert_eq!(playing["proposal_score"], Value::Null, "{playing}");
        to_marking(&black, &white, id).await;
        let (_, before) = black.get(&format!("/api/games/{id}")).await.unwrap();
        let shown = before["proposal_score"].clone();
        assert!(shown.is_object(), "{rules}: {before}");
        // Marking E5 (Black's lone stone in White's area) dead moves the count towards White.
        let (status, marked) = white
            .post(&format!("/api/games/{id}/dead"), json!({"point": "E5"}))
            .await
            .unwrap();
        assert_eq!(status, 200, "{marked}");
        let after = marked["proposal_score"].clone();
        let dead_in = before["dead"].as_array().unwrap().iter().any(|p| p == "E5");
        let (m0, m1) = (
            shown["margin"].as_i64().unwrap(),
            after["margin"].as_i64().unwrap(),
        );
        if dead_in {
            assert!(m1 > m0, "{rules}: reviving E5 helps Black: {m0} -> {m1}");
        } else {
            assert!(m1 < m0, "{rules}: killing E5 helps White: {m0} -> {m1}");
        }
        // The shading: E5 is White's now that it is dead, and every shaded point is empty or a dead stone.
        let territory = &marked["territory"];
        let has = |c: &str, p: &str| territory[c].as_array().unwrap().iter().any(|q| q == p);
        assert_eq!(has("white", "E5"), !dead_in, "{rules}: {territory}");
        let dead_now: Vec<Value> = marked["dead"].as_array().unwrap().clone();
        let stones: Vec<String> =
            [stones_of(&marked, "black"), stones_of(&marked, "white")].concat();
        for c in ["black", "white"] {
            for p in territory[c].as_array().unwrap() {
                let p_str = p.as_str().unwrap().to_owned();
                assert!(
                    !stones.contains(&p_str) || dead_now.contains(p),
                    "{rules}: {p} shaded {c}"
                );
            }
        }
        assert_eq!(playing["territory"], Value::Null);
        // Spectators see the same count.
        let (_, seen) = anonymous(&running)
            .get(&format!("/api/games/{id}"))
            .await
            .unwrap();
        assert_eq!(seen["proposal_score"], after);
        for c in [&black, &white] {
            let (status, body) = c
                .post(&format!("/api/games/{id}/accept"), json!({}))
                .await
                .unwrap();
            assert_eq!(status, 200, "{body}");
        }
        let (_, over) = black.get(&format!("/api/games/{id}")).await.unwrap();
        assert_eq!(over["status"], "over");
        assert_eq!(over["score"], after, "{rules}: the count is the one shown");
        assert_eq!(over["proposal_score"], Value::Null);
        assert_eq!(over["territory"], Value::Null);
    }
    running.stop().await.unwrap();
}

/// A second accept and a mark on an empty point change nothing: refused with `no_change`, not stored.
#[tokio::test]
async fn marking_actions_that_change_nothing_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "japanese:size=5").await;
    to_marking(&black, &white, id).await;
    let (status, accepted) = black
        .post(&format!("/api/games/{id}/accept"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{accepted}");
    for (client, path, body) in [
        (&black, "accept", json!({})),
        (&black, "dead", json!({"point": "A1"})),
        (&white, "dead", json!({"point": "E1"})),
    ] {
        let (status, refusal) = client
            .post(&format!("/api/games/{id}/{path}"), body.clone())
            .await
            .unwrap();
        assert_eq!(
            (status, refusal["reason"].as_str()),
            (409, Some("no_change")),
            "{path} {body}: {refusal}"
        );
        let (_, now) = black.get(&format!("/api/games/{id}")).await.unwrap();
        assert_eq!(
            settled(&now),
            settled(&accepted),
            "a refused {path} changed the game"
        );
    }
    // A mark that changes the proposal is taken, and clears the acceptance; accepting again is then a change.
    let (status, marked) = white
        .post(&format!("/api/games/{id}/dead"), json!({"point": "E5"}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{marked}");
    assert_eq!(marked["accepted"]["black"], false, "{marked}");
    let (status, _) = black
        .post(&format!("/api/games/{id}/accept"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    running.stop().await.unwrap();
}

/// The points of `color`'s stones in a state's board (`X` black, `O` white; rows from the top).
fn stones_of(state: &serde_json::Value, color: &str) -> Vec<String> {
    const LETTERS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";
    let mark = if color == "black" { 'X' } else { 'O' };
    let rows: Vec<String> = serde_json::from_value(state["board"].clone()).unwrap();
    let height = rows.len();
    let mut points = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            if c == mark {
                points.push(format!("{}{}", LETTERS[x] as char, height - r));
            }
        }
    }
    points
}

/// Issue 16's game: Black E5, the computer replies, Black passes and the computer passes; Black marks the
/// computer's stones dead and accepts. The computer must not accept its living stones dead: it disputes, and
/// play resumes.
#[tokio::test]
async fn the_computer_disputes_a_proposal_that_kills_its_living_stones() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        actions_per_second: 10_000,
        ..Limits::default()
    };
    let running = server_with(dir.path(), limits).await;
    let ann = guest(&running, "ann").await;
    for bot in ["mcts-1", "simple"] {
        let (status, table) = ann
            .post(
                "/api/games",
                json!({"rules": "chinese:size=9", "color": "black", "opponent": "bot", "bot": bot}),
            )
            .await
            .unwrap();
        assert_eq!(status, 201, "{table}");
        let id = table["id"].as_i64().unwrap();
        let mut ws = ann.game_socket(id).await.unwrap();
        assert_eq!(ws.next_json().await.unwrap()["type"], "state");
        let (status, body) = ann.play(id, "E5").await.unwrap();
        assert_eq!(status, 200, "{body}");
        let mut acted = body["version"].as_u64().unwrap();
        // Black passes whenever it is Black's turn until play ends (the computer passes when it is ahead).
        let mut state = body;
        for _ in 0..200 {
            if state["phase"] == "marking" {
                break;
            }
            let m = ws.next_json().await.unwrap();
            let s = m["state"].clone();
            if s["version"].as_u64().unwrap() <= acted {
                continue;
            }
            state = s;
            if state["phase"] == "playing" && state["to_move"] == "black" {
                let (status, body) = ann.play(id, "pass").await.unwrap();
                assert_eq!(status, 200, "{body}");
                acted = body["version"].as_u64().unwrap();
                state = body;
            }
        }
        assert_eq!(state["phase"], "marking", "{bot}: {state}");
        let white = stones_of(&state, "white");
        assert!(!white.is_empty(), "{bot}: the computer has stones: {state}");
        // Mark every white chain dead (toggling a stone already in the proposal would revive its chain).
        for point in &white {
            let (_, now) = ann.get(&format!("/api/games/{id}")).await.unwrap();
            let dead: Vec<String> = serde_json::from_value(now["dead"].clone()).unwrap();
            if !dead.contains(point) {
                let (status, body) = ann
                    .post(&format!("/api/games/{id}/dead"), json!({"point": point}))
                    .await
                    .unwrap();
                assert_eq!(status, 200, "{body}");
            }
        }
        let (_, now) = ann.get(&format!("/api/games/{id}")).await.unwrap();
        let mut dead: Vec<String> = serde_json::from_value(now["dead"].clone()).unwrap();
        dead.retain(|p| white.contains(p));
        assert_eq!(dead.len(), white.len(), "{now}");
        let (status, body) = ann
            .post(&format!("/api/games/{id}/accept"), json!({}))
            .await
            .unwrap();
        assert_eq!(status, 200, "{body}");
        let accepted = body["version"].as_u64().unwrap();
        // The computer's answer is the next action: a dispute, and play resumes.
        let answer = loop {
            let m = ws.next_json().await.unwrap();
            if m["state"]["version"].as_u64().unwrap() > accepted {
                break m;
            }
        };
        assert_eq!(answer["type"], "dispute", "{bot}: {answer}");
        assert_eq!(answer["action"]["color"], "white", "{answer}");
        assert_eq!(answer["state"]["phase"], "playing", "{answer}");
        assert_eq!(answer["state"]["status"], "playing", "{answer}");
        // The dispute says why: the computer's stones it holds alive, all among those marked dead.
        let reasons = &answer["state"]["computer_dispute"];
        let alive: Vec<String> = serde_json::from_value(reasons["alive"].clone()).unwrap();
        assert!(!alive.is_empty(), "{bot}: {answer}");
        assert!(
            alive.iter().all(|p| white.contains(p)),
            "{alive:?} {white:?}"
        );
        let (_, now) = ann.get(&format!("/api/games/{id}")).await.unwrap();
        assert_eq!(&now["computer_dispute"], reasons, "{now}");
        let (status, body) = ann
            .post(&format!("/api/games/{id}/resign"), json!({}))
            .await
            .unwrap();
        assert_eq!(status, 200);
        // Shown while the dispute is the last action only.
        assert!(body.get("computer_dispute").is_none(), "{body}");
    }
    running.stop().await.unwrap();
}
