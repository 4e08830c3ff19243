//! Memory after a burst: uploads that cost the server a lot of memory while they are read must give it back to
//! the system once they are done, not only to the allocator. One test in its own binary, so that nothing else
//! runs beside it in the process whose resident memory it reads.

use std::time::{Duration, Instant};

use tesuji_client::Client;
use tesuji_client::reqwest::Method;
use tesuji_server::{Database, Limits, ServerConfig, start};

/// This process's resident memory, from `/proc/self/status`, in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .expect("a VmRSS line");
    line.split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("VmRSS in kB")
}

/// A record of `moves` passes on 25×25: read whole before the cap on moves refuses it.
fn long_record(moves: usize) -> String {
    let mut sgf = String::from("(;GM[1]FF[4]SZ[25]");
    for k in 0..moves {
        sgf.push_str(if k % 2 == 0 {
            ";B[]C[a pass]"
        } else {
            ";W[]C[a pass]"
        });
    }
    sgf.push(')');
    sgf
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_large_uploads_gives_its_memory_back() {
    let dir = tempfile::tempdir().unwrap();
    let running = start(ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        database: Database::Sqlite(dir.path().to_path_buf()),
        limits: Limits {
            records_per_minute: 6_000,
            ..Limits::default()
        },
        ..ServerConfig::default()
    })
    .await
    .expect("server starts");
    let base = format!("http://{}", running.address);
    let record = long_record(60_000);
    let upload = |c: Client, sgf: String| async move {
        let request = c
            .request(Method::POST, "/api/replay")
            .header("content-type", "application/x-go-sgf")
            .body(sgf);
        c.send(request).await.unwrap()
    };
    // One small upload first, so that the baseline includes what any request costs once.
    let (status, _) = upload(Client::new(&base).unwrap(), "(;GM[1]SZ[9];B[ee])".into()).await;
    assert_eq!(status, 200);
    let before = rss_kib();
    let mut peak = before;
    for _round in 0..3 {
        let burst: Vec<_> = (0..4)
            .map(|_| tokio::spawn(upload(Client::new(&base).unwrap(), record.clone())))
            .collect();
        for task in burst {
            let (status, body) = task.await.unwrap();
            assert_eq!(
                (status, body["reason"].as_str()),
                (422, Some("too_many_moves")),
                "{body}"
            );
        }
        peak = peak.max(rss_kib());
    }
    // The burst must have cost something to give back, or the check below proves nothing.
    assert!(
        peak > before + 40 * 1024,
        "the burst should take memory: {before} KiB before, {peak} KiB at the peak"
    );
    // Given back within a few seconds of the last upload's end.
    let done = Instant::now();
    let mut after = rss_kib();
    while after > before + 32 * 1024 && done.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(50)).await;
        after = rss_kib();
    }
    eprintln!("resident memory: {before} KiB before, {peak} KiB at the peak, {after} KiB after");
    assert!(
        after <= before + 32 * 1024,
        "memory not given back: {before} KiB before the burst, {peak} KiB at its peak, {after} KiB 5 s after"
    );
    running.stop().await.unwrap();
}
