//! Sign-up, log-in, guests, CSRF, and the sign-in attempts' limits (also behind a proxy).

use super::*;

#[tokio::test]
async fn sign_in_attempts_are_rate_limited() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        auth_per_minute: 3,
        ..Limits::default()
    };
    let running = server_with(dir.path(), limits).await;
    let c = anonymous(&running);
    for k in 0..3 {
        let (status, body) = c
            .post("/api/guest", json!({"name": format!("g{k}")}))
            .await
            .unwrap();
        assert_eq!(status, 201, "{body}");
    }
    let r = c
        .request(Method::POST, "/api/login")
        .json(&json!({"name": "g0", "password": "whatever it is"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 429);
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["reason"], "rate_limited");
    running.stop().await.unwrap();
}

#[tokio::test]
async fn behind_a_proxy_limits_count_per_forwarded_address() {
    for behind_proxy in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits {
            auth_per_minute: 2,
            behind_proxy,
            ..Limits::default()
        };
        let running = server_with(dir.path(), limits).await;
        let c = anonymous(&running);
        let guest = |k: u32, forwarded: &'static str| {
            c.request(Method::POST, "/api/guest")
                .header("x-forwarded-for", forwarded)
                .json(&json!({"name": format!("g{k}")}))
                .send()
        };
        // Two attempts from one client (the proxy adds the last address; an earlier one is the client's word).
        for k in 0..2 {
            let r = guest(k, "10.9.9.9, 203.0.113.1").await.unwrap();
            assert_eq!(r.status().as_u16(), 201);
        }
        let r = guest(2, "203.0.113.1").await.unwrap();
        assert_eq!(r.status().as_u16(), 429);
        // Another client through the same proxy: its own budget behind a proxy, the proxy's spent one otherwise.
        let r = guest(3, "10.9.9.9, 203.0.113.2").await.unwrap();
        let expected = if behind_proxy { 201 } else { 429 };
        assert_eq!(r.status().as_u16(), expected, "behind_proxy {behind_proxy}");
        // The same client written with its port is still that client.
        let r = guest(4, "203.0.113.2:5678").await.unwrap();
        assert_eq!(r.status().as_u16(), expected, "behind_proxy {behind_proxy}");
        let r = guest(5, "[2001:db8::1]:443").await.unwrap();
        assert_eq!(r.status().as_u16(), expected, "behind_proxy {behind_proxy}");
        running.stop().await.unwrap();
    }
}

#[tokio::test]
async fn seats_lobby_and_history() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let cy = guest(&running, "cy").await;
    let open = table(
        &ann,
        "bga:size=9,counting=japanese,komi=normal,aga=on",
        "random",
        "anyone",
    )
    .await;
    let open_id = open["id"].as_i64().unwrap();
    assert_eq!(open["invite"], Value::Null);
    let seated_colour = if open["state"]["players"]["black"].is_null() {
        "white"
    } else {
        "black"
    };
    assert_eq!(open["state"]["players"][seated_colour]["name"], "ann");
    let private = table(&ann, "ideal:handicap=3", "white", "invite").await;
    let private_id = private["id"].as_i64().unwrap();
    assert_eq!(private["invite"].as_str().unwrap().len(), 32);

    let (_, lobby) = cy.get("/api/lobby").await.unwrap();
    let open_ids: Vec<i64> = lobby["open"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_i64().unwrap())
        .collect();
    assert_eq!(open_ids, vec![open_id], "invite-only tables are not listed");
    assert_eq!(lobby["playing"].as_array().unwrap().len(), 0);

    // Joining: the creator may not take the other seat; the first joiner gets it; the next finds it taken.
    let (status, body) = ann
        .post(&format!("/api/games/{open_id}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("already_seated"))
    );
    let (status, _) = bob
        .post(&format!("/api/games/{open_id}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let (status, body) = cy
        .post(&format!("/api/games/{open_id}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (409, Some("seat_taken")));
    let (status, body) = cy
        .post(
            &format!("/api/games/{private_id}/join"),
            json!({"invite": "guess"}),
        )
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (403, Some("bad_invite")));

    let (_, lobby) = cy.get("/api/lobby").await.unwrap();
    assert_eq!(lobby["open"].as_array().unwrap().len(), 0);
    assert_eq!(lobby["playing"][0]["id"], open_id);
    assert_eq!(lobby["playing"][0]["status"], "playing");

    let (status, history) = cy
        .get(&format!("/api/users/{}/games", ann.user_id().unwrap()))
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(history["user"]["name"], "ann");
    let ids: Vec<i64> = history["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![private_id, open_id]);
    let (_, history) = cy
        .get(&format!("/api/users/{}/games", bob.user_id().unwrap()))
        .await
        .unwrap();
    assert_eq!(history["games"].as_array().unwrap().len(), 1);
    assert_eq!(cy.get("/api/users/999/games").await.unwrap().0, 404);
    running.stop().await.unwrap();
}
