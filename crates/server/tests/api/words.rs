//! Issue 42 item 9, "Words": what players read, checked through the API.

use super::*;

/// A message said after a take-back is filed in the record at the move the page showed: after the last turn
/// standing when it was said, however many undo actions were stored before it and moves played after it.
#[tokio::test]
async fn chat_after_a_take_back_is_filed_at_the_move_the_page_showed() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "chinese:size=9").await;
    for (player, mv) in [(&black, "E5"), (&white, "C3"), (&black, "G7")] {
        let (status, body) = player.play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{mv}: {body}");
    }
    for (player, step) in [(&black, "undo"), (&white, "undo/accept")] {
        let (status, body) = player
            .post(&format!("/api/games/{id}/{step}"), json!({}))
            .await
            .unwrap();
        assert_eq!(status, 200, "{step}: {body}");
    }
    // The page shows E5 and C3; Black says so.
    let chat = format!("/api/games/{id}/chat");
    let (status, said) = black
        .post(&chat, json!({"text": "after the take-back"}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{said}");
    for (player, mv) in [(&black, "D4"), (&white, "F6")] {
        let (status, body) = player.play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{mv}: {body}");
    }
    let (_, sgf) = black
        .get_text(&format!("/api/games/{id}/sgf"))
        .await
        .unwrap();
    let at = |needle: &str| {
        sgf.find(needle)
            .unwrap_or_else(|| panic!("{needle} not in {sgf}"))
    };
    // C3 is W[cg], D4 is B[df]; the taken-back G7 (B[gc]) is not in the record.
    assert!(!sgf.contains("B[gc]"), "{sgf}");
    let comment = at("after the take-back");
    assert!(at(";W[cg]") < comment && comment < at(";B[df]"), "{sgf}");
    running.stop().await.unwrap();
}
