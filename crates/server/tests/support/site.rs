//! A site as the API suite sees it: one server, or two nodes on one PostgreSQL database and one NATS whose
//! clients take turns (the first client made on the first node, the next on the second, ...), so that the two
//! players of a game, and a spectator, sit on different nodes.

use std::sync::atomic::{AtomicUsize, Ordering};

use tesuji_server::game::ResidentCount;
use tesuji_server::{Running, ServerConfig, ServerError};

use super::{Backend, nats_server};

/// The nodes of one site.
pub struct Site {
    nodes: Vec<Running>,
    next: AtomicUsize,
}

impl Site {
    /// Starts the site of `backend` on `config`: one server, or two nodes of its database on the tests' NATS.
    pub async fn start(backend: Backend, config: ServerConfig) -> Result<Site, ServerError> {
        let mut nodes = Vec::new();
        match backend {
            Backend::Sqlite | Backend::Postgres => nodes.push(tesuji_server::start(config).await?),
            Backend::TwoNodes => {
                let config = ServerConfig {
                    nats: Some(nats_server()),
                    ..config
                };
                for _ in 0..2 {
                    nodes.push(tesuji_server::start(config.clone()).await?);
                }
            }
        }
        Ok(Site {
            nodes,
            next: AtomicUsize::new(0),
        })
    }

    /// The base URL of the node the next client sits on.
    pub fn base(&self) -> String {
        let k = self.next.fetch_add(1, Ordering::Relaxed) % self.nodes.len();
        format!("http://{}", self.nodes[k].address)
    }

    /// The most games any node holds in memory, live and finished (each counted apart): every node holds every
    /// live game, and a finished one while its own readers and watchers hold it.
    pub fn resident(&self) -> ResidentCount {
        let counts = self.nodes.iter().map(Running::resident);
        ResidentCount {
            live: counts.clone().map(|c| c.live).max().unwrap_or(0),
            finished: counts.map(|c| c.finished).max().unwrap_or(0),
        }
    }

    /// Stops every node.
    pub async fn stop(self) -> Result<(), ServerError> {
        for node in self.nodes {
            node.stop().await?;
        }
        Ok(())
    }
}
