//! The SQLite store on its own: schema, WAL, atomic appends, loading.

use tesuji_server::store::sqlite::{DATABASE_FILE, SqliteStore};
use tesuji_server::store::{Store, StoreError, StoredMove};

fn mv(number: i64, color: &str, text: &str) -> StoredMove {
    StoredMove {
        number,
        color: color.into(),
        text: text.into(),
    }
}

#[tokio::test]
async fn appends_are_unique_and_load_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("nested/data");
    let store = SqliteStore::open(&data).await.unwrap();
    assert!(data.join(DATABASE_FILE).exists());
    assert!(
        data.join(format!("{DATABASE_FILE}-wal")).exists(),
        "WAL mode"
    );

    let a = store
        .create_game("japanese:size=9", "playing")
        .await
        .unwrap();
    let b = store.create_game("chinese", "playing").await.unwrap();
    assert!(b > a);
    store
        .append_move(b, &mv(1, "black", "D4"), "playing")
        .await
        .unwrap();
    store
        .append_move(a, &mv(1, "black", "pass"), "playing")
        .await
        .unwrap();
    store
        .append_move(a, &mv(2, "white", "resign"), "over")
        .await
        .unwrap();
    let again = store.append_move(a, &mv(2, "white", "E5"), "playing").await;
    assert!(
        matches!(again, Err(StoreError::Conflict { number: 2, .. })),
        "{again:?}"
    );

    let games = store.load_games().await.unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].id, a);
    assert_eq!(games[0].state, "over", "a refused append changes nothing");
    assert_eq!(
        games[0].moves,
        vec![mv(1, "black", "pass"), mv(2, "white", "resign")]
    );
    assert_eq!(games[1].moves, vec![mv(1, "black", "D4")]);
    store.close().await.unwrap();

    // Reopening runs the migrations again without harm.
    let store = SqliteStore::open(&data).await.unwrap();
    assert_eq!(store.load_games().await.unwrap().len(), 2);
    store.close().await.unwrap();
}
