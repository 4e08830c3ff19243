//! Automatch.

use super::*;

#[tokio::test]
async fn two_compatible_seekers_are_paired_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    // On two nodes: Ann and Carl on one, Bob and Dave on the other.
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let carl = guest(&running, "carl").await;
    let dave = guest(&running, "dave").await;
    for (body, says) in [
        (json!({"size": 9, "speed": "bullet"}), "speed"),
        (json!({"size": 10, "speed": "rapid"}), "size"),
        (
            json!({"size": 9, "speed": "rapid", "rules": "tromp-taylor"}),
            "rules",
        ),
        (
            json!({"size": 9, "speed": "rapid", "min_rank": "1d", "max_rank": "10k"}),
            "stronger",
        ),
        (
            json!({"size": 9, "speed": "rapid", "min_rank": "99x"}),
            "rank",
        ),
    ] {
        let (status, answer) = seek(&ann, body.clone()).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(answer["error"].as_str().unwrap().contains(says), "{answer}");
    }
    let (status, answer) = seek(&ann, json!({"size": 9, "speed": "rapid", "ranked": true})).await;
    assert_eq!(
        (status, &answer["reason"]),
        (403, &json!("ranked_needs_account"))
    );

    // Ann waits; Carl (another size) and Bob (another speed) do not match her.
    let (status, waiting) = seek(&ann, json!({"size": 9, "speed": "rapid"})).await;
    assert_eq!(status, 201, "{waiting}");
    let ann_seek = waiting["seek"]["id"].as_i64().unwrap();
    assert_eq!(waiting["seek"]["user"]["name"], "ann");
    assert_eq!(
        seek(&carl, json!({"size": 13, "speed": "rapid"})).await.0,
        201
    );
    assert_eq!(
        seek(&bob, json!({"size": 9, "speed": "blitz"})).await.0,
        201
    );
    let (shown, _) = seek_lists(&dave).await;
    assert_eq!(shown.len(), 3);
    assert!(shown.contains(&ann_seek));
    let (_, lobby) = dave.get("/api/lobby").await.unwrap();
    assert_eq!(lobby["seeks"].as_array().unwrap().len(), 3, "{lobby}");

    // Dave's matches hers at once, on the other node: a game between them, both seated.
    let (status, matched) = seek(&dave, json!({"size": 9, "speed": "rapid"})).await;
    assert_eq!(status, 200, "{matched}");
    let game = &matched["game"];
    assert_eq!(game["status"], "playing");
    assert!(
        game["rules"].as_str().unwrap().starts_with("japanese"),
        "{game}"
    );
    assert_eq!(
        (game["width"].as_i64(), game["invite_only"].as_bool()),
        (Some(9), Some(true))
    );
    let mut names = [
        game["players"]["black"]["name"].clone(),
        game["players"]["white"]["name"].clone(),
    ];
    names.sort_by_key(|n| n.to_string());
    assert_eq!(names, [json!("ann"), json!("dave")]);
    // Ann finds it in her own list; the lobby shows her seek no longer.
    let (shown, mine) = seek_lists(&ann).await;
    assert_eq!(mine, [(ann_seek, game["id"].clone())]);
    assert!(!shown.contains(&ann_seek), "{shown:?}");
    let (status, _) = ann.game(game["id"].as_i64().unwrap()).await.unwrap();
    assert_eq!(status, 200);

    // A seeker never matches themself; a waiting seek can be withdrawn, once.
    let (status, again) = seek(&bob, json!({"size": 9, "speed": "blitz"})).await;
    assert_eq!(status, 201, "{again}");
    let bob_seek = again["seek"]["id"].as_i64().unwrap();
    let cancel = format!("/api/seeks/{bob_seek}/cancel");
    assert_eq!(carl.post(&cancel, json!({})).await.unwrap().0, 404);
    assert_eq!(bob.post(&cancel, json!({})).await.unwrap().0, 200);
    let (status, body) = bob.post(&cancel, json!({})).await.unwrap();
    assert_eq!((status, &body["reason"]), (404, &json!("no_seek")));
    assert!(!seek_lists(&ann).await.0.contains(&bob_seek));
    running.stop().await.unwrap();
}

#[tokio::test]
async fn a_seek_matches_only_ranks_within_both_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    // New accounts are rated 1500: 6 kyu.
    let (eve, _) = account(&running, "eve").await;
    let (fay, _) = account(&running, "fay").await;
    let (gus, _) = account(&running, "gus").await;
    let ranked = |range: Value| {
        let mut body = json!({"size": 19, "speed": "classical", "ranked": true});
        body.as_object_mut()
            .unwrap()
            .extend(range.as_object().unwrap().clone());
        body
    };
    // Eve wants 10 kyu or weaker: Fay (6k) does not fit, and waits beside her.
    let (status, eve_seek) = seek(&eve, ranked(json!({"max_rank": "10k"}))).await;
    assert_eq!(status, 201, "{eve_seek}");
    assert_eq!(eve_seek["seek"]["max_rank"], "10k");
    assert_eq!(seek(&fay, ranked(json!({}))).await.0, 201);
    // Gus fits Fay's open range but wants 1 dan or stronger: he waits too.
    assert_eq!(seek(&gus, ranked(json!({"min_rank": "1d"}))).await.0, 201);
    assert_eq!(seek_lists(&eve).await.0.len(), 3);
    // Gus changes his mind (the same kind of seek replaces his): 8k to 4k holds Fay, who was first.
    let (status, matched) = seek(&gus, ranked(json!({"min_rank": "8k", "max_rank": "4k"}))).await;
    assert_eq!(status, 200, "{matched}");
    let game = &matched["game"];
    assert_eq!(game["ranked"], true);
    let names = [
        &game["players"]["black"]["name"],
        &game["players"]["white"]["name"],
    ];
    assert!(
        names.contains(&&json!("fay")) && names.contains(&&json!("gus")),
        "{game}"
    );
    // Equal ratings: no handicap, the rules' own komi.
    assert_eq!(game["handicap"], 0);
    assert_eq!(seek_lists(&eve).await.0.len(), 1);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn two_seekers_at_the_same_moment_make_one_game() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    for round in 0..5 {
        // On two nodes the two seekers are on different nodes.
        let a = guest(&running, &format!("a{round}")).await;
        let b = guest(&running, &format!("b{round}")).await;
        let body = json!({"size": 9, "speed": "classical", "rules": "chinese"});
        let ((one, first), (two, second)) = tokio::join!(seek(&a, body.clone()), seek(&b, body));
        let mut statuses = [one, two];
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 201], "round {round}: {first} {second}");
        let game = if one == 200 { &first } else { &second };
        assert_eq!(game["game"]["status"], "playing");
        assert!(seek_lists(&a).await.0.is_empty(), "round {round}");
    }
    running.stop().await.unwrap();
}
