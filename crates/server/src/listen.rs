//! Accepting connections. axum's own `serve` gives hyper no timer, so a client that sends its headers slowly
//! (or never finishes them) holds a connection for as long as it likes; here every HTTP/1 connection gets a
//! timer and a deadline for its headers, and `TCP_NODELAY` (an ack or an event is a small write that must leave
//! at once, not wait for the peer's delayed ACK of the previous one).

use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tower::ServiceExt;

/// How long a client may take to send a request's headers.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the connections still open at a stop may take to finish what they are doing.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// Serves `router` on `listener` until `stop` resolves, then lets open connections finish (a little while).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    stop: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let (closing, closed) = watch::channel(false);
    let mut stop = std::pin::pin!(stop);
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of file descriptors and the like: wait rather than spin, then go on.
                Err(e) => {
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let _ = tcp.set_nodelay(true);
        let service =
            router
                .clone()
                .map_request(move |request: hyper::Request<hyper::body::Incoming>| {
                    let mut request = request.map(axum::body::Body::new);
                    request.extensions_mut().insert(ConnectInfo(peer));
                    request
                });
        let mut closed = closed.clone();
        tokio::spawn(async move {
            let mut builder = Builder::new(TokioExecutor::new());
            builder
                .http1()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT);
            let connection = builder.serve_connection_with_upgrades(
                TokioIo::new(tcp),
                TowerToHyperService::new(service),
            );
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                // The flag changes once, to a stop (and an error means the server is gone: a stop too).
                _ = closed.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(STOP_GRACE, connection).await;
                }
            }
        });
    }
    let _ = closing.send(true);
    // Every connection task holds a receiver: they are all done when the channel has none left (this one
    // included, so it goes first).
    drop(closed);
    let _ = tokio::time::timeout(STOP_GRACE, closing.closed()).await;
    Ok(())
}
