//! Reviews of finished games and uploaded records, and the live estimate.

use super::*;

/// Polls game `id`'s review until `done` holds (the review runs in the background), for at most 60 s.
async fn review_until(c: &Client, id: i64, done: impl Fn(&Value) -> bool) -> Value {
    let started = std::time::Instant::now();
    loop {
        let (status, review) = c.get(&format!("/api/games/{id}/review")).await.unwrap();
        assert_eq!(status, 200, "{review}");
        if done(&review) {
            return review;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "{review}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// A site whose reviews and estimates take 40 playouts a position, with a 9×9 game between two guests where
/// Black played E5, White C3 and Black G3.
async fn searched_game(dir: &Path) -> (Site, i64, Client, Client) {
    let running = start(ServerConfig {
        review_playouts: 40,
        ..config(dir)
    })
    .await
    .unwrap();
    let (id, black, white) = seated(&running, "chinese:size=9").await;
    for (c, mv) in [(&black, "E5"), (&white, "C3"), (&black, "G3")] {
        assert_eq!(c.play(id, mv).await.unwrap().0, 200);
    }
    (running, id, black, white)
}

/// A finished game is reviewed once, in the background: every position searched (win rate and lead from
/// Black's side, the engine's move and line, the ownership), the biggest mistakes; asking again changes
/// nothing, a restart keeps it, a game in play is not reviewed.
#[tokio::test]
async fn a_finished_game_is_reviewed_once_in_the_background() {
    let dir = tempfile::tempdir().unwrap();
    let (running, id, black, white) = searched_game(dir.path()).await;
    assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
    let path = format!("/api/games/{id}/review");
    // In play: nothing to review yet.
    let (status, body) = black.post(&path, json!({})).await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("not_over")),
        "{body}"
    );
    assert_eq!(resign(&white, id).await, 200);
    let watcher = anonymous(&running);
    let (_, none) = watcher.get(&path).await.unwrap();
    assert_eq!(none["status"], "none");
    let (status, _) = watcher.post(&path, json!({})).await.unwrap();
    assert_eq!(status, 401);
    let (status, asked) = white.post(&path, json!({})).await.unwrap();
    assert_eq!(status, 200, "{asked}");
    assert_eq!(asked["playouts"], 40);
    let review = review_until(&watcher, id, |r| r["status"] == "done").await;
    // Four turns: five positions, the last after White's pass with Black to move.
    assert_eq!(
        (review["done"].as_i64(), review["total"].as_i64()),
        (Some(5), Some(5))
    );
    let positions = review["results"]["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 5);
    let size = tesuji_rules::Size::square(9).unwrap();
    for (k, p) in positions.iter().enumerate() {
        assert_eq!(p["turn"], k);
        assert_eq!(p["to_move"], if k % 2 == 0 { "black" } else { "white" });
        assert_eq!(
            (p["searched"].as_bool(), p["playouts"].as_u64()),
            (Some(true), Some(40)),
            "{p}"
        );
        let rate = p["winrate"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&rate), "{p}");
        assert!(p["score"].as_f64().unwrap().abs() <= 81.0 + 7.5, "{p}");
        let own = p["ownership"].as_array().unwrap();
        assert_eq!(own.len(), 81);
        assert!(
            own.iter()
                .all(|o| (-100..=100).contains(&o.as_i64().unwrap()))
        );
        let best = p["best"].as_str().unwrap();
        assert!(
            best == "pass" || Point::from_gtp(best, size).is_some(),
            "{p}"
        );
        assert_eq!(p["pv"][0], p["best"], "{p}");
    }
    // E5 is on the board after the first move: the engine never suggests it later.
    assert!(positions[1..].iter().all(|p| p["best"] != "E5"));
    for m in review["results"]["mistakes"].as_array().unwrap() {
        assert!((1..=4).contains(&m["number"].as_i64().unwrap()), "{m}");
        assert!(m["loss"].as_f64().unwrap() >= 0.05, "{m}");
    }
    // Asked again (by anyone signed in), on either node: the same review, not a new one.
    let (status, again) = black.post(&path, json!({})).await.unwrap();
    assert_eq!((status, &again["status"]), (200, &json!("done")));
    assert_eq!(again["results"], review["results"]);
    let (status, _) = watcher.get("/api/games/999999/review").await.unwrap();
    assert_eq!(status, 404);
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let (_, after) = anonymous(&running).get(&path).await.unwrap();
    assert_eq!(after, review);
    running.stop().await.unwrap();
}

/// Uploads `body` for a review.
async fn upload(c: &Client, body: &'static str) -> (u16, Value) {
    c.send(c.request(Method::POST, "/api/reviews").body(body))
        .await
        .unwrap()
}

/// Uploads `body` (owned) for a review.
async fn upload_text(c: &Client, body: String) -> (u16, Value) {
    c.send(c.request(Method::POST, "/api/reviews").body(body))
        .await
        .unwrap()
}

/// A 9×9 record of `moves` (GTP vertices, Black first) seen in one of the board's 8 symmetries (`t`: bit 0
/// transposes, bit 1 flips left and right, bit 2 top and bottom), the colours swapped when `swap`.
fn record_9x9(moves: &[&str], t: u8, swap: bool) -> String {
    let mut sgf = String::from("(;GM[1]FF[4]SZ[9]KM[7.5]");
    for (k, mv) in moves.iter().enumerate() {
        let x = u32::from(mv.as_bytes()[0] - b'A') - u32::from(mv.as_bytes()[0] > b'I');
        let y = 9 - mv[1..].parse::<u32>().unwrap();
        let (mut x, mut y) = if t & 1 == 1 { (y, x) } else { (x, y) };
        if t & 2 != 0 {
            x = 8 - x;
        }
        if t & 4 != 0 {
            y = 8 - y;
        }
        let black = (k % 2 == 0) != swap;
        let point = |v: u32| char::from(b'a' + v as u8);
        sgf.push_str(&format!(
            ";{}[{}{}]",
            if black { "B" } else { "W" },
            point(x),
            point(y)
        ));
    }
    sgf.push(')');
    sgf
}

/// No engine help in one's own game: the record of a game in play, uploaded by one of its players for a review
/// (as downloaded, in any of the board's 8 symmetries, the colours swapped, or played on a few moves), is refused
/// until the game ends; a record of another game is reviewed, and so is the same record once the game is over.
#[tokio::test]
async fn a_record_of_ones_game_in_play_is_not_reviewed_until_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    // Thirty-odd uploads at once: the rate limits are not what is tested.
    let limits = Limits {
        actions_per_second: 1000,
        records_per_minute: 6000,
        ..Limits::default()
    };
    let running = server_with(dir.path(), limits).await;
    let (id, black, white) = seated(&running, "chinese:size=9").await;
    play_ten(&black, &white, id).await;
    let (status, downloaded) = black
        .get_text(&format!("/api/games/{id}/sgf"))
        .await
        .unwrap();
    assert_eq!(status, 200);
    for player in [&black, &white] {
        let (status, body) = upload_text(player, downloaded.clone()).await;
        assert_eq!(
            (status, &body["reason"]),
            (409, &json!("live_game_position")),
            "{body}"
        );
        assert!(
            body["error"].as_str().unwrap().contains(&id.to_string()),
            "the refusal names the game: {body}"
        );
    }
    let mut on = TEN_PLAYS.to_vec();
    on.extend(["B5", "H8", "A1"]);
    for t in 0..8 {
        for swap in [false, true] {
            for moves in [&TEN_PLAYS[..], &on[..]] {
                let record = record_9x9(moves, t, swap);
                let (status, body) = upload_text(&white, record.clone()).await;
                assert_eq!(status, 409, "{record}: {body}");
            }
        }
    }
    // Another game is reviewed.
    let other = record_9x9(&["C3", "G7", "C7", "G3", "E5", "E4"], 0, false);
    let (status, body) = upload_text(&black, other).await;
    assert_eq!(status, 200, "{body}");
    // Once the game is over, its record is.
    assert_eq!(resign(&white, id).await, 200);
    let (status, body) = upload_text(&black, downloaded).await;
    assert_eq!(status, 200, "{body}");
    running.stop().await.unwrap();
}

/// A record of one play at the `k`-th point of 9×9 (row by row from A1): a distinct file each.
fn one_play_record(k: usize) -> String {
    let column = ["A", "B", "C", "D", "E", "F", "G", "H", "J"][k % 9];
    record_9x9(&[format!("{column}{}", 1 + k / 9).as_str()], 0, false)
}

/// The name an uploaded file is kept under: the SHA-256 digest of its bytes.
fn digest_of(text: &str) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The review queue is shared fairly (the tester's uploads queued without end): on a node that computes no
/// reviews, so that they wait, a user's fourth waiting review is refused, saying which limit, and its file is not
/// kept; another user's is taken.
#[tokio::test]
async fn a_users_reviews_wait_three_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let running = start(ServerConfig {
        computes_reviews: false,
        limits: Limits {
            actions_per_second: 1000,
            records_per_minute: 6000,
            ..Limits::default()
        },
        ..config(dir.path())
    })
    .await
    .unwrap();
    let (ann, bob) = (guest(&running, "ann").await, guest(&running, "bob").await);
    for k in 0..3 {
        let (status, body) = upload_text(&ann, one_play_record(k)).await;
        assert_eq!((status, &body["status"]), (200, &json!("queued")), "{body}");
    }
    let (status, body) = upload_text(&ann, one_play_record(3)).await;
    assert_eq!(
        (status, &body["reason"]),
        (429, &json!("review_queue")),
        "{body}"
    );
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("3 of your reviews"),
        "{body}"
    );
    let path = format!("/api/reviews/{}", digest_of(&one_play_record(3)));
    assert_eq!(ann.get(&path).await.unwrap().0, 404, "nothing kept");
    assert_eq!(upload_text(&bob, one_play_record(3)).await.0, 200);
    // A finished game's review counts the same.
    let (id, black, _) = seated(&running, "chinese:size=9").await;
    assert_eq!(resign(&black, id).await, 200);
    let (status, body) = ann
        .post(&format!("/api/games/{id}/review"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, &body["reason"]),
        (429, &json!("review_queue")),
        "{body}"
    );
    assert_eq!(
        bob.post(&format!("/api/games/{id}/review"), json!({}))
            .await
            .unwrap()
            .0,
        200
    );
    running.stop().await.unwrap();
}

/// Uploads are bounded (the tester sent 30 files of 1 MiB a minute, kept forever): 20 files a day are kept, the
/// 21st is refused, saying which limit and when it frees, and taken once it has; a file nobody opened for 30
/// days is forgotten with its review, one opened meanwhile is kept.
#[tokio::test]
async fn uploads_are_kept_twenty_a_day_and_expire_unopened() {
    const DAY: u64 = 24 * 60 * 60 * 1000;
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = start(ServerConfig {
        time: TimeSource::manual(&time),
        review_playouts: 10,
        limits: Limits {
            actions_per_second: 1000,
            records_per_minute: 6000,
            ..Limits::default()
        },
        ..config(dir.path())
    })
    .await
    .unwrap();
    let ann = guest(&running, "ann").await;
    // Each review done before the next upload: the queue's bound is not what is tested here.
    let done = |k: usize| {
        let ann = &ann;
        async move {
            let path = format!("/api/reviews/{}", digest_of(&one_play_record(k)));
            let started = std::time::Instant::now();
            loop {
                let (status, review) = ann.get(&path).await.unwrap();
                if (status, &review["status"]) == (200, &json!("done")) {
                    return;
                }
                assert!(started.elapsed().as_secs() < 60, "file {k}: {review}");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        }
    };
    for k in 0..20 {
        let (status, body) = upload_text(&ann, one_play_record(k)).await;
        assert_eq!(status, 200, "file {k}: {body}");
        done(k).await;
    }
    let (status, body) = upload_text(&ann, one_play_record(20)).await;
    assert_eq!(
        (status, &body["reason"]),
        (429, &json!("upload_quota")),
        "{body}"
    );
    let said = body["error"].as_str().unwrap();
    assert!(
        said.contains("20 files") && said.contains("in 24 h 0 min"),
        "{said}"
    );
    // The same file as one kept is not a new one.
    assert_eq!(upload_text(&ann, one_play_record(5)).await.0, 200);
    time.advance(DAY - 1000);
    assert_eq!(upload_text(&ann, one_play_record(20)).await.0, 429);
    time.advance(1000);
    assert_eq!(upload_text(&ann, one_play_record(20)).await.0, 200);
    done(20).await;

    // Day 20: file 1 is opened. Day 31: a file not opened since day 1 is gone with its review, file 1 is not.
    time.advance(10 * DAY);
    // Ann keeps her session (unused for 14 days it lapses) without opening a file.
    assert!(ann.get("/api/session").await.unwrap().1["user"].is_object());
    time.advance(9 * DAY);
    let path = |k: usize| format!("/api/reviews/{}", digest_of(&one_play_record(k)));
    assert_eq!(ann.get(&path(1)).await.unwrap().0, 200);
    assert!(ann.get("/api/session").await.unwrap().1["user"].is_object());
    time.advance(11 * DAY);
    assert_eq!(upload_text(&ann, one_play_record(40)).await.0, 200);
    assert_eq!(ann.get(&path(0)).await.unwrap().0, 404);
    assert_eq!(ann.get(&format!("{}/sgf", path(2))).await.unwrap().0, 404);
    assert_eq!(ann.get(&path(1)).await.unwrap().0, 200);
    running.stop().await.unwrap();
}

/// An uploaded SGF file is reviewed like a game: kept once under the digest of its bytes, queued, searched
/// position by position (the replay's positions), found again by anyone who uploads the same file, kept over a
/// restart; bad files and strangers are refused.
#[tokio::test]
async fn an_uploaded_record_is_reviewed_once_under_its_digest() {
    let dir = tempfile::tempdir().unwrap();
    let (running, _, black, _) = searched_game(dir.path()).await;
    // Under Japanese rules with a handicap stone set up: the review replays the file as /api/replay does.
    let text = "(;GM[1]SZ[9]RU[Japanese]KM[0.5]HA[1]AB[cc]PL[W];W[ee];B[gg];W[];B[])";
    let (status, _) = upload(&anonymous(&running), text).await;
    assert_eq!(status, 401);
    for (bad, reason) in [
        ("(;SZ[9];B[ee];W[ee])", "bad_sgf"),
        ("no record at all", "bad_sgf"),
    ] {
        let (status, body) = upload(&black, bad).await;
        assert_eq!(
            (status, body["reason"].as_str()),
            (422, Some(reason)),
            "{bad}: {body}"
        );
    }
    let (status, asked) = upload(&black, text).await;
    assert_eq!(status, 200, "{asked}");
    let id = asked["id"].as_str().unwrap().to_owned();
    // The name is the SHA-256 digest of the bytes, in lowercase hexadecimal.
    use sha2::Digest as _;
    let digest: String = sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(id, digest);
    assert_eq!(asked["playouts"], 40);
    let path = format!("/api/reviews/{id}");
    let watcher = anonymous(&running);
    let started = std::time::Instant::now();
    let review = loop {
        let (status, review) = watcher.get(&path).await.unwrap();
        assert_eq!(status, 200, "{review}");
        if review["status"] == "done" {
            break review;
        }
        assert!(
            ["queued", "running"].contains(&review["status"].as_str().unwrap()),
            "{review}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "{review}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(review["id"], id);
    // Four turns after the set-up stone: five positions, White first (the handicap), the two last passes end play.
    let positions = review["results"]["positions"].as_array().unwrap();
    let (_, replay) = watcher
        .send(watcher.request(Method::POST, "/api/replay").body(text))
        .await
        .unwrap();
    assert_eq!(
        positions.len(),
        replay["moves"].as_array().unwrap().len() + 1
    );
    assert_eq!(positions.len(), 5);
    assert_eq!(positions[0]["to_move"], "white");
    assert_eq!(positions[1]["to_move"], "black");
    assert!(
        positions[..4].iter().all(|p| p["searched"] == true),
        "{review}"
    );
    // C7 and E5 are taken: never the engine's move after them.
    assert!(
        positions[1..4]
            .iter()
            .all(|p| p["best"] != "C7" && p["best"] != "E5")
    );
    assert!(positions[0]["ownership"].as_array().unwrap().len() == 81);
    // Anyone who uploads the same file finds the review done; the file comes back byte for byte.
    let other = guest(&running, "cat").await;
    let (status, again) = upload(&other, text).await;
    assert_eq!((status, &again["status"]), (200, &json!("done")));
    assert_eq!(again["results"], review["results"]);
    // To a client that accepts gzip, the review (and a replay) comes compressed, the same JSON inside.
    for (url, plain) in [
        (path.clone(), &review),
        (format!("{path}/sgf"), &Value::Null),
    ] {
        let answer = watcher
            .request(Method::GET, &url)
            .header("accept-encoding", "gzip")
            .send()
            .await
            .unwrap();
        let encoding = answer.headers().get("content-encoding").cloned();
        let body = answer.bytes().await.unwrap();
        if plain.is_null() {
            // The file itself is sent as it is.
            assert_eq!((encoding, &body[..]), (None, text.as_bytes()));
            continue;
        }
        assert_eq!(encoding.as_ref().map(|e| e.to_str().unwrap()), Some("gzip"));
        let mut json = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&body[..]), &mut json)
            .unwrap();
        assert_eq!(&serde_json::from_str::<Value>(&json).unwrap(), plain);
        assert!(
            body.len() * 2 < json.len(),
            "{} of {}",
            body.len(),
            json.len()
        );
    }
    let (status, back) = watcher.get_text(&format!("{path}/sgf")).await.unwrap();
    assert_eq!((status, back.as_str()), (200, text));
    // Unknown names, and anything that is not a digest, are not found.
    for unknown in ["0".repeat(64), "not-a-digest".to_owned(), id.to_uppercase()] {
        for suffix in ["", "/sgf"] {
            let (status, _) = watcher
                .get_text(&format!("/api/reviews/{unknown}{suffix}"))
                .await
                .unwrap();
            assert_eq!(status, 404, "{unknown}{suffix}");
        }
    }
    // A game's review and a file's are apart: game reviews still work beside it.
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let (_, after) = anonymous(&running).get(&path).await.unwrap();
    assert_eq!(after, review);
    running.stop().await.unwrap();
}

/// A live estimate: a spectator may ask during the game, a player only once it is over; the figures are those of
/// one reviewed position (the position now, ownership and all).
#[tokio::test]
async fn spectators_get_an_estimate_during_the_game_and_players_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let (running, id, black, white) = searched_game(dir.path()).await;
    let cat = guest(&running, "cat").await;
    let path = format!("/api/games/{id}/estimate");
    let (status, estimate) = cat.get(&path).await.unwrap();
    assert_eq!(status, 200, "{estimate}");
    assert_eq!(
        (estimate["turn"].as_i64(), estimate["to_move"].as_str()),
        (Some(3), Some("white"))
    );
    assert_eq!(estimate["playouts"], 40);
    assert_eq!(estimate["ownership"].as_array().unwrap().len(), 81);
    // E5 is Black's: the ownership there leans Black's way.
    let e5 = 4 * 9 + 4;
    assert!(
        estimate["ownership"][e5].as_i64().unwrap() > 0,
        "{estimate}"
    );
    for c in [&black, &white] {
        let (status, body) = c.get(&path).await.unwrap();
        assert_eq!(
            (status, body["reason"].as_str()),
            (403, Some("players_get_no_estimate"))
        );
    }
    assert_eq!(anonymous(&running).get(&path).await.unwrap().0, 401);
    assert_eq!(resign(&white, id).await, 200);
    let (status, after) = black.get(&path).await.unwrap();
    assert_eq!(status, 200, "{after}");
    // Over by resignation: the position the game ended in, searched.
    assert_eq!(
        (after["turn"].as_i64(), after["searched"].as_bool()),
        (Some(3), Some(true)),
        "{after}"
    );
    assert_eq!(after["ownership"].as_array().unwrap().len(), 81);
    // Over by two passes: the position before the second pass (the board the game ended with).
    let (id, black, white) = seated(&running, "chinese:size=9").await;
    for (c, mv) in [(&black, "E5"), (&white, "pass"), (&black, "pass")] {
        assert_eq!(c.play(id, mv).await.unwrap().0, 200);
    }
    let mut over = json!(null);
    for c in [&black, &white] {
        (_, over) = c
            .post(&format!("/api/games/{id}/accept"), json!({}))
            .await
            .unwrap();
    }
    assert_eq!(over["status"], "over", "{over}");
    let (status, ended) = black
        .get(&format!("/api/games/{id}/estimate"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{ended}");
    assert_eq!(
        (
            ended["turn"].as_i64(),
            ended["searched"].as_bool(),
            ended["to_move"].as_str()
        ),
        (Some(2), Some(true), Some("black")),
        "{ended}"
    );
    assert!(
        ended["ownership"][4 * 9 + 4].as_i64().unwrap() > 0,
        "{ended}"
    );
    running.stop().await.unwrap();
}
