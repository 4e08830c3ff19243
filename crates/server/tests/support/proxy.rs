//! A TCP proxy the test controls, to put an outage between a node and a server it needs (NATS, PostgreSQL):
//! it listens on a port of its own on 127.0.0.1 and forwards every connection to the target; `cut` closes
//! every open connection and closes each new one at once until `restore`, as when the target's machine goes
//! away and comes back.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How long `cut` waits for the forwarded connections to close.
const CLOSE_WITHIN: Duration = Duration::from_secs(5);

/// A TCP forwarder from `127.0.0.1:PORT` to a target address.
pub struct Proxy {
    address: SocketAddr,
    /// Whether connections are cut now; every connection's task watches it.
    cut: watch::Sender<bool>,
    counts: Arc<Counts>,
    accept: JoinHandle<()>,
}

/// What the target sends is held this long before it reaches the client (a slow link one way).
#[derive(Clone, Copy, Default)]
pub struct Lag(pub Duration);

#[derive(Default)]
struct Counts {
    /// Connections forwarded now.
    open: AtomicUsize,
    /// Connections forwarded since the start.
    forwarded: AtomicUsize,
    /// Connections closed at once because they came while cut.
    refused: AtomicUsize,
}

/// Decrements the open connections when a connection's task ends, however it ends.
struct Open(Arc<Counts>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Proxy {
    /// A proxy to `target` (`HOST:PORT`), forwarding from a free port of 127.0.0.1.
    pub async fn start(target: &str) -> Proxy {
        Proxy::lagging(target, Lag::default()).await
    }

    /// [`Proxy::start`], holding what the target sends for `lag` before passing it on.
    pub async fn lagging(target: &str, lag: Lag) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("the proxy listens");
        let address = listener.local_addr().expect("the proxy's address");
        let (cut, _) = watch::channel(false);
        let counts = Arc::new(Counts::default());
        let accept = {
            let (cut, counts, target) = (cut.clone(), Arc::clone(&counts), target.to_owned());
            tokio::spawn(async move {
                loop {
                    let Ok((client, _)) = listener.accept().await else {
                        continue;
                    };
                    if *cut.borrow() {
                        counts.refused.fetch_add(1, Ordering::SeqCst);
                        drop(client);
                        continue;
                    }
                    counts.open.fetch_add(1, Ordering::SeqCst);
                    counts.forwarded.fetch_add(1, Ordering::SeqCst);
                    let open = Open(Arc::clone(&counts));
                    tokio::spawn(forward(client, target.clone(), cut.subscribe(), open, lag));
                }
            })
        };
        Proxy {
            address,
            cut,
            counts,
            accept,
        }
    }

    /// The address the proxy listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Closes every forwarded connection (waiting until they are closed, at most five seconds) and closes each
    /// new one at once, until [`Proxy::restore`].
    pub async fn cut(&self) {
        self.cut.send_replace(true);
        let deadline = Instant::now() + CLOSE_WITHIN;
        while self.open() > 0 {
            assert!(
                Instant::now() < deadline,
                "the proxy's {} connections did not close within {CLOSE_WITHIN:?}",
                self.open()
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Forwards new connections again.
    pub fn restore(&self) {
        self.cut.send_replace(false);
    }

    /// How many connections are forwarded now.
    pub fn open(&self) -> usize {
        self.counts.open.load(Ordering::SeqCst)
    }

    /// How many connections were forwarded since the start.
    pub fn forwarded(&self) -> usize {
        self.counts.forwarded.load(Ordering::SeqCst)
    }

    /// How many connections were closed at once because they came while cut.
    pub fn refused(&self) -> usize {
        self.counts.refused.load(Ordering::SeqCst)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.accept.abort();
        // The connections' tasks end when they see the cut (or the sender gone).
        self.cut.send_replace(true);
    }
}

/// Forwards one connection both ways until either side closes it or the proxy is cut; dropping both streams
/// then closes them.
async fn forward(
    mut client: TcpStream,
    target: String,
    mut cut: watch::Receiver<bool>,
    open: Open,
    lag: Lag,
) {
    let _open = open;
    let mut server = tokio::select! {
        connected = TcpStream::connect(&target) => match connected {
            Ok(server) => server,
            Err(_) => return,
        },
        _ = cut.wait_for(|&c| c) => return,
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    if lag.0.is_zero() {
        tokio::select! {
            _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
            _ = cut.wait_for(|&c| c) => {}
        }
        return;
    }
    // One way straight, the other through a queue whose every chunk waits out the lag from when it was read.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    let (queue, mut queued) = tokio::sync::mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let reading = async move {
        let mut buffer = vec![0u8; 16 * 1024];
        while let Ok(n) = server_read.read(&mut buffer).await {
            if n == 0
                || queue
                    .send((Instant::now() + lag.0, buffer[..n].to_vec()))
                    .is_err()
            {
                break;
            }
        }
    };
    let writing = async move {
        while let Some((due, bytes)) = queued.recv().await {
            tokio::time::sleep_until(due.into()).await;
            if client_write.write_all(&bytes).await.is_err() {
                break;
            }
        }
    };
    tokio::select! {
        _ = tokio::io::copy(&mut client_read, &mut server_write) => {}
        _ = async { tokio::join!(reading, writing) } => {}
        _ = cut.wait_for(|&c| c) => {}
    }
}
