//! A player's page.

use super::*;

#[tokio::test]
async fn a_players_page_counts_results_by_size_and_colour_and_lists_current_games() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (ann, ann_id) = account(&running, "ann").await;
    let (bob, bob_id) = account(&running, "bob").await;
    resigned(&ann, &bob, "chinese:size=9", Color::White).await;
    resigned(&ann, &bob, "japanese:size=9", Color::White).await;
    resigned(&bob, &ann, "chinese:size=9", Color::Black).await;
    resigned(&ann, &bob, "chinese:size=13", Color::Black).await;
    let open = table(&ann, "chinese", "black", "anyone").await["id"].clone();
    let playing = table(&bob, "chinese:size=9", "white", "anyone").await["id"].clone();
    assert_eq!(
        ann.join(playing.as_i64().unwrap(), None).await.unwrap().0,
        200
    );

    let (status, page) = bob
        .get(&format!("/api/users/{ann_id}/games"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{page}");
    let entry = |size: &str, color: &str, w: i64, l: i64| json!({"size": size, "color": color, "wins": w, "losses": l, "draws": 0});
    // Two rulesets on one size count together; smaller boards first, Black before White.
    assert_eq!(
        page["record"],
        json!([
            entry("9×9", "black", 2, 0),
            entry("9×9", "white", 1, 0),
            entry("13×13", "black", 0, 1),
        ])
    );
    let current: Vec<&Value> = page["current"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["id"])
        .collect();
    assert_eq!(current, [&playing, &open]);
    let (_, page) = ann
        .get(&format!("/api/users/{bob_id}/games"))
        .await
        .unwrap();
    assert_eq!(
        page["record"],
        json!([
            entry("9×9", "black", 0, 1),
            entry("9×9", "white", 0, 2),
            entry("13×13", "white", 1, 0),
        ])
    );
    assert_eq!(page["current"].as_array().unwrap().len(), 1);
    running.stop().await.unwrap();
}
