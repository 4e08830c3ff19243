//! Several nodes serving one site: they share one PostgreSQL database, which decides every action (the
//! `(game, number)` key), and NATS tells each node what the others changed. A notice carries no state, only
//! which game changed and its version: the node that holds the game reads what it lacks from the database and
//! tells its own watchers (`game::sync`). So a lost notice costs only time (the next action, a resync, or the
//! catch-up after NATS comes back brings the game up to date), and nothing but the database is ever the truth.

use std::sync::Arc;

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::error::ServerError;
use crate::game::Games;

/// The subject of the notices of changed games.
pub const CHANGES: &str = "tesuji.games";

/// A change another node made: game `game` is at `version` in the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    /// The node that made it (a random number each node draws at start).
    pub node: u64,
    pub game: i64,
    pub version: u64,
}

/// This node's place in the cluster: its NATS connection and the tasks that publish and read the notices.
pub struct Cluster {
    /// This node's number.
    pub node: u64,
    client: async_nats::Client,
    tasks: Vec<JoinHandle<()>>,
}

impl Cluster {
    /// Connects node `node` to NATS at `url` and starts telling the other nodes of `games`' changes and bringing `games` up
    /// to theirs. While NATS is away, the client reconnects by itself; once it is back, every game is brought
    /// up to the database, since notices sent meanwhile are lost.
    pub async fn join(url: &str, games: Arc<Games>, node: u64) -> Result<Cluster, ServerError> {
        let (connected, mut reconnections) = mpsc::unbounded_channel::<()>();
        let client = async_nats::ConnectOptions::new()
            .name(format!("tesuji-{node:016x}"))
            .event_callback(move |event| {
                let connected = connected.clone();
                async move {
                    match event {
                        async_nats::Event::Connected => {
                            let _ = connected.send(());
                        }
                        async_nats::Event::Disconnected => {
                            tracing::warn!(
                                "NATS is away; the other nodes' changes wait for its return"
                            );
                        }
                        other => tracing::debug!(event = %other, "NATS"),
                    }
                }
            })
            .connect(url)
            .await
            .map_err(|e| ServerError::Nats(format!("cannot connect to NATS at {url}: {e}")))?;
        let mut notices = client
            .subscribe(CHANGES)
            .await
            .map_err(|e| ServerError::Nats(format!("cannot subscribe to {CHANGES}: {e}")))?;
        let (changes, mut changed) = mpsc::unbounded_channel::<(i64, u64)>();
        games.tell_changes(changes);

        let publisher = {
            let client = client.clone();
            tokio::spawn(async move {
                while let Some((game, version)) = changed.recv().await {
                    let notice = Notice {
                        node,
                        game,
                        version,
                    };
                    let Ok(payload) = serde_json::to_vec(&notice) else {
                        continue;
                    };
                    // While NATS is away the client buffers a while, then refuses: the others catch up when it
                    // is back.
                    if let Err(e) = client.publish(CHANGES, payload.into()).await {
                        tracing::warn!(game, error = %e, "a change could not be told to the other nodes");
                    }
                }
            })
        };
        let reader = {
            let games = Arc::clone(&games);
            tokio::spawn(async move {
                while let Some(message) = notices.next().await {
                    let Ok(notice) = serde_json::from_slice::<Notice>(&message.payload) else {
                        continue;
                    };
                    if notice.node == node {
                        continue;
                    }
                    let games = Arc::clone(&games);
                    tokio::spawn(async move {
                        if let Err(e) = games.catch_up_to(notice.game, notice.version).await {
                            tracing::warn!(game = notice.game, error = %e, "catching up with another node failed");
                        }
                    });
                }
            })
        };
        let returns = {
            let games = Arc::clone(&games);
            tokio::spawn(async move {
                // The first `Connected` is the connection just made.
                let _ = reconnections.recv().await;
                while reconnections.recv().await.is_some() {
                    tracing::info!("NATS is back; bringing every game up to the database");
                    if let Err(e) = games.catch_up_all().await {
                        tracing::warn!(error = %e, "catching up after NATS came back failed");
                    }
                }
            })
        };
        Ok(Cluster {
            node,
            client,
            tasks: vec![publisher, reader, returns],
        })
    }

    /// Whether NATS answers now.
    pub fn connected(&self) -> bool {
        self.client.connection_state() == async_nats::connection::State::Connected
    }

    /// Stops the tasks; notices not yet sent are dropped (the others catch up from the database).
    pub async fn leave(self) {
        for task in &self.tasks {
            task.abort();
        }
        let _ = self.client.flush().await;
    }
}
