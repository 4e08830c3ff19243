//! What features add to what the core's edge serves, without the core naming them: a game socket's further
//! events, a record's comments, the lobby's lists, an account's leaving. `lib.rs` fills [`Hooks`] with the
//! features that have some.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::stream::BoxStream;

use crate::error::Error;
use crate::game::LiveGame;
use crate::game::record::Comment;

/// Events a feature adds to a game's socket (the chat's messages), each already kept from the viewers who may
/// not see it.
pub trait GameFeed: Send + Sync {
    /// The events of game `live` for `viewer` from now on (JSON text). Called under the game's lock, as the
    /// socket takes the state it sends first, so that nothing made under the lock falls between the two.
    fn watch(&self, live: &LiveGame, viewer: Option<i64>) -> BoxStream<'static, Arc<str>>;
}

/// Comments a feature adds to a game's SGF record (the chat).
pub trait RecordComments: Send + Sync {
    /// Game `game`'s comments anyone may read, the game being `over` or not.
    fn comments(
        &self,
        game: i64,
        over: bool,
    ) -> Pin<Box<dyn Future<Output = Result<Vec<Comment>, Error>> + Send + '_>>;
}

/// Lists a feature adds to the lobby (automatch's seeks).
pub trait LobbyLists: Send + Sync {
    /// The lists as `viewer` (signed in or not) sees them, by name. Called for each lobby sent: read no store.
    fn lobby_lists(&self, viewer: Option<i64>) -> serde_json::Map<String, serde_json::Value>;
}

/// What a feature withdraws when an account is deleted (automatch's waiting seeks).
pub trait AccountLeaving: Send + Sync {
    /// User `user`'s account is about to be deleted: what it has waiting is withdrawn.
    fn leave(&self, user: i64) -> Pin<Box<dyn Future<Output = Result<(), Error>> + Send + '_>>;
}

/// The features' additions to the core's edge.
#[derive(Clone, Default)]
pub struct Hooks {
    pub feeds: Vec<Arc<dyn GameFeed>>,
    pub comments: Vec<Arc<dyn RecordComments>>,
    pub lobby: Vec<Arc<dyn LobbyLists>>,
    pub leaving: Vec<Arc<dyn AccountLeaving>>,
}
