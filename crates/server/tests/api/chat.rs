//! A game's chat and mutes.

use super::*;

/// The next chat message a socket gets.
async fn next_chat(socket: &mut tesuji_client::Socket) -> Value {
    socket.next_matching(|m| m["type"] == "chat").await.unwrap()["message"].clone()
}

#[tokio::test]
async fn the_spectators_talk_never_reaches_the_players_during_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    // On two nodes each client sits on the next node: Ann and Carl on one, Bob and Dave on the other.
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let carl = guest(&running, "carl").await;
    let dave = guest(&running, "dave").await;
    let id = table(&ann, "japanese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    assert_eq!(ann.play(id, "E5").await.unwrap().0, 200);
    let (mut ann_ws, mut bob_ws) = (
        ann.game_socket(id).await.unwrap(),
        bob.game_socket(id).await.unwrap(),
    );
    let (mut carl_ws, mut dave_ws) = (
        carl.game_socket(id).await.unwrap(),
        dave.game_socket(id).await.unwrap(),
    );
    let chat = format!("/api/games/{id}/chat");

    // A player's word reaches everyone, with its place in the record.
    let (status, said) = bob.post(&chat, json!({"text": " hello "})).await.unwrap();
    assert_eq!(status, 201, "{said}");
    assert_eq!(
        (
            &said["channel"],
            &said["move"],
            &said["text"],
            &said["user"]["name"]
        ),
        (&json!("players"), &json!(1), &json!("hello"), &json!("bob"))
    );
    for socket in [&mut ann_ws, &mut bob_ws, &mut carl_ws, &mut dave_ws] {
        assert_eq!(next_chat(socket).await, said);
    }

    // A spectator's reaches the spectators only, here and on the other node...
    let (status, tip) = carl
        .post(&chat, json!({"text": "Bob should play C3"}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{tip}");
    assert_eq!(tip["channel"], "spectators");
    assert_eq!(next_chat(&mut carl_ws).await, tip);
    assert_eq!(next_chat(&mut dave_ws).await, tip);
    // ...never the players: the next message each player's socket gets is the one said after it (Ann's, on
    // Carl's node; Bob's node had Carl's before it, as Dave's socket there showed).
    let (status, thanks) = ann.post(&chat, json!({"text": "thanks"})).await.unwrap();
    assert_eq!(status, 201, "{thanks}");
    assert_eq!(next_chat(&mut ann_ws).await, thanks);
    assert_eq!(next_chat(&mut bob_ws).await, thanks);
    assert_eq!(chat_texts(&ann, id).await, ["hello", "thanks"]);
    assert_eq!(chat_texts(&bob, id).await, ["hello", "thanks"]);
    assert_eq!(
        chat_texts(&dave, id).await,
        ["hello", "Bob should play C3", "thanks"]
    );
    // The record of a game in play carries the players' talk only.
    let (_, sgf) = dave
        .get_text(&format!("/api/games/{id}/sgf"))
        .await
        .unwrap();
    assert!(
        sgf.contains("bob: hello") && sgf.contains("ann: thanks"),
        "{sgf}"
    );
    assert!(!sgf.contains("C3"), "{sgf}");

    // Once the game is over the players see it all, and the record has it at its move.
    assert_eq!(resign(&bob, id).await, 200);
    assert_eq!(
        chat_texts(&ann, id).await,
        ["hello", "Bob should play C3", "thanks"]
    );
    let (_, sgf) = ann.get_text(&format!("/api/games/{id}/sgf")).await.unwrap();
    let (e5, tip_at) = (
        sgf.find("B[ee]").unwrap(),
        sgf.find("carl (watching): Bob should play C3"),
    );
    assert!(tip_at.is_some_and(|at| at > e5), "{sgf}");
    // Said after the resignation, by a player: at the last move too.
    let (status, gg) = bob.post(&chat, json!({"text": "gg"})).await.unwrap();
    assert_eq!((status, &gg["move"]), (201, &json!(2)));
    running.stop().await.unwrap();
}

#[tokio::test]
async fn chat_refuses_bad_messages_and_floods_and_keeps_muted_users_out() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let carl = guest(&running, "carl").await;
    let nobody = anonymous(&running);
    let id = table(&ann, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    let chat = format!("/api/games/{id}/chat");
    let (status, body) = nobody.post(&chat, json!({"text": "hi"})).await.unwrap();
    assert_eq!((status, &body["reason"]), (401, &json!("not_signed_in")));
    for (text, says) in [
        (json!({"text": "  "}), "needs some text"),
        (json!({"text": "x".repeat(501)}), "at most 500"),
        (json!({"text": "bell\u{7}"}), "control"),
        (json!({"text": 5}), "string"),
        (json!({"text": "hi", "to": "bob"}), "to"),
    ] {
        let (status, body) = ann.post(&chat, text.clone()).await.unwrap();
        assert_eq!(status, 400, "{text}: {body}");
        assert!(body["error"].as_str().unwrap().contains(says), "{body}");
    }
    let (status, body) = ann
        .post("/api/games/999999/chat", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(status, 404, "{body}");
    // The longest message, in characters; markup stays text.
    let long = "棋".repeat(500);
    assert_eq!(ann.post(&chat, json!({"text": long})).await.unwrap().0, 201);
    let (_, markup) = ann
        .post(&chat, json!({"text": "<b>bold</b>"}))
        .await
        .unwrap();
    assert_eq!(markup["text"], "<b>bold</b>");

    // A flood: five at once, then one every two seconds.
    for k in 0..5 {
        let (status, body) = carl
            .post(&chat, json!({"text": format!("{k}")}))
            .await
            .unwrap();
        assert_eq!(status, 201, "{k}: {body}");
    }
    let (status, body) = carl.post(&chat, json!({"text": "more"})).await.unwrap();
    assert_eq!((status, &body["reason"]), (429, &json!("rate_limited")));

    // Once the game is over Ann sees the spectators' talk; she mutes Carl: his messages leave her chat (and no
    // one else's); unmuted, they are back.
    assert_eq!(resign(&bob, id).await, 200);
    assert!(chat_texts(&ann, id).await.iter().any(|t| t == "0"));
    let carl_id = carl.get("/api/session").await.unwrap().1["user"]["id"].clone();
    let (status, body) = ann
        .post("/api/mutes", json!({"user": carl_id, "muted": true}))
        .await
        .unwrap();
    assert_eq!((status, &body["muted"]), (200, &json!([carl_id])), "{body}");
    assert_eq!(
        ann.get("/api/mutes").await.unwrap().1["muted"],
        json!([carl_id])
    );
    let texts = chat_texts(&ann, id).await;
    assert!(!texts.iter().any(|t| t == "0"), "{texts:?}");
    assert!(chat_texts(&bob, id).await.iter().any(|t| t == "0"));
    let ann_id = ann.get("/api/session").await.unwrap().1["user"]["id"].clone();
    for (who, body) in [(ann_id.clone(), "yourself"), (json!(999_999), "no user")] {
        let (status, answer) = ann
            .post("/api/mutes", json!({"user": who, "muted": true}))
            .await
            .unwrap();
        assert!(status == 400 || status == 404, "{answer}");
        assert!(answer["error"].as_str().unwrap().contains(body), "{answer}");
    }
    let (status, _) = ann
        .post("/api/mutes", json!({"user": carl_id, "muted": false}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(ann.get("/api/mutes").await.unwrap().1["muted"], json!([]));
    assert!(chat_texts(&ann, id).await.iter().any(|t| t == "0"));
    running.stop().await.unwrap();
}

#[tokio::test]
async fn a_muted_users_words_never_reach_the_socket_of_who_muted_them() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    // On two nodes: Ann and Carl on one, Bob on the other.
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let carl = guest(&running, "carl").await;
    let id = table(&ann, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    assert_eq!(resign(&bob, id).await, 200);
    let carl_id = carl.get("/api/session").await.unwrap().1["user"]["id"].clone();
    let (status, _) = ann
        .post("/api/mutes", json!({"user": carl_id, "muted": true}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let mut ann_ws = ann.game_socket(id).await.unwrap();
    let mut bob_ws = bob.game_socket(id).await.unwrap();
    let chat = format!("/api/games/{id}/chat");
    // The game is over: a spectator's word would reach the players, but Ann muted Carl.
    let (_, noise) = carl.post(&chat, json!({"text": "noise"})).await.unwrap();
    assert_eq!(next_chat(&mut bob_ws).await, noise);
    let (_, mine) = ann.post(&chat, json!({"text": "mine"})).await.unwrap();
    assert_eq!(next_chat(&mut ann_ws).await, mine);
    assert_eq!(next_chat(&mut bob_ws).await, mine);
    running.stop().await.unwrap();
}
