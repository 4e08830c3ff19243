//! A user's news.

use super::*;

/// `(game, count, [moves])` of each game in client `c`'s news, and since when they run.
async fn news_of(c: &Client) -> (i64, Vec<(i64, i64, Vec<String>)>) {
    let (status, news) = c.get("/api/news").await.unwrap();
    assert_eq!(status, 200, "{news}");
    let games = news["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let moves = g["actions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a["move"].as_str().unwrap().to_owned())
                .collect();
            (
                g["game"].as_i64().unwrap(),
                g["count"].as_i64().unwrap(),
                moves,
            )
        })
        .collect();
    (news["since"].as_i64().unwrap(), games)
}

#[tokio::test]
async fn the_news_lists_what_the_others_did_in_my_games_since_i_looked() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let nobody = anonymous(&running);
    assert_eq!(nobody.get("/api/news").await.unwrap().0, 401);
    let id = table(&ann, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    for (k, mv) in ["E5", "C3", "D4", "pass"].into_iter().enumerate() {
        time.advance(1_000);
        let player = if k % 2 == 0 { &ann } else { &bob };
        assert_eq!(player.play(id, mv).await.unwrap().0, 200, "{mv}");
    }
    // Ann's news: Bob's two actions, not her own.
    let (since, games) = news_of(&ann).await;
    assert_eq!(games, [(id, 2, vec!["C3".to_owned(), "pass".to_owned()])]);
    // Looked: nothing new until Bob acts again.
    time.advance(1_000);
    let (status, seen) = ann.post("/api/news/seen", json!({})).await.unwrap();
    assert_eq!(status, 200, "{seen}");
    assert!(seen["since"].as_i64().unwrap() > since);
    assert_eq!(news_of(&ann).await.1, []);
    // Never moved back, never past now.
    let (_, again) = ann.post("/api/news/seen", json!({"at": 0})).await.unwrap();
    assert_eq!(again["since"], seen["since"]);
    time.advance(1_000);
    assert_eq!(ann.play(id, "E6").await.unwrap().0, 200);
    time.advance(1_000);
    assert_eq!(resign(&bob, id).await, 200);
    let (_, news) = ann.get("/api/news").await.unwrap();
    let game = &news["games"][0];
    assert_eq!(
        (
            &game["game"],
            &game["count"],
            &game["status"],
            &game["result"]
        ),
        (&json!(id), &json!(1), &json!("over"), &json!("B+R")),
        "{news}"
    );
    assert_eq!(
        (&game["black"], &game["white"]),
        (&json!("ann"), &json!("bob"))
    );
    // Bob never looked: all of Ann's moves since he joined.
    assert_eq!(
        news_of(&bob).await.1,
        [(
            id,
            3,
            vec!["E5".to_owned(), "D4".to_owned(), "E6".to_owned()]
        )]
    );
    let (status, _) = ann
        .post("/api/news/seen", json!({"at": i64::MAX}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    time.advance(1_000);
    assert_eq!(news_of(&ann).await.1, []);
    running.stop().await.unwrap();
}
