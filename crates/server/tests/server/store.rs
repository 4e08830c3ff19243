//! The stores on their own, each case on SQLite and on PostgreSQL: atomic appends, loading, listings,
//! accounts, sessions.

use crate::support;
use tesuji_server::Database;
use tesuji_server::store::sqlite::{DATABASE_FILE, SqliteStore};
use tesuji_server::store::{
    Ending, Seats, SiteStore, Store, StoreError, StoredMove, StoredSession, open,
};

crate::on_both!(
    appends_are_unique_and_load_in_order,
    concurrent_appends_all_land_and_a_duplicate_fails_alone,
    imported_games_read_back_as_written,
    checked_users_and_skeletons,
    cancel_and_abort_only_unplayed_games,
    listings_come_in_pages,
    two_writers_store_each_move_once,
    a_game_reads_from_a_move_on,
    a_game_is_rated_once_and_kept_in_each_history,
    two_nodes_rating_one_game_rate_it_once,
    uploads_and_reviews_are_counted_taken_in_turn_and_expire,
);

/// The ids of the games the store lists as live.
async fn live_ids(store: &dyn Store) -> Vec<i64> {
    let live = store.live_games().await.unwrap();
    live.into_iter().map(|(id, _)| id).collect()
}

fn mv(number: i64, color: &str, text: &str) -> StoredMove {
    StoredMove {
        number,
        color: color.into(),
        text: text.into(),
        spent_ms: None,
        lag_ms: None,
        at_ms: None,
    }
}

/// SQLite's database is a file in the data folder (made with its parents when missing), in WAL mode.
#[tokio::test]
async fn sqlite_keeps_a_wal_file_in_the_data_folder() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("nested/data");
    let store = SqliteStore::open(&data).await.unwrap();
    assert!(data.join(DATABASE_FILE).exists());
    assert!(
        data.join(format!("{DATABASE_FILE}-wal")).exists(),
        "WAL mode"
    );
    store.close().await.unwrap();
}

async fn appends_are_unique_and_load_in_order(db: &Database) {
    let store = open(db).await.unwrap();

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
        moves: 1,
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
    assert_eq!(live_ids(&*store).await, [b]);
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
    let t = tesuji_server::store::now();
    let live = StoredSession {
        user_id: ann,
        csrf: "c".into(),
        expires: i64::MAX,
        created: t,
        last_used: t,
        user_agent: Some("a browser".into()),
        address: Some("192.0.2.1".into()),
    };
    let old = StoredSession {
        user_id: bob,
        csrf: "d".into(),
        expires: 1,
        created: 0,
        last_used: 0,
        user_agent: None,
        address: None,
    };
    store.create_session(b"old", &old).await.unwrap();
    store.create_session(b"live", &live).await.unwrap();
    assert_eq!(store.find_session(b"live").await.unwrap(), Some(live));
    assert_eq!(store.find_session(b"old").await.unwrap(), None);
    store.delete_session(b"live").await.unwrap();
    assert_eq!(store.find_session(b"live").await.unwrap(), None);
    store.close().await.unwrap();

    // Reopening runs the migrations again without harm.
    let store = open(db).await.unwrap();
    assert_eq!(live_ids(&*store).await.len(), 1);
    assert!(store.load_game(a).await.unwrap().is_some());
    store.close().await.unwrap();
}

/// Appends are group-committed: many in one transaction. Every one lands, each game's in order, and a taken
/// number or a missing game fails that append alone.
async fn concurrent_appends_all_land_and_a_duplicate_fails_alone(db: &Database) {
    use std::sync::Arc;
    let store = open(db).await.unwrap();
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
                        moves: 19,
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

    assert!(live_ids(&*store).await.is_empty());
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
async fn imported_games_read_back_as_written(db: &Database) {
    use tesuji_server::store::ImportedGame;
    let store = open(db).await.unwrap();
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
                moves: k as i64,
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
    assert!(live_ids(&*store).await.is_empty());
    store.close().await.unwrap();
}

/// Users made with their checks: an account's name once whatever its case, no name that looks like an
/// account's, guests' names free to repeat; accounts made by tools get their skeletons later. Made at the
/// same moment through two stores (two nodes), two look-alikes never both get in.
async fn checked_users_and_skeletons(db: &Database) {
    use tesuji_server::store::NewUser;
    let store = open(db).await.unwrap();
    let account = |name: &'static str, key: &'static str, skeleton: &'static str| NewUser {
        name,
        name_key: key,
        skeleton,
        password_hash: Some("$argon2id$fake"),
    };
    let guest = |name: &'static str, skeleton: &'static str| NewUser {
        name,
        name_key: name,
        skeleton,
        password_hash: None,
    };
    let ann = store
        .create_checked_user(&account("Ann", "ann", "ann"))
        .await
        .unwrap();
    let taken = store
        .create_checked_user(&account("ANN", "ann", "ann"))
        .await;
    assert!(matches!(taken, Err(StoreError::NameTaken)), "{taken:?}");
    let alike = store
        .create_checked_user(&account("Ann2", "ann2", "ann"))
        .await;
    assert!(
        matches!(&alike, Err(StoreError::LooksLike { name }) if name == "Ann"),
        "{alike:?}"
    );
    let as_guest = store.create_checked_user(&guest("ann", "ann")).await;
    assert!(
        matches!(
            &as_guest,
            Err(StoreError::LooksLike { .. } | StoreError::NameTaken)
        ),
        "{as_guest:?}"
    );
    let g1 = store
        .create_checked_user(&guest("kim", "kim"))
        .await
        .unwrap();
    let g2 = store
        .create_checked_user(&guest("kim", "kim"))
        .await
        .unwrap();
    assert_ne!(g1, g2, "guests' names repeat");
    // An account may take a guest's name: guests are never compared with.
    let kim = store
        .create_checked_user(&account("Kim", "kim", "kim"))
        .await
        .unwrap();
    assert!(!store.find_user(kim).await.unwrap().unwrap().guest);
    assert_eq!(store.find_account("kim").await.unwrap().unwrap().id, kim);
    assert!(store.find_user(g1).await.unwrap().unwrap().guest);

    // Accounts made by tools have no skeleton until one is set; the pages of them go by id.
    let mut tools = Vec::new();
    for name in ["t1", "t2", "t3"] {
        tools.push(
            store
                .create_user(name, Some(name), Some("$argon2id$fake"))
                .await
                .unwrap(),
        );
    }
    store.create_user("guest", None, None).await.unwrap();
    let first = store.accounts_without_skeleton(0, 2).await.unwrap();
    assert_eq!(first, [(tools[0], "t1".into()), (tools[1], "t2".into())]);
    let rest = store.accounts_without_skeleton(tools[1], 2).await.unwrap();
    assert_eq!(rest, [(tools[2], "t3".into())]);
    let skeletons: Vec<(i64, String)> = tools.iter().map(|&id| (id, format!("s{id}"))).collect();
    store.set_skeletons(&skeletons).await.unwrap();
    assert!(
        store
            .accounts_without_skeleton(0, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let alike = store
        .create_checked_user(&account("x", "x", &*format!("s{}", tools[0]).leak()))
        .await;
    assert!(
        matches!(&alike, Err(StoreError::LooksLike { name }) if name == "t1"),
        "{alike:?}"
    );
    assert!(ann < kim);

    // Two nodes make look-alike accounts at the same moment, many times: one of each pair gets in.
    let other = open(db).await.unwrap();
    for k in 0..20 {
        let skeleton: &'static str = format!("race{k}").leak();
        let a: &'static str = format!("race{k}a").leak();
        let b: &'static str = format!("race{k}b").leak();
        let (user_a, user_b) = (account(a, a, skeleton), account(b, b, skeleton));
        let (first, second) = tokio::join!(
            store.create_checked_user(&user_a),
            other.create_checked_user(&user_b),
        );
        assert_eq!(
            usize::from(first.is_ok()) + usize::from(second.is_ok()),
            1,
            "{first:?} {second:?}"
        );
    }
    other.close().await.unwrap();
    store.close().await.unwrap();
}

/// Tables are cancelled and games aborted only while nobody has joined, or moved, respectively.
async fn cancel_and_abort_only_unplayed_games(db: &Database) {
    let store = open(db).await.unwrap();
    let ann = store.create_user("ann", None, None).await.unwrap();
    let bob = store.create_user("bob", None, None).await.unwrap();
    let seats = Seats {
        black: Some(ann),
        opponent: "anyone".into(),
        ..Seats::default()
    };
    let table = store
        .create_game("chinese:size=9", "open", &seats, None)
        .await
        .unwrap();
    let joined = store
        .create_game("chinese:size=9", "open", &seats, None)
        .await
        .unwrap();
    store.join_game(joined, "white", bob).await.unwrap();
    let started = store.cancel_table(joined).await;
    assert!(
        matches!(started, Err(StoreError::Started { game }) if game == joined),
        "{started:?}"
    );
    store.cancel_table(table).await.unwrap();
    assert_eq!(store.load_game(table).await.unwrap(), None);
    let again = store.cancel_table(table).await;
    assert!(
        matches!(again, Err(StoreError::Started { .. })),
        "{again:?}"
    );

    let played = store
        .create_game("chinese:size=9", "open", &seats, None)
        .await
        .unwrap();
    store.join_game(played, "white", bob).await.unwrap();
    store
        .append_move(played, &mv(1, "black", "E5"), "playing", None)
        .await
        .unwrap();
    let moved = store.abort_game(played).await;
    assert!(matches!(moved, Err(StoreError::Moved { .. })), "{moved:?}");
    assert!(store.load_game(played).await.unwrap().is_some());
    let not_joined = store
        .create_game("chinese:size=9", "open", &seats, None)
        .await
        .unwrap();
    let refused = store.abort_game(not_joined).await;
    assert!(
        matches!(refused, Err(StoreError::Moved { .. })),
        "{refused:?}"
    );
    store.abort_game(joined).await.unwrap();
    assert_eq!(store.load_game(joined).await.unwrap(), None);
    assert_eq!(store.count_games().await.unwrap(), 2);
    store.close().await.unwrap();
}

/// The listings come in keyset pages: a player's games by id, the archive by end time then id, a game ended
/// without a summary found and summarized.
async fn listings_come_in_pages(db: &Database) {
    use tesuji_server::store::ImportedGame;
    let store = open(db).await.unwrap();
    let ann = store.create_user("ann", None, None).await.unwrap();
    let bob = store.create_user("bob", None, None).await.unwrap();
    let cyd = store.create_user("cyd", None, None).await.unwrap();
    // Eleven games: Ann plays black in the even ones, white in the odd ones; the end times repeat, so that
    // ties are broken by id; game 5 has no summary, game 9 goes on.
    let games: Vec<ImportedGame> = (0..11)
        .map(|k| {
            let (black, white) = if k % 2 == 0 { (ann, bob) } else { (cyd, ann) };
            ImportedGame {
                rules: "chinese:size=9".into(),
                created: 10 + k,
                state: if k == 9 { "playing" } else { "over" }.into(),
                seats: Seats {
                    black: Some(black),
                    white: Some(white),
                    opponent: "anyone".into(),
                    joined: true,
                    ..Seats::default()
                },
                time_control: None,
                moves: vec![mv(1, "black", "resign")],
                ending: (k != 5 && k != 9).then(|| Ending {
                    result: Some("W+R".into()),
                    ended: 1_000 + k / 3,
                    moves: 0,
                }),
            }
        })
        .collect();
    let ids = store.import_games(&games).await.unwrap();

    // Ann's games, newest first, three at a time.
    let mut pages = Vec::new();
    let mut before = None;
    loop {
        let page = store.player_games(ann, before, 3).await.unwrap();
        if page.is_empty() {
            break;
        }
        before = page.last().map(|r| r.id);
        pages.push(page.iter().map(|r| r.id).collect::<Vec<_>>());
    }
    let newest: Vec<i64> = ids.iter().rev().copied().collect();
    assert_eq!(pages.concat(), newest);
    assert!(
        pages.iter().all(|p| p.len() <= 3) && pages.len() == 4,
        "{pages:?}"
    );
    let cyds = store.player_games(cyd, None, 100).await.unwrap();
    assert_eq!(cyds.len(), 5);

    // The archive: by end time, latest first, ties by id; the unsummarized and the live game are not in it.
    let mut expected: Vec<(i64, i64)> = games
        .iter()
        .zip(&ids)
        .filter_map(|(g, &id)| g.ending.as_ref().map(|e| (e.ended, id)))
        .collect();
    expected.sort_unstable_by(|a, b| b.cmp(a));
    let mut seen = Vec::new();
    let mut before = None;
    loop {
        let page = store.finished_games(before, 4).await.unwrap();
        if page.is_empty() {
            break;
        }
        before = page.last().map(|r| r.id);
        seen.extend(page.iter().map(|r| (r.ended.unwrap(), r.id)));
    }
    assert_eq!(seen, expected);
    assert!(
        store
            .finished_games(Some(ids[9]), 4)
            .await
            .unwrap()
            .is_empty(),
        "a live game"
    );
    assert!(
        store
            .finished_games(Some(999_999), 4)
            .await
            .unwrap()
            .is_empty(),
        "no such game"
    );

    // The game without a summary is found and gets one; then it is listed.
    assert_eq!(store.unsummarized_games(10).await.unwrap(), [ids[5]]);
    let ending = Ending {
        result: Some("B+R".into()),
        ended: 5_000,
        moves: 3,
    };
    store.set_ending(ids[5], &ending).await.unwrap();
    assert!(store.unsummarized_games(10).await.unwrap().is_empty());
    let first = &store.finished_games(None, 1).await.unwrap()[0];
    assert_eq!((first.id, first.result.as_deref()), (ids[5], Some("B+R")));
    assert_eq!(first.moves_played, Some(3));
    // An imported ending carries its moves played (a resignation is none).
    let second = &store.finished_games(Some(ids[5]), 1).await.unwrap()[0];
    assert_eq!(second.moves_played, Some(0), "{second:?}");
    // A summary filled in later keeps the result and end time already there: it adds the moves played.
    let again = Ending {
        result: Some("B+9".into()),
        ended: 7,
        moves: 12,
    };
    store.set_ending(second.id, &again).await.unwrap();
    let rows = store.finished_games(Some(ids[5]), 1).await.unwrap();
    assert_eq!(
        (
            rows[0].id,
            rows[0].result.as_deref(),
            rows[0].ended,
            rows[0].moves_played
        ),
        (second.id, second.result.as_deref(), second.ended, Some(12))
    );
    assert_eq!(live_ids(&*store).await, [ids[9]]);
    store.close().await.unwrap();
}

/// Two stores on one database (two nodes) append to the same games at once: each move number is stored once,
/// by whichever came first; the other hears `Conflict`; every game's row keeps the count of its moves.
async fn two_writers_store_each_move_once(db: &Database) {
    use std::sync::Arc;
    let one = open(db).await.unwrap();
    let two = open(db).await.unwrap();
    let ann = one.create_user("ann", None, None).await.unwrap();
    let seats = Seats {
        black: Some(ann),
        opponent: "anyone".into(),
        ..Seats::default()
    };
    let mut games = Vec::new();
    for _ in 0..8 {
        games.push(
            one.create_game("chinese:size=9", "playing", &seats, None)
                .await
                .unwrap(),
        );
    }
    let color = |n: i64| if n % 2 == 1 { "black" } else { "white" };
    // Both write moves 1..=30 of every game, in opposite game orders, each its own text.
    let write =
        |store: Arc<dyn tesuji_server::store::Store>, order: Vec<i64>, tag: &'static str| {
            tokio::spawn(async move {
                let mut won = Vec::new();
                for n in 1..=30 {
                    let appends = order.iter().map(|&g| {
                        let store = Arc::clone(&store);
                        async move {
                            let m = mv(n, color(n), &format!("{tag}{n}"));
                            (g, n, store.append_move(g, &m, "playing", None).await)
                        }
                    });
                    for (g, n, result) in futures_util::future::join_all(appends).await {
                        match result {
                            Ok(()) => won.push((g, n, tag)),
                            Err(StoreError::Conflict { game, number }) => {
                                assert_eq!((game, number), (g, n))
                            }
                            Err(e) => panic!("game {g} move {n}: {e}"),
                        }
                    }
                }
                won
            })
        };
    let mut reversed = games.clone();
    reversed.reverse();
    let (a, b) = tokio::join!(
        write(Arc::clone(&one), games.clone(), "a"),
        write(Arc::clone(&two), reversed, "b")
    );
    let mut won = a.unwrap();
    won.extend(b.unwrap());
    assert_eq!(won.len(), games.len() * 30, "each move stored once");
    for &g in &games {
        let game = one.load_game(g).await.unwrap().unwrap();
        assert_eq!(game.moves.len(), 30);
        for m in &game.moves {
            let tag = won
                .iter()
                .find(|&&(wg, n, _)| wg == g && n == m.number)
                .map(|w| w.2)
                .unwrap();
            assert_eq!(m.text, format!("{tag}{}", m.number));
        }
        let row = &one.player_games(ann, Some(g + 1), 1).await.unwrap()[0];
        assert_eq!(row.move_count, 30, "game {g}");
    }
    two.close().await.unwrap();
    one.close().await.unwrap();
}

/// A lease has one holder until it lapses or is given up; the holder renews it. Only PostgreSQL shares a
/// database between nodes (SQLite's one node always holds it, checked last).
#[tokio::test]
async fn a_lease_has_one_holder_until_it_lapses() {
    let dir = tempfile::tempdir().unwrap();
    let db = support::Backend::Postgres.database(dir.path());
    let (one, two) = (open(&db).await.unwrap(), open(&db).await.unwrap());
    // Node numbers use all 64 bits.
    let (a, b) = (u64::MAX - 1, 7);
    assert!(one.hold_lease("timers", a, 400).await.unwrap());
    assert!(!two.hold_lease("timers", b, 400).await.unwrap());
    // Another lease is another matter.
    assert!(two.hold_lease("other", b, 60_000).await.unwrap());
    assert!(!one.hold_lease("other", a, 60_000).await.unwrap());
    // Renewed before it lapses, it stays with its holder past its first expiry.
    for _ in 0..4 {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert!(one.hold_lease("timers", a, 400).await.unwrap());
        assert!(!two.hold_lease("timers", b, 400).await.unwrap());
    }
    // Not renewed, it lapses, and the other takes it; the first cannot take it back.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(two.hold_lease("timers", b, 400).await.unwrap());
    assert!(!one.hold_lease("timers", a, 400).await.unwrap());
    // Given up, it goes at once; giving up a lease one does not hold changes nothing.
    one.release_lease("timers", a).await.unwrap();
    assert!(!one.hold_lease("timers", a, 60_000).await.unwrap());
    two.release_lease("timers", b).await.unwrap();
    assert!(one.hold_lease("timers", a, 60_000).await.unwrap());
    let sqlite = open(&Database::Sqlite(dir.path().join("lite")))
        .await
        .unwrap();
    assert!(sqlite.hold_lease("timers", a, 1).await.unwrap());
    assert!(sqlite.hold_lease("timers", b, 1).await.unwrap());
}

/// A node catching up reads a game's row with only the moves it lacks (each with the time it was accepted),
/// and its progress without moves, alone or with every live game's.
async fn a_game_reads_from_a_move_on(db: &Database) {
    let store = open(db).await.unwrap();
    let ann = store.create_user("ann", None, None).await.unwrap();
    let seats = Seats {
        black: Some(ann),
        opponent: "anyone".into(),
        ..Seats::default()
    };
    let id = store
        .create_game("chinese:size=9", "playing", &seats, None)
        .await
        .unwrap();
    let texts = ["E5", "C3", "G7", "pass", "D4"];
    for (k, text) in texts.iter().enumerate() {
        let color = if k % 2 == 0 { "black" } else { "white" };
        let mut m = mv(k as i64 + 1, color, text);
        // When each was accepted, kept as given (the last one from before such times were kept).
        m.at_ms = (k < 4).then_some(1_796_000_000_000 + 1_500 * k as i64);
        store.append_move(id, &m, "playing", None).await.unwrap();
    }
    let whole = store.load_game(id).await.unwrap().unwrap();
    let times: Vec<_> = whole.moves.iter().map(|m| m.at_ms).collect();
    assert_eq!(
        times,
        [
            Some(1_796_000_000_000),
            Some(1_796_000_001_500),
            Some(1_796_000_003_000),
            Some(1_796_000_004_500),
            None
        ]
    );
    for after in 0..=6 {
        let part = store.load_game_after(id, after).await.unwrap().unwrap();
        let expected: Vec<_> = whole
            .moves
            .iter()
            .filter(|m| m.number > after)
            .cloned()
            .collect();
        assert_eq!(part.moves, expected, "after {after}");
        assert_eq!(
            (part.id, &part.seats, &part.state),
            (whole.id, &whole.seats, &whole.state)
        );
    }
    let progress = store.progress(id).await.unwrap().unwrap();
    assert_eq!((progress.moves, progress.joined), (5, false));
    assert_eq!(store.live_games().await.unwrap(), [(id, progress)]);
    assert_eq!(store.progress(id + 1000).await.unwrap(), None);
    assert_eq!(store.load_game_after(id + 1000, 0).await.unwrap(), None);
}

/// A ranked game's two players and the game, in a fresh store.
async fn rated_pair(store: &dyn Store) -> (i64, i64, [i64; 2]) {
    let ann = store
        .create_user("ann", Some("ann"), Some("hash"))
        .await
        .unwrap();
    let bob = store
        .create_user("bob", Some("bob"), Some("hash"))
        .await
        .unwrap();
    let seats = Seats {
        black: Some(ann),
        white: Some(bob),
        opponent: "anyone".into(),
        joined: true,
        ..Seats::default()
    };
    let mut games = [0; 2];
    for g in &mut games {
        *g = store
            .create_game("chinese:size=9", "playing", &seats, None)
            .await
            .unwrap();
    }
    (ann, bob, games)
}

/// A 9×9 game of `handicap` stones with an even game's komi.
fn setup(handicap: u8) -> tesuji_rating::Setup {
    tesuji_rating::Setup {
        handicap,
        ..tesuji_rating::Setup::even(9)
    }
}

/// Black wins `handicap`-stone games, as the server will rate them (crates/rating).
fn black_wins(handicap: u8) -> tesuji_server::store::RatingUpdate {
    Box::new(move |b, w| {
        tesuji_rating::rate(b, w, tesuji_rating::Outcome::BlackWins, &setup(handicap))
    })
}

/// A game is rated once: its players' ratings change by crates/rating's computation from what they were (a new
/// player's default first), a second rating of it changes nothing, and each player's history has the game.
async fn a_game_is_rated_once_and_kept_in_each_history(db: &Database) {
    use tesuji_rating::{Outcome, Rating, rate};
    use tesuji_server::store::Rated;
    let store = open(db).await.unwrap();
    let (ann, bob, [first, second]) = rated_pair(&*store).await;
    assert_eq!(store.rating(ann).await.unwrap(), None);
    let fresh = Rating::default();
    let expected = rate(fresh, fresh, Outcome::BlackWins, &setup(0));
    assert_eq!(
        store
            .rate_game(first, ann, bob, 1_000, black_wins(0))
            .await
            .unwrap(),
        Rated::Now {
            before: (fresh, fresh),
            after: expected
        }
    );
    assert_eq!(
        store
            .rate_game(first, ann, bob, 1_001, black_wins(0))
            .await
            .unwrap(),
        Rated::Already
    );
    assert_eq!(store.rating(ann).await.unwrap(), Some(expected.0));
    assert_eq!(store.rating(bob).await.unwrap(), Some(expected.1));
    // The next game starts from there.
    let again = rate(expected.0, expected.1, Outcome::BlackWins, &setup(2));
    assert_eq!(
        store
            .rate_game(second, ann, bob, 2_000, black_wins(2))
            .await
            .unwrap(),
        Rated::Now {
            before: expected,
            after: again
        }
    );
    let history = store.rating_history(ann, 10).await.unwrap();
    let points: Vec<_> = history.iter().map(|p| (p.game, p.at, p.rating)).collect();
    assert_eq!(
        points,
        [(first, 1_000, expected.0), (second, 2_000, again.0)]
    );
    let last = store.rating_history(bob, 1).await.unwrap();
    assert_eq!(last.len(), 1);
    assert_eq!((last[0].game, last[0].rating), (second, again.1));
    assert!(
        store
            .rating_history(ann + bob + 1, 10)
            .await
            .unwrap()
            .is_empty()
    );
}

/// Two stores on one database (two nodes) rate the same game at once: one rates it, the other hears `Already`,
/// and the ratings changed once.
async fn two_nodes_rating_one_game_rate_it_once(db: &Database) {
    use tesuji_server::store::Rated;
    let one = open(db).await.unwrap();
    let two = open(db).await.unwrap();
    let (ann, bob, [game, _]) = rated_pair(&*one).await;
    let (a, b) = tokio::join!(
        one.rate_game(game, ann, bob, 1_000, black_wins(0)),
        two.rate_game(game, ann, bob, 1_000, black_wins(0)),
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    let rated: Vec<_> = [a, b]
        .into_iter()
        .filter_map(|r| match r {
            Rated::Now { after, .. } => Some(after),
            Rated::Already => None,
        })
        .collect();
    assert_eq!(rated.len(), 1, "{a:?} {b:?}");
    assert_eq!(one.rating(ann).await.unwrap(), Some(rated[0].0));
    assert_eq!(two.rating_history(bob, 10).await.unwrap().len(), 1);
}

/// The bounds of uploads and reviews (`reviews`): each user's uploads of a day counted in files and bytes;
/// the queue's backlog on the site and per user; the queue taken in turn, each user's first review before
/// anyone's second; files nobody opened for a while forgotten with their reviews, opened ones kept.
async fn uploads_and_reviews_are_counted_taken_in_turn_and_expire(db: &Database) {
    use tesuji_server::store::{ReviewBacklog, Reviewed, UploadUsage};
    let store = open(db).await.unwrap();
    let (ann, bob, _) = rated_pair(&*store).await;
    let a1 = store
        .keep_upload("a1", &[1; 100], 1_000, ann)
        .await
        .unwrap();
    let a2 = store
        .keep_upload("a2", &[2; 250], 2_000, ann)
        .await
        .unwrap();
    let a3 = store.keep_upload("a3", &[3; 10], 2_500, ann).await.unwrap();
    let b1 = store.keep_upload("b1", &[4; 7], 3_000, bob).await.unwrap();
    // The same file again names the first and counts nothing more.
    assert_eq!(
        store
            .keep_upload("a1", &[1; 100], 4_000, bob)
            .await
            .unwrap(),
        a1
    );
    assert_eq!(
        store.upload_usage(ann, 0).await.unwrap(),
        UploadUsage {
            files: 3,
            bytes: 360,
            oldest_ms: Some(1_000)
        }
    );
    assert_eq!(
        store.upload_usage(ann, 1_500).await.unwrap(),
        UploadUsage {
            files: 2,
            bytes: 260,
            oldest_ms: Some(2_000)
        }
    );
    assert_eq!(
        store.upload_usage(bob, 0).await.unwrap(),
        UploadUsage {
            files: 1,
            bytes: 7,
            oldest_ms: Some(3_000)
        }
    );
    assert_eq!(
        store.upload_usage(ann + bob + 1, 0).await.unwrap(),
        UploadUsage::default()
    );

    // Ann asks for three reviews, then Bob for one.
    for (k, upload) in [a1, a2, a3].into_iter().enumerate() {
        store
            .request_review(Reviewed::Upload(upload), 10, 10 + k as i64, ann)
            .await
            .unwrap();
    }
    store
        .request_review(Reviewed::Upload(b1), 10, 20, bob)
        .await
        .unwrap();
    assert_eq!(
        store.review_backlog(ann).await.unwrap(),
        ReviewBacklog { all: 4, theirs: 3 }
    );
    assert_eq!(
        store.review_backlog(bob).await.unwrap(),
        ReviewBacklog { all: 4, theirs: 1 }
    );
    // Taken in turn: Ann's first, Bob's first (asked after all of Ann's), then Ann's second and third.
    let mut taken = Vec::new();
    while let Some(review) = store.take_review(100, 0).await.unwrap() {
        taken.push(review.subject);
    }
    assert_eq!(
        taken,
        [a1, b1, a2, a3].map(Reviewed::Upload),
        "each user's first review before anyone's second"
    );
    // Running reviews still count; done ones do not.
    assert_eq!(store.review_backlog(ann).await.unwrap().theirs, 3);
    store
        .save_review(Reviewed::Upload(a1), "done", 1, 1, Some("{}"), 200)
        .await
        .unwrap();
    assert_eq!(
        store.review_backlog(ann).await.unwrap(),
        ReviewBacklog { all: 3, theirs: 2 }
    );

    // Files last opened before 3 500 go, with their reviews; an opened one stays.
    store.open_upload(a2, 5_000).await.unwrap();
    assert_eq!(store.expire_uploads(3_500).await.unwrap(), 3);
    assert_eq!(store.upload_named("a2").await.unwrap(), Some(a2));
    for (name, id) in [("a1", a1), ("a3", a3), ("b1", b1)] {
        assert_eq!(store.upload_named(name).await.unwrap(), None, "{name}");
        assert_eq!(
            store.review(Reviewed::Upload(id)).await.unwrap(),
            None,
            "{name}"
        );
    }
    assert!(store.review(Reviewed::Upload(a2)).await.unwrap().is_some());
    assert_eq!(store.expire_uploads(3_500).await.unwrap(), 0);
}
