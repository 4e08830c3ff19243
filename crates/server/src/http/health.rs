//! Health and monitoring, for a load balancer or a reverse proxy in front of the server (docs/API.md):
//! `GET /healthz`, whether the node can serve (its store answers), and `GET /metrics`, its counters in
//! Prometheus's text format. Neither needs a session or a CSRF token, neither is limited per client, and neither
//! answer may be cached.

use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::AppState;
use crate::metrics::Gauges;
use crate::store::SiteStore;

/// How long the store has to answer a health check's ping.
pub const PING_TIMEOUT: Duration = Duration::from_secs(2);

/// The Content-Type of Prometheus's text format.
pub const METRICS_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The store's last answer to a ping: when it came, and what it was (`Err`: why it failed).
type Answer = (Instant, Result<(), String>);

/// The health checks' ping of the store, one at a time.
#[derive(Default)]
pub struct Probe {
    last: tokio::sync::Mutex<Option<Answer>>,
}

impl Probe {
    /// Whether `store` answers a ping within [`PING_TIMEOUT`]; `Err` says why not. One ping is in flight at a
    /// time: a check that arrives meanwhile waits for it and takes its answer, which came after the check
    /// arrived. So a flood of checks costs the database one ping at a time (and waits at most about one
    /// timeout), while no check is answered from before it was asked.
    pub async fn store(&self, store: &dyn SiteStore) -> Result<(), String> {
        let asked = Instant::now();
        let mut last = self.last.lock().await;
        if let Some((came, answer)) = &*last
            && *came >= asked
        {
            return answer.clone();
        }
        let answer = match tokio::time::timeout(PING_TIMEOUT, store.ping()).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!(
                "no answer to a ping within {} s",
                PING_TIMEOUT.as_secs()
            )),
        };
        // Logged when the health changes, not at every probe.
        let was_ok = last.as_ref().is_none_or(|(_, a)| a.is_ok());
        match &answer {
            Err(why) if was_ok => tracing::warn!(reason = %why, "the store fails its health check"),
            Ok(()) if !was_ok => tracing::info!("the store passes its health check again"),
            _ => {}
        }
        *last = Some((Instant::now(), answer.clone()));
        answer
    }
}

/// `GET /healthz`: 200 `{"ok": true, "checks": {"store": "ok"}}` (and `"nats": "ok"` on a node that is one of
/// several), or 503 with `ok` false and the reason in place of the failing check's `"ok"`.
pub(super) async fn healthz(State(app): State<AppState>) -> Response {
    let store = app.health.store(app.site.as_ref()).await;
    let nats = app.nats.as_ref().map(|client| {
        if client.connection_state() == async_nats::connection::State::Connected {
            Ok(())
        } else {
            Err("not connected to NATS".to_owned())
        }
    });
    let ok = store.is_ok() && nats.as_ref().is_none_or(Result::is_ok);
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let body = Health {
        ok,
        checks: Checks {
            store: store.err().unwrap_or_else(|| "ok".to_owned()),
            nats: nats.map(|n| n.err().unwrap_or_else(|| "ok".to_owned())),
        },
    };
    (status, [(header::CACHE_CONTROL, "no-store")], Json(body)).into_response()
}

/// The answer of `GET /healthz`.
#[derive(Serialize)]
struct Health {
    /// Whether every check is `"ok"`.
    ok: bool,
    checks: Checks,
}

/// Each check's `"ok"`, or why it failed.
#[derive(Serialize)]
struct Checks {
    store: String,
    /// Only on a node that is one of several.
    #[serde(skip_serializing_if = "Option::is_none")]
    nats: Option<String>,
}

/// `GET /metrics`: the counters, and what is read from the server at the scrape.
pub(super) async fn metrics(State(app): State<AppState>) -> Response {
    let gauges = Gauges {
        live_games: app.games.resident().live,
        lease_held: app.games.lease().held(),
    };
    (
        [
            (header::CONTENT_TYPE, METRICS_CONTENT_TYPE),
            (header::CACHE_CONTROL, "no-store"),
        ],
        app.metrics.render(gauges),
    )
        .into_response()
}
