//! The lobby: seats, the open tables and games in play, invites, its socket, the games that wait for me.

use super::*;

/// The creator of an invite-only table gets its token back in every state it asks for while the table waits
/// (so that the page can show the link again); nobody else ever sees it, no event carries it, and once the table
/// is full nobody sees it any more.
#[tokio::test]
async fn only_the_creator_of_an_open_table_sees_its_invite() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let cy = guest(&running, "cy").await;
    let nobody = anonymous(&running);
    let created = table(&ann, "chinese:size=9", "black", "invite").await;
    let id = created["id"].as_i64().unwrap();
    let invite = created["invite"].as_str().unwrap().to_owned();
    assert_eq!(created["state"]["invite"], invite.as_str(), "{created}");
    let url = format!("/api/games/{id}");
    let (_, state) = ann.get(&url).await.unwrap();
    assert_eq!(state["invite"], invite.as_str(), "{state}");
    for (who, c) in [("bob", &bob), ("cy", &cy), ("anonymous", &nobody)] {
        let (status, state) = c.get(&url).await.unwrap();
        assert_eq!(status, 200, "{who}");
        assert!(state.get("invite").is_none(), "{who}: {state}");
        assert!(!state.to_string().contains(&invite), "{who}: {state}");
    }
    // Over the socket: the creator's first state has it, a spectator's and an anonymous watcher's do not.
    let mut ann_ws = ann.game_socket(id).await.unwrap();
    let first = ann_ws.next_json().await.unwrap();
    assert_eq!(
        (first["type"].as_str(), first["invite"].as_str()),
        (Some("state"), Some(invite.as_str()))
    );
    let mut cy_ws = cy.game_socket(id).await.unwrap();
    let mut nobody_ws = nobody.game_socket(id).await.unwrap();
    for ws in [&mut cy_ws, &mut nobody_ws] {
        let first = ws.next_json().await.unwrap();
        assert_eq!(first["type"], "state");
        assert!(!first.to_string().contains(&invite), "{first}");
    }
    // A resync is the creator's own state again.
    ann_ws.resync().await.unwrap();
    let again = ann_ws
        .next_matching(|m| m["type"] == "state")
        .await
        .unwrap();
    assert_eq!(again["invite"], invite.as_str(), "{again}");
    // Bob joins with the link: the join event carries no token, and the table is no longer open.
    let (status, joined) = bob.join(id, Some(&invite)).await.unwrap();
    assert_eq!(status, 200, "{joined}");
    assert!(!joined.to_string().contains(&invite), "{joined}");
    for ws in [&mut ann_ws, &mut cy_ws, &mut nobody_ws] {
        let m = ws.next_matching(|m| m["type"] == "join").await.unwrap();
        assert!(!m.to_string().contains(&invite), "{m}");
    }
    for c in [&ann, &bob, &cy, &nobody] {
        let (_, state) = c.get(&url).await.unwrap();
        assert_eq!(state["status"], "playing");
        assert!(!state.to_string().contains(&invite), "{state}");
    }
    ann_ws.resync().await.unwrap();
    let after = ann_ws
        .next_matching(|m| m["type"] == "state")
        .await
        .unwrap();
    assert!(after.get("invite").is_none(), "{after}");
    // A table open to anyone has no token to show.
    let open = table(&ann, "chinese:size=9", "black", "anyone").await;
    let (_, state) = ann
        .get(&format!("/api/games/{}", open["id"]))
        .await
        .unwrap();
    assert!(state.get("invite").is_none(), "{state}");
    running.stop().await.unwrap();
}

#[tokio::test]
async fn lobby_socket_sees_tables_appear_and_fill() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let mut ws = anonymous(&running).lobby_socket().await.unwrap();
    let first = ws.next_json().await.unwrap();
    assert_eq!(first["type"], "lobby");
    assert_eq!(first["open"].as_array().unwrap().len(), 0);
    let id = table(&ann, "chinese:size=13", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    let listed = ws.next_json().await.unwrap();
    assert_eq!(listed["open"][0]["id"], id);
    bob.post(&format!("/api/games/{id}/join"), json!({}))
        .await
        .unwrap();
    let filled = ws.next_json().await.unwrap();
    assert_eq!(filled["open"].as_array().unwrap().len(), 0);
    assert_eq!(filled["playing"][0]["players"]["white"]["name"], "bob");
    running.stop().await.unwrap();
}

#[tokio::test]
async fn the_lobby_lists_first_the_games_that_wait_for_me() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "chinese:size=9").await;
    let open = table(&black, "chinese:size=9", "black", "anyone").await["id"].clone();
    let mine = |lobby: &Value| -> Vec<Value> {
        lobby["my_turn"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].clone())
            .collect()
    };
    // Black is to move; an open table waits for nobody's action yet; a spectator has no list.
    let (_, lobby) = black.get("/api/lobby").await.unwrap();
    assert_eq!(mine(&lobby), [json!(id)]);
    assert_eq!(lobby["my_turn"][0]["to_act"], json!(["black"]));
    assert!(!mine(&lobby).contains(&open));
    let (_, lobby) = white.get("/api/lobby").await.unwrap();
    assert!(mine(&lobby).is_empty(), "{lobby}");
    let (_, lobby) = anonymous(&running).get("/api/lobby").await.unwrap();
    assert!(mine(&lobby).is_empty(), "{lobby}");

    let mut ws = white.lobby_socket().await.unwrap();
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    let listed = ws
        .next_matching(|m| m["my_turn"].as_array().is_some_and(|l| !l.is_empty()))
        .await
        .unwrap();
    assert_eq!(mine(&listed), [json!(id)]);
    let (_, lobby) = black.get("/api/lobby").await.unwrap();
    assert!(mine(&lobby).is_empty(), "{lobby}");

    // The marking phase waits for both until each accepts.
    assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
    assert_eq!(black.play(id, "pass").await.unwrap().0, 200);
    let (_, lobby) = white.get("/api/lobby").await.unwrap();
    assert_eq!(lobby["my_turn"][0]["to_act"], json!(["black", "white"]));
    assert_eq!(
        white
            .post(&format!("/api/games/{id}/accept"), json!({}))
            .await
            .unwrap()
            .0,
        200
    );
    let (_, lobby) = white.get("/api/lobby").await.unwrap();
    assert!(mine(&lobby).is_empty(), "{lobby}");
    let (_, lobby) = black.get("/api/lobby").await.unwrap();
    assert_eq!(mine(&lobby), [json!(id)]);
    running.stop().await.unwrap();
}
