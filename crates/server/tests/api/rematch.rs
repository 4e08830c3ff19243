//! Rematches.

use super::*;

#[tokio::test]
async fn a_rematch_swaps_colours_keeps_the_table_and_is_made_once() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let carl = guest(&running, "carl").await;
    let (status, body) = ann
        .create_game(
            json!({"rules": "japanese:size=9", "color": "black", "time": "fischer:5m+10s"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    let old = body["id"].as_i64().unwrap();
    assert_eq!(bob.join(old, None).await.unwrap().0, 200);
    assert_eq!(ann.play(old, "E5").await.unwrap().0, 200);
    let rematch = format!("/api/games/{old}/rematch");
    let (status, body) = bob.post(&rematch, json!({})).await.unwrap();
    assert_eq!((status, &body["reason"]), (409, &json!("not_over")));
    assert_eq!(resign(&bob, old).await, 200);
    let (status, body) = carl.post(&rematch, json!({})).await.unwrap();
    assert_eq!((status, &body["reason"]), (403, &json!("not_seated")));
    let mut watching = bob.game_socket(old).await.unwrap();

    // Ann offers: a table by invitation, the same rules and clock, Ann now White.
    let (status, table) = ann.post(&rematch, json!({})).await.unwrap();
    assert_eq!(status, 200, "{table}");
    let new = table["id"].as_i64().unwrap();
    assert_ne!(new, old);
    assert_eq!(table["status"], "open");
    assert_eq!(table["rules"], body_rules(&ann, old).await);
    assert_eq!(table["clock"]["control"], "fischer:5m+10s", "{table}");
    assert_eq!(table["players"]["white"]["name"], "ann");
    assert_eq!(table["players"]["black"], Value::Null);
    assert!(table["invite_only"].as_bool().unwrap());
    let event = watching
        .next_matching(|m| m["type"] == "rematch")
        .await
        .unwrap();
    assert_eq!(event["rematch"], json!({"game": new, "by": "black"}));

    // The players' states carry the invite; a spectator's does not, and cannot join.
    let (_, state) = bob.game(old).await.unwrap();
    let invite = state["rematch"]["invite"].as_str().unwrap().to_owned();
    assert_eq!(state["rematch"]["game"], new);
    let (_, state) = carl.game(old).await.unwrap();
    assert_eq!(state["rematch"], json!({"game": new, "by": "black"}));
    let (status, _) = carl.join(new, None).await.unwrap();
    assert_eq!(status, 403);
    // The offerer, the creator of the table, has it as any creator does.
    assert_eq!(table["invite"], invite.as_str());

    // Offering again answers the same table; the opponent's offer accepts it.
    let (_, again) = ann.post(&rematch, json!({})).await.unwrap();
    assert_eq!(again["id"], new);
    let (status, started) = bob.post(&rematch, json!({})).await.unwrap();
    assert_eq!(status, 200, "{started}");
    assert_eq!(
        (started["id"].as_i64(), &started["status"]),
        (Some(new), &json!("playing"))
    );
    assert_eq!(started["players"]["black"]["name"], "bob");
    assert_eq!(bob.play(new, "E5").await.unwrap().0, 200);

    // Kept across a restart.
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let (_, state) = anonymous(&running).game(old).await.unwrap();
    assert_eq!(state["rematch"]["game"], new, "{state}");
    running.stop().await.unwrap();
}

/// The rules of game `id` as its state gives them.
async fn body_rules(c: &Client, id: i64) -> Value {
    c.game(id).await.unwrap().1["rules"].clone()
}

#[tokio::test]
async fn a_rematch_against_the_computer_starts_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let old = table(&ann, "chinese:size=9", "white", "bot").await["id"]
        .as_i64()
        .unwrap();
    // The computer (Black) moves first; Ann resigns once it has.
    state_until(&ann, old, "the computer's move", |s| s["move_count"] == 1).await;
    assert_eq!(resign(&ann, old).await, 200);
    let (status, state) = ann
        .post(&format!("/api/games/{old}/rematch"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["status"], "playing");
    assert_eq!(state["players"]["black"]["name"], "ann");
    assert!(state["players"]["white"]["bot"].is_string(), "{state}");
    running.stop().await.unwrap();
}
