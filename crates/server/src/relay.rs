//! What a part of the server tells the same part on the other nodes of a site: each message a type of the
//! module that sends and reads it (the core's presence, the chat's messages, the seeks...), named by its
//! [`Relayed::KIND`]. The cluster carries them as JSON objects tagged `type` and `node`; a node alone sends
//! nothing and hears nothing.
//!
//! Invariant: the relay knows no message type; a module registers the reading of its own kinds with
//! [`Relay::on`], and the messages of one node are read in the order it sent them.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock, RwLock, Weak};

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::mpsc::UnboundedSender;

/// A message for the other nodes: a JSON object (a struct with named fields, maybe none).
pub trait Relayed: Serialize + DeserializeOwned + Send + 'static {
    /// Its `type` on the wire, unique among the site's messages.
    const KIND: &'static str;
}

/// A message on its way out: its kind and its fields, without the node (the cluster adds it).
#[derive(Debug)]
pub struct Outgoing {
    pub kind: &'static str,
    pub fields: serde_json::Map<String, serde_json::Value>,
}

type Reading = Pin<Box<dyn Future<Output = ()> + Send>>;
type Reader = Arc<dyn Fn(u64, &[u8]) -> Option<Reading> + Send + Sync>;

/// This node's end of the relay.
#[derive(Default)]
pub struct Relay {
    out: OnceLock<UnboundedSender<Outgoing>>,
    readers: RwLock<HashMap<&'static str, Reader>>,
}

impl Relay {
    /// Whether this node is one of several (the cluster took the outgoing end).
    pub fn connected(&self) -> bool {
        self.out.get().is_some()
    }

    /// Sends `message` to the other nodes, when there are any. A message that cannot go (NATS away) is lost:
    /// what a relayed message says is stored, or said again, or read afresh when NATS is back.
    pub fn send<M: Relayed>(&self, message: &M) {
        let Some(out) = self.out.get() else {
            return;
        };
        match serde_json::to_value(message) {
            Ok(serde_json::Value::Object(fields)) => {
                let _ = out.send(Outgoing {
                    kind: M::KIND,
                    fields,
                });
            }
            _ => tracing::error!(kind = M::KIND, "a relayed message is not a JSON object"),
        }
    }

    /// Reads the messages of kind `M::KIND` that other nodes send with `read(target, from, message)`, for as
    /// long as `target` lives (the relay holds it weakly, so that it may hold the relay).
    pub fn on<M, T, F, Fut>(&self, target: &Arc<T>, read: F)
    where
        M: Relayed,
        T: Send + Sync + 'static,
        F: Fn(Arc<T>, u64, M) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let target: Weak<T> = Arc::downgrade(target);
        let reader: Reader = Arc::new(move |from, payload| {
            let message = serde_json::from_slice::<M>(payload).ok()?;
            let target = target.upgrade()?;
            Some(Box::pin(read(target, from, message)) as Reading)
        });
        let previous = self
            .readers
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(M::KIND, reader);
        debug_assert!(previous.is_none(), "two readers of {}", M::KIND);
    }

    /// Makes this node send its messages to `out` (the cluster's publisher).
    pub(crate) fn connect(&self, out: UnboundedSender<Outgoing>) {
        let _ = self.out.set(out);
    }

    /// Whether a module reads messages of kind `kind`.
    pub(crate) fn reads(&self, kind: &str) -> bool {
        self.readers
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(kind)
    }

    /// Reads message `payload` of kind `kind` from node `from`, waiting until its reader is done. A message
    /// of a kind nobody reads, or that does not parse, is dropped.
    pub(crate) async fn receive(&self, from: u64, kind: &str, payload: &[u8]) {
        let reader = self
            .readers
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(kind)
            .cloned();
        if let Some(reading) = reader.and_then(|read| read(from, payload)) {
            reading.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Said {
        user: i64,
    }

    impl Relayed for Said {
        const KIND: &'static str = "said";
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Changed {}

    impl Relayed for Changed {
        const KIND: &'static str = "changed";
    }

    #[tokio::test]
    async fn messages_go_out_tagged_and_come_back_to_their_reader() {
        let relay = Relay::default();
        // Alone: nothing goes out.
        relay.send(&Said { user: 1 });
        assert!(!relay.connected());
        let (out, mut sent) = tokio::sync::mpsc::unbounded_channel();
        relay.connect(out);
        assert!(relay.connected());
        relay.send(&Said { user: 7 });
        relay.send(&Changed {});
        let first = sent.recv().await.unwrap();
        assert_eq!(first.kind, "said");
        assert_eq!(first.fields.get("user"), Some(&serde_json::json!(7)));
        let second = sent.recv().await.unwrap();
        assert_eq!(second.kind, "changed");
        assert!(second.fields.is_empty());
        assert!(
            sent.try_recv().is_err(),
            "the message sent alone went nowhere"
        );

        let heard = Arc::new(Mutex::new(Vec::new()));
        let reads = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&reads);
        relay.on(&heard, move |heard, from, m: Said| {
            counted.fetch_add(1, Ordering::SeqCst);
            async move { heard.lock().unwrap().push((from, m.user)) }
        });
        assert!(relay.reads("said") && !relay.reads("changed"));
        // Fields the cluster adds are ignored; a message that does not parse is dropped.
        relay
            .receive(5, "said", br#"{"type":"said","node":5,"user":3}"#)
            .await;
        relay.receive(5, "said", br#"{"user":"x"}"#).await;
        relay.receive(5, "changed", b"{}").await;
        assert_eq!(*heard.lock().unwrap(), vec![(5, 3)]);
        assert_eq!(reads.load(Ordering::SeqCst), 1);
        // Once its target is gone, a reader reads nothing: the relay does not keep it alive.
        drop(heard);
        relay.receive(5, "said", br#"{"user":4}"#).await;
        assert_eq!(reads.load(Ordering::SeqCst), 1);
    }
}
