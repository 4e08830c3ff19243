//! Several nodes serving one site: they share one PostgreSQL database, which decides every action (the
//! `(game, number)` key), and NATS tells each node what the others changed. A notice carries no state, only
//! which game changed and its version: the node that holds the game reads what it lacks from the database and
//! tells its own watchers (`game::sync`). So a lost notice costs only time (the next action, a resync, or the
//! catch-up after NATS comes back brings the game up to date), and nothing but the database is ever the truth.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::error::ServerError;
use crate::game::Games;
use crate::game::registry::Change;
use crate::relay::{Outgoing, Relay};

/// The subject of the notices of changed games of site `site` (see [`crate::store::Store::site`]): the
/// nodes of one database share it, and no other site on the same NATS hears them.
pub fn changes_subject(site: &str) -> String {
    format!("tesuji.{site}.games")
}

/// The subject of who is at the board on site `site`: each node's seated players' sockets, and its heartbeat;
/// and of every other part's messages for the others (see [`crate::relay`]: chat messages, mutes, seeks,
/// vacations, sessions, which need no catching up: they are stored).
pub fn presence_subject(site: &str) -> String {
    format!("tesuji.{site}.presence")
}

/// How often a node says it is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(1);

/// A node not heard of for this long is taken for dead: its players' sockets are closed as far as the others
/// know (their grace period starts).
pub const SILENCE: Duration = Duration::from_secs(3);

/// Sockets per snapshot message, well under NATS's default largest message.
const SNAPSHOT_CHUNK: usize = 4096;

/// A change another node made: game `game` is at `version` in the database.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    /// The node that made it (a random number each node draws at start).
    pub node: u64,
    pub game: i64,
    pub version: u64,
    /// The action that made this version, as stored, when an action did (not a join or a new table): a node
    /// whose copy lacks only it applies it without reading the database. Absent from the notices of nodes
    /// before it was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<crate::store::StoredMove>,
}

/// What the cluster itself says on the presence subject: who is alive, and a node's sockets in full. Every
/// other message there is some part's own (see [`crate::relay`]), tagged the same way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Signal {
    /// Node `node` is alive. `fresh`: it has just started or come back to NATS, and asks for everyone's
    /// sockets (its own follow).
    Alive { node: u64, fresh: bool },
    /// All of node `node`'s sockets (game, user, count), in chunks; the first replaces what was known of it.
    Snapshot {
        node: u64,
        first: bool,
        sockets: Vec<(i64, i64, u32)>,
    },
}

/// What every message on the presence subject has: its type and the node that sent it.
#[derive(Deserialize)]
struct Envelope {
    #[serde(rename = "type")]
    kind: String,
    node: u64,
}

/// A relayed message as sent: its fields with its type and this node's number.
fn tagged(node: u64, message: Outgoing) -> serde_json::Result<Vec<u8>> {
    let mut fields = message.fields;
    fields.insert("type".into(), message.kind.into());
    fields.insert("node".into(), node.into());
    serde_json::to_vec(&fields)
}

/// This node's place in the cluster: its NATS connection and the tasks that publish and read the notices.
pub struct Cluster {
    client: async_nats::Client,
    tasks: Vec<JoinHandle<()>>,
}

impl Cluster {
    /// Connects node `node` to NATS at `url` and starts telling the other nodes of `games`' changes and bringing `games` up
    /// to theirs. While NATS is away, the client reconnects by itself; once it is back, every game is brought
    /// up to the database, since notices sent meanwhile are lost.
    pub async fn join(
        url: &str,
        site: &str,
        games: Arc<Games>,
        node: u64,
    ) -> Result<Cluster, ServerError> {
        let relay: Arc<Relay> = Arc::clone(games.relay());
        let (changes, presence) = (changes_subject(site), presence_subject(site));
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
            .subscribe(changes.clone())
            .await
            .map_err(|e| ServerError::Nats(format!("cannot subscribe to {changes}: {e}")))?;
        let mut signals = client
            .subscribe(presence.clone())
            .await
            .map_err(|e| ServerError::Nats(format!("cannot subscribe to {presence}: {e}")))?;
        let (changed, mut changes_made) = mpsc::unbounded_channel::<Change>();
        games.tell_changes(changed);
        let (outgoing, mut relayed) = mpsc::unbounded_channel::<Outgoing>();
        relay.connect(outgoing);
        // Set when the connection is (re)made: the next heartbeat asks for everyone's sockets.
        let fresh = Arc::new(AtomicBool::new(true));

        let publisher = {
            let (client, changes, presence) = (client.clone(), changes.clone(), presence.clone());
            tokio::spawn(async move {
                loop {
                    let (subject, payload) = tokio::select! {
                        Some(change) = changes_made.recv() => (
                            changes.clone(),
                            serde_json::to_vec(&Notice {
                                node,
                                game: change.game,
                                version: change.version,
                                action: change.action,
                            }),
                        ),
                        Some(message) = relayed.recv() => (presence.clone(), tagged(node, message)),
                        else => break,
                    };
                    let Ok(payload) = payload else {
                        continue;
                    };
                    // While NATS is away the client buffers a while, then refuses: the others catch up when it
                    // is back.
                    if let Err(e) = client.publish(subject, payload.into()).await {
                        tracing::warn!(error = %e, "a change could not be told to the other nodes");
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
                        if let Err(e) = games
                            .catch_up_to(notice.game, notice.version, notice.action)
                            .await
                        {
                            tracing::warn!(game = notice.game, error = %e, "catching up with another node failed");
                        }
                    });
                }
            })
        };
        // The nodes heard of, and when last.
        let heard = Arc::new(std::sync::Mutex::new(HashMap::<u64, Instant>::new()));
        let listener = {
            let (games, client, heard, subject) = (
                Arc::clone(&games),
                client.clone(),
                Arc::clone(&heard),
                presence.clone(),
            );
            tokio::spawn(async move {
                // Presence messages are applied in the order they came: a node's later count wins.
                while let Some(message) = signals.next().await {
                    let Ok(envelope) = serde_json::from_slice::<Envelope>(&message.payload) else {
                        continue;
                    };
                    let from = envelope.node;
                    if from == node {
                        continue;
                    }
                    let known = heard
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(from, Instant::now())
                        .is_some();
                    if relay.reads(&envelope.kind) {
                        relay.receive(from, &envelope.kind, &message.payload).await;
                        continue;
                    }
                    match serde_json::from_slice::<Signal>(&message.payload) {
                        Ok(Signal::Alive { fresh, .. }) => {
                            if fresh || !known {
                                snapshot(&client, &subject, node, &games).await;
                            }
                        }
                        Ok(Signal::Snapshot { first, sockets, .. }) => {
                            games.remote_node(from, &sockets, first).await;
                        }
                        // A kind this node does not know (a newer node's): nothing to do.
                        Err(_) => {}
                    }
                }
            })
        };
        let heartbeat = {
            let (games, client, heard, fresh, subject) = (
                Arc::clone(&games),
                client.clone(),
                Arc::clone(&heard),
                Arc::clone(&fresh),
                presence.clone(),
            );
            tokio::spawn(async move {
                let mut every = tokio::time::interval(HEARTBEAT);
                every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    every.tick().await;
                    let connected =
                        client.connection_state() == async_nats::connection::State::Connected;
                    if !connected {
                        // Nothing is heard meanwhile: nobody counts as silent for it.
                        for at in heard.lock().unwrap_or_else(|e| e.into_inner()).values_mut() {
                            *at = Instant::now();
                        }
                        continue;
                    }
                    let first = fresh.swap(false, Ordering::SeqCst);
                    let alive = Signal::Alive { node, fresh: first };
                    if let Ok(payload) = serde_json::to_vec(&alive)
                        && client
                            .publish(subject.clone(), payload.into())
                            .await
                            .is_err()
                    {
                        fresh.store(first, Ordering::SeqCst);
                        continue;
                    }
                    if first {
                        snapshot(&client, &subject, node, &games).await;
                    }
                    let silent: Vec<u64> = {
                        let mut heard = heard.lock().unwrap_or_else(|e| e.into_inner());
                        let silent: Vec<u64> = heard
                            .iter()
                            .filter(|(_, at)| at.elapsed() > SILENCE)
                            .map(|(&n, _)| n)
                            .collect();
                        for n in &silent {
                            heard.remove(n);
                        }
                        silent
                    };
                    for gone in silent {
                        tracing::info!(
                            node = format!("{gone:016x}"),
                            "a node fell silent; its players count as away"
                        );
                        games.remote_node(gone, &[], true).await;
                    }
                }
            })
        };
        let returns = {
            let games = Arc::clone(&games);
            let fresh = Arc::clone(&fresh);
            tokio::spawn(async move {
                // The first `Connected` is the connection just made.
                let _ = reconnections.recv().await;
                while reconnections.recv().await.is_some() {
                    fresh.store(true, Ordering::SeqCst);
                    tracing::info!("NATS is back; bringing every game up to the database");
                    if let Err(e) = games.catch_up_all().await {
                        tracing::warn!(error = %e, "catching up after NATS came back failed");
                    }
                }
            })
        };
        Ok(Cluster {
            client,
            tasks: vec![publisher, reader, listener, heartbeat, returns],
        })
    }

    /// The connection to NATS, for the health check.
    pub fn client(&self) -> async_nats::Client {
        self.client.clone()
    }

    /// Stops the tasks; notices not yet sent are dropped (the others catch up from the database).
    pub async fn leave(self) {
        for task in &self.tasks {
            task.abort();
        }
        let _ = self.client.flush().await;
    }
}

/// Tells the other nodes every socket of this node's seated players.
async fn snapshot(client: &async_nats::Client, subject: &str, node: u64, games: &Games) {
    let sockets = games.local_sockets().await;
    let mut chunks: Vec<&[(i64, i64, u32)]> = sockets.chunks(SNAPSHOT_CHUNK).collect();
    if chunks.is_empty() {
        chunks.push(&[]);
    }
    for (k, chunk) in chunks.into_iter().enumerate() {
        let signal = Signal::Snapshot {
            node,
            first: k == 0,
            sockets: chunk.to_vec(),
        };
        if let Ok(payload) = serde_json::to_vec(&signal)
            && let Err(e) = client.publish(subject.to_owned(), payload.into()).await
        {
            tracing::warn!(error = %e, "this node's sockets could not be told to the others");
            return;
        }
    }
}
