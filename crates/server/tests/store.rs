//! The SQLite store on its own: schema, WAL, atomic appends, loading, listings.

use tesuji_server::store::sqlite::{DATABASE_FILE, SqliteStore};
use tesuji_server::store::{Ending, Seats, Store, StoreError, StoredMove, StoredSession};

fn mv(number: i64, color: &str, text: &str) -> StoredMove {
    StoredMove {
        number,
        color: color.into(),
        text: text.into(),
        spent_ms: None,
        lag_ms: None,
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

    let ann = store
        .create_user("Ann", Some("ann"), Some("$argon2id$fake"))
        .await
        .unwrap();
    let bob = store.create_user("bob", None, None).await.unwrap();
    let seats = Seats {
        black: Some(ann),
        opponent: "anyone".into(),
        ..Seats::default()
    };
    let a = store
        .create_game("japanese:size=9", "playing", &seats, None)
        .await
        .unwrap();
    let bot_seats = Seats {
        white: Some(bob),
        bot: Some(("simple".into(), "black".into())),
        opponent: "bot".into(),
        ..Seats::default()
    };
    let b = store
        .create_game("chinese", "playing", &bot_seats, Some("fischer:5m+10s"))
        .await
        .unwrap();
    assert!(b > a);
    store.join_game(a, "white", bob).await.unwrap();
    let taken = store.join_game(a, "white", ann).await;
    assert!(
        matches!(taken, Err(StoreError::SeatTaken { .. })),
        "{taken:?}"
    );
    store
        .append_move(b, &mv(1, "black", "D4"), "playing", None)
        .await
        .unwrap();
    store
        .append_move(a, &mv(1, "black", "pass"), "playing", None)
        .await
        .unwrap();
    let ending = Ending {
        result: Some("B+R".into()),
        ended: 1_700_000_000,
    };
    store
        .append_move(a, &mv(2, "white", "resign"), "over", Some(&ending))
        .await
        .unwrap();
    let again = store
        .append_move(a, &mv(2, "white", "E5"), "playing", None)
        .await;
    assert!(
        matches!(again, Err(StoreError::Conflict { number: 2, .. })),
        "{again:?}"
    );

    // Only the game that goes on is live; the finished one is read alone.
    assert_eq!(store.live_game_ids().await.unwrap(), [b]);
    let live = store.load_game(b).await.unwrap().unwrap();
    assert_eq!(live.moves, vec![mv(1, "black", "D4")]);
    assert_eq!(live.seats, bot_seats);
    let over = store.load_game(a).await.unwrap().unwrap();
    assert_eq!(over.state, "over", "a refused append changes nothing");
    assert_eq!(
        over.moves,
        vec![mv(1, "black", "pass"), mv(2, "white", "resign")]
    );
    assert_eq!(
        over.seats,
        Seats {
            black: Some(ann),
            white: Some(bob),
            joined: true,
            ..seats
        }
    );
    assert_eq!(store.load_game(999).await.unwrap(), None);

    // The summary rows: counts, the ending, the names of the seated users.
    let rows = store.player_games(bob, None, 10).await.unwrap();
    assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), [b, a]);
    assert_eq!(
        (rows[1].move_count, rows[1].result.as_deref(), rows[1].ended),
        (2, Some("B+R"), Some(1_700_000_000))
    );
    assert_eq!(
        (rows[0].move_count, rows[0].result.as_deref(), rows[0].ended),
        (1, None, None)
    );
    let names = |r: &tesuji_server::store::GameRow| {
        (
            r.black.as_ref().map(|u| (u.name.clone(), u.guest)),
            r.white.as_ref().map(|u| (u.name.clone(), u.guest)),
        )
    };
    assert_eq!(
        names(&rows[1]),
        (Some(("Ann".into(), false)), Some(("bob".into(), true)))
    );
    assert_eq!(names(&rows[0]), (None, Some(("bob".into(), true))));
    assert!(
        rows.iter()
            .all(|r| r.black.as_ref().is_none_or(|u| u.password_hash.is_none()))
    );
    assert_eq!(
        store.player_games(bob, Some(b), 10).await.unwrap().len(),
        1,
        "ids below `before` only"
    );
    assert_eq!(store.player_games(ann, None, 10).await.unwrap().len(), 1);
    let finished = store.finished_games(None, 10).await.unwrap();
    assert_eq!(finished.iter().map(|r| r.id).collect::<Vec<_>>(), [a]);

    // Account names are unique without regard to case; guests' names may repeat.
    let again = store.create_user("ANN", Some("ann"), Some("x")).await;
    assert!(matches!(again, Err(StoreError::NameTaken)), "{again:?}");
    store.create_user("bob", None, None).await.unwrap();
    let found = store.find_account("ann").await.unwrap().unwrap();
    assert_eq!(
        (found.id, found.name.as_str(), found.guest),
        (ann, "Ann", false)
    );
    assert_eq!(found.password_hash.as_deref(), Some("$argon2id$fake"));
    let user = store.find_user(ann).await.unwrap().unwrap();
    assert_eq!((user.name.as_str(), user.guest), ("Ann", false));
    assert_eq!(user.password_hash, None, "lookups by id carry no hash");
    assert!(store.find_user(bob).await.unwrap().unwrap().guest);
    assert_eq!(store.find_user(999).await.unwrap(), None);

    // Sessions: found by the hash, gone when deleted, expired ones swept when a new one is made.
    let live = StoredSession {
        user_id: ann,
        csrf: "c".into(),
        expires: i64::MAX,
    };
    let old = StoredSession {
        user_id: bob,
        csrf: "d".into(),
        expires: 1,
    };
    store.create_session(b"old", &old).await.unwrap();
    store.create_session(b"live", &live).await.unwrap();
    assert_eq!(store.find_session(b"live").await.unwrap(), Some(live));
    assert_eq!(store.find_session(b"old").await.unwrap(), None);
    store.delete_session(b"live").await.unwrap();
    assert_eq!(store.find_session(b"live").await.unwrap(), None);
    store.close().await.unwrap();

    // Reopening runs the migrations again without harm.
    let store = SqliteStore::open(&data).await.unwrap();
    assert_eq!(store.live_game_ids().await.unwrap().len(), 1);
    assert!(store.load_game(a).await.unwrap().is_some());
    store.close().await.unwrap();
}

/// Appends are group-committed: many in one transaction. Every one lands, each game's in order, and a taken
/// number or a missing game fails that append alone.
#[tokio::test]
async fn concurrent_appends_all_land_and_a_duplicate_fails_alone() {
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(dir.path()).await.unwrap());
    let ann = store.create_user("ann", None, None).await.unwrap();
    let seats = Seats {
        black: Some(ann),
        opponent: "anyone".into(),
        ..Seats::default()
    };
    let mut games = Vec::new();
    for _ in 0..20 {
        games.push(
            store
                .create_game("chinese:size=9", "playing", &seats, None)
                .await
                .unwrap(),
        );
    }
    let color = |n: i64| if n % 2 == 1 { "black" } else { "white" };
    let point =
        |game: i64, n: i64| format!("{}{}", ["A", "B", "C", "D", "E"][(game % 5) as usize], n);

    // 200 appends at once (20 games, moves 1 to 10), a second move 5 in the first game, and a move of a game
    // that does not exist. On this single-threaded runtime all are queued before the writer runs: one batch.
    let mut wanted = Vec::new();
    for n in 1..=10 {
        for &g in &games {
            let state = if n == 10 { "marking" } else { "playing" };
            wanted.push((g, mv(n, color(n), &point(g, n)), state));
        }
    }
    let duplicate = wanted.len();
    wanted.push((games[0], mv(5, "black", "T19"), "over"));
    let missing = wanted.len();
    wanted.push((999_999, mv(1, "black", "D4"), "playing"));
    let results = futures_util::future::join_all(
        wanted
            .iter()
            .map(|(g, m, state)| store.append_move(*g, m, state, None)),
    )
    .await;
    for (k, r) in results.iter().enumerate() {
        match k {
            k if k == duplicate => assert!(
                matches!(r, Err(StoreError::Conflict { number: 5, .. })),
                "{r:?}"
            ),
            k if k == missing => assert!(matches!(r, Err(StoreError::Database(_))), "{r:?}"),
            _ => assert!(r.is_ok(), "append {k}: {r:?}"),
        }
    }

    // Then each game's next ten moves one after another, the games at once, as the server appends them.
    let tasks: Vec<_> = games
        .iter()
        .map(|&g| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                for n in 11..=20 {
                    let state = if n == 20 { "over" } else { "playing" };
                    let ending = (n == 20).then(|| Ending {
                        result: Some("W+R".into()),
                        ended: 1_000 + g,
                    });
                    store
                        .append_move(g, &mv(n, color(n), &point(g, n)), state, ending.as_ref())
                        .await
                        .unwrap();
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }

    assert!(store.live_game_ids().await.unwrap().is_empty());
    for &id in &games {
        let game = store.load_game(id).await.unwrap().unwrap();
        let expected: Vec<StoredMove> = (1..=20).map(|n| mv(n, color(n), &point(id, n))).collect();
        assert_eq!(game.moves, expected, "game {id}");
        assert_eq!(game.state, "over", "game {id}");
    }
    // Every game's row has its count and ending; the archive lists them by their end, latest first.
    let rows = store.finished_games(None, 100).await.unwrap();
    let mut newest_first = games.clone();
    newest_first.reverse();
    assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), newest_first);
    assert!(
        rows.iter()
            .all(|r| r.move_count == 20 && r.result.as_deref() == Some("W+R"))
    );
    store.close().await.unwrap();
}

/// Whole games written at once: their rows, summaries and moves read back as written, in one transaction.
#[tokio::test]
async fn imported_games_read_back_as_written() {
    use tesuji_server::store::ImportedGame;
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path()).await.unwrap();
    let ann = store.create_user("ann", None, None).await.unwrap();
    let bob = store.create_user("bob", None, None).await.unwrap();
    assert_eq!(store.count_games().await.unwrap(), 0);
    // One game longer than a statement's worth of moves (4,000), to cross a chunk.
    let lengths = [3usize, 0, 4_321];
    let games: Vec<ImportedGame> = lengths
        .iter()
        .enumerate()
        .map(|(k, &n)| ImportedGame {
            rules: "chinese:size=19".into(),
            created: 100 + k as i64,
            state: "over".into(),
            seats: Seats {
                black: Some(ann),
                white: Some(bob),
                opponent: "anyone".into(),
                joined: true,
                ..Seats::default()
            },
            time_control: None,
            moves: (1..=n as i64)
                .map(|m| mv(m, if m % 2 == 1 { "black" } else { "white" }, "pass"))
                .collect(),
            ending: Some(Ending {
                result: Some(format!("B+{k}")),
                ended: 200 + k as i64,
            }),
        })
        .collect();
    let ids = store.import_games(&games).await.unwrap();
    assert_eq!(ids.len(), 3);
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    assert_eq!(store.count_games().await.unwrap(), 3);
    for (id, game) in ids.iter().zip(&games) {
        let loaded = store.load_game(*id).await.unwrap().unwrap();
        assert_eq!(loaded.moves, game.moves);
        assert_eq!(
            (loaded.created, loaded.state.as_str()),
            (game.created, "over")
        );
    }
    let rows = store.finished_games(None, 10).await.unwrap();
    assert_eq!(
        rows.iter()
            .map(|r| (r.id, r.move_count, r.result.clone(), r.ended))
            .collect::<Vec<_>>(),
        ids.iter()
            .zip(&games)
            .rev()
            .map(|(id, g)| (
                *id,
                g.moves.len() as i64,
                g.ending.as_ref().unwrap().result.clone(),
                g.ending.as_ref().map(|e| e.ended)
            ))
            .collect::<Vec<_>>()
    );
    assert!(store.live_game_ids().await.unwrap().is_empty());
    store.close().await.unwrap();
}
