//! Group commit of moves, for every database: one task takes every append queued while the previous commit was
//! on its way to disk, writes them in one transaction, commits it (one flush for all), and only then answers
//! each caller. An acknowledged move is as durable as with a transaction of its own; many games share each
//! flush instead of queueing for one each. The database's part (the statements) is a [`WriteBatch`].

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::{Ending, StoreError, StoredMove};

/// At most this many appends share a transaction.
pub const MAX_BATCH: usize = 512;

/// One queued append and where its answer goes.
pub struct Append {
    pub game: i64,
    pub mv: StoredMove,
    pub state: String,
    pub ending: Option<Ending>,
    done: oneshot::Sender<Result<(), StoreError>>,
}

impl Append {
    /// The error of an append whose move number is taken.
    pub fn conflict(&self) -> StoreError {
        StoreError::Conflict {
            game: self.game,
            number: self.mv.number,
        }
    }
}

/// What one batch's transaction answers: an outcome per append, in order, or an error of the whole batch
/// (then nothing of it was committed).
pub type BatchFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<Result<(), StoreError>>, sqlx::Error>> + Send + 'a>>;

/// Writes a batch of appends in one transaction and commits it. The batch never holds two appends with the
/// same `(game, number)` (see [`Appends`]). A move number already taken fails that append alone.
pub trait WriteBatch: Send + Sync + 'static {
    fn write<'a>(&'a self, batch: &'a [Append]) -> BatchFuture<'a>;
}

/// The queue of appends and the task that commits them; both taken by `close`.
pub struct Appends {
    queue: Mutex<Option<mpsc::UnboundedSender<Append>>>,
    task: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for Appends {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Appends").finish_non_exhaustive()
    }
}

impl Appends {
    /// Starts the task that commits appends with `writer`.
    pub fn start(writer: impl WriteBatch) -> Appends {
        let (queue, queued) = mpsc::unbounded_channel();
        let task = tokio::spawn(commit_appends(writer, queued));
        Appends {
            queue: Mutex::new(Some(queue)),
            task: Mutex::new(Some(task)),
        }
    }

    /// Queues one append and waits until it is committed (or refused).
    pub async fn append(
        &self,
        game: i64,
        mv: &StoredMove,
        state: &str,
        ending: Option<&Ending>,
    ) -> Result<(), StoreError> {
        let (done, answer) = oneshot::channel();
        let append = Append {
            game,
            mv: mv.clone(),
            state: state.to_owned(),
            ending: ending.cloned(),
            done,
        };
        let sent = match &*self.queue.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(queue) => queue.send(append).is_ok(),
            None => false,
        };
        if !sent {
            return Err(sqlx::Error::PoolClosed.into());
        }
        // The answer comes after the commit; a lost answer means the task is gone, and so is the write.
        answer
            .await
            .unwrap_or_else(|_| Err(sqlx::Error::WorkerCrashed.into()))
    }

    /// Stops taking appends and waits until the queued ones are committed.
    pub async fn close(&self) {
        // Closing the queue lets the task commit what is queued and end.
        drop(self.queue.lock().unwrap_or_else(|e| e.into_inner()).take());
        let task = self.task.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(task) = task {
            let _ = task.await;
        }
    }
}

/// The group-commit task: every append queued by now goes into one transaction, then each caller is answered.
/// Two appends of one `(game, number)` in a batch: the later fails at once, so that the database sees each key
/// once.
async fn commit_appends(writer: impl WriteBatch, mut queue: mpsc::UnboundedReceiver<Append>) {
    let mut queued = Vec::with_capacity(MAX_BATCH);
    while queue.recv_many(&mut queued, MAX_BATCH).await > 0 {
        let mut keys = HashSet::with_capacity(queued.len());
        let mut batch = Vec::with_capacity(queued.len());
        for append in queued.drain(..) {
            if keys.insert((append.game, append.mv.number)) {
                batch.push(append);
            } else {
                let conflict = append.conflict();
                let _ = append.done.send(Err(conflict));
            }
        }
        match writer.write(&batch).await {
            Ok(results) => {
                let mut results = results.into_iter();
                for append in batch {
                    let result = results
                        .next()
                        .unwrap_or_else(|| Err(sqlx::Error::WorkerCrashed.into()));
                    let _ = append.done.send(result);
                }
            }
            // Nothing of the batch was committed: every caller hears of it.
            Err(e) => {
                let e = StoreError::from(e);
                // Each caller gets a copy (sqlx's errors are not Clone) that says the same of the database:
                // out of reach (the request may be made again), or failing.
                let unavailable = e.is_unavailable();
                let text = e.to_string();
                for append in batch {
                    let copy = if unavailable {
                        sqlx::Error::Io(std::io::Error::other(text.clone()))
                    } else {
                        sqlx::Error::Protocol(text.clone())
                    };
                    let _ = append.done.send(Err(copy.into()));
                }
            }
        }
    }
}

/// What a batch leaves on the games' rows (see [`settled`]).
pub struct Settled<'a> {
    /// Each game's state and action count after its last stored move of the batch.
    pub states: HashMap<i64, (&'a str, i64)>,
    /// The games the batch ended, with their endings.
    pub endings: Vec<(i64, &'a Ending)>,
}

/// What a batch leaves on the games' rows, from the appends whose outcome is `Ok`.
pub fn settled<'a>(batch: &'a [Append], outcomes: &[Result<(), StoreError>]) -> Settled<'a> {
    let mut states: HashMap<i64, (&str, i64)> = HashMap::new();
    let mut endings = Vec::new();
    for (a, outcome) in batch.iter().zip(outcomes) {
        if outcome.is_ok() {
            let newer = states.get(&a.game).is_none_or(|&(_, n)| n < a.mv.number);
            if newer {
                states.insert(a.game, (&a.state, a.mv.number));
            }
            if let Some(ending) = &a.ending {
                endings.push((a.game, ending));
            }
        }
    }
    Settled { states, endings }
}
