//! A game's chat. The players' talk is everyone's; the spectators' is kept from the two players until the game is
//! over (so that nobody whispers them a move), then everyone's. Messages are stored with the number of the game's
//! actions when they were sent, so a replay and the SGF put each at its move. Each user may mute another: that
//! user's messages are kept from them everywhere.
//!
//! A feature of its own: [`Chat`] is built with the store's chat and accounts areas, the time and a handle to
//! the core (a game's seats and phase, and its lock, under which a message takes its move number); it tells
//! the other nodes through the core's relay. It adds its messages to the game socket and the public talk to
//! the SGF record through the core's hooks (`crate::http::hooks`).

pub mod routes;

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::num::NonZeroUsize;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::stream::BoxStream;
use serde::{Deserialize, Serialize};
use tesuji_rules::Phase;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;
use unicode_security::GeneralSecurityProfile;
use unicode_security::general_security_profile::IdentifierType;

use crate::auth::User;
use crate::clocks::TimeSource;
use crate::error::Error;
use crate::game::record::Comment;
use crate::game::{Actor, Games, LiveGame};
use crate::http::hooks::{GameFeed, RecordComments};
use crate::relay::{Relay, Relayed};
use crate::store::{AccountStore, ChatStore, NewChat, StoredChat};

/// The longest message, in characters.
pub const CHAT_CHARS: usize = 500;

/// The most messages a game's chat answers (its last ones).
pub const CHAT_KEPT: usize = 1000;

/// Users whose mutes are kept in memory on a node.
const MUTES_CACHED: usize = 4096;

/// Messages a game's watchers on a node may be behind before they miss some (they read the chat again when
/// they resync).
const HEARD_BUFFER: usize = 64;

/// Who a message was said among.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// A seated player's: everyone sees it.
    Players,
    /// Anyone else's: the players see it once the game is over.
    Spectators,
}

impl Channel {
    pub fn name(self) -> &'static str {
        match self {
            Channel::Players => "players",
            Channel::Spectators => "spectators",
        }
    }

    fn of(name: &str) -> Channel {
        if name == "players" {
            Channel::Players
        } else {
            Channel::Spectators
        }
    }

    /// Whether a message of this channel reaches a viewer who is (`seated`) or is not one of the game's players,
    /// the game being `over` or not.
    pub fn reaches(self, seated: bool, over: bool) -> bool {
        self == Channel::Players || over || !seated
    }
}

/// A message's author as shown.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Author {
    pub id: i64,
    pub name: String,
}

/// A chat message as clients get it (docs/API.md, "Chat").
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ChatView {
    pub id: i64,
    pub game: i64,
    pub user: Author,
    pub channel: &'static str,
    /// The number of the game's stored actions when it was sent.
    #[serde(rename = "move")]
    pub move_number: i64,
    pub text: String,
    /// Wall milliseconds.
    pub at: i64,
}

impl From<&StoredChat> for ChatView {
    fn from(c: &StoredChat) -> ChatView {
        ChatView {
            id: c.id,
            game: c.game,
            user: Author {
                id: c.user,
                name: c.name.clone(),
            },
            channel: Channel::of(&c.channel).name(),
            move_number: c.move_number,
            text: c.text.clone(),
            at: c.at_ms,
        }
    }
}

/// A message said at a game, as its sockets get it: each socket leaves out what its viewer may not see.
#[derive(Debug)]
pub struct Heard {
    pub author: i64,
    /// The players it is kept from (the spectators' talk during the game).
    pub hidden_from: [Option<i64>; 2],
    /// The `chat` event, serialized once.
    pub event: Arc<str>,
}

impl Heard {
    fn of(live: &LiveGame, chat: &StoredChat) -> Heard {
        let hidden = !Channel::of(&chat.channel).reaches(true, live.game.phase() == Phase::Over);
        let seated = |c| if hidden { live.seat_user(c) } else { None };
        let event = serde_json::json!({"type": "chat", "message": ChatView::from(chat)});
        Heard {
            author: chat.user,
            hidden_from: [
                seated(tesuji_rules::Color::Black),
                seated(tesuji_rules::Color::White),
            ],
            event: Arc::from(event.to_string()),
        }
    }

    /// Whether the watcher `viewer`, who muted `muted`, gets this message.
    pub fn reaches(&self, viewer: Option<i64>, muted: &HashSet<i64>) -> bool {
        viewer.is_none_or(|v| !self.hidden_from.contains(&Some(v))) && !muted.contains(&self.author)
    }
}

/// The most lines a message holds, once runs of blank lines are one.
pub const CHAT_LINES: usize = 20;

/// The characters that change the direction of the text around them: the embeddings and overrides
/// (U+202A–U+202E), the isolates (U+2066–U+2069) and the marks (U+200E, U+200F, U+061C). A message that holds
/// one could turn the messages shown after it around; right-to-left text needs none (each message is shown on
/// its own, in its own direction).
fn is_direction_control(c: char) -> bool {
    matches!(
        c,
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
    )
}

/// Whether a character shows nothing: white space, and the default-ignorable characters (zero-width spaces and
/// joiners, the word joiner, the byte order mark, variation selectors, the Hangul fillers...), and the blank
/// Braille pattern.
fn is_invisible(c: char) -> bool {
    c.is_whitespace()
        || c == '\u{2800}'
        || c.identifier_type() == Some(IdentifierType::Default_Ignorable)
}

/// A message's text as stored: trimmed, with line ends as `\n`, each line without trailing white space, a line
/// of invisible characters only blank, and runs of blank lines one blank line. Refused when nothing in it is
/// visible, when too long (characters or lines), or holding a direction control or another control character.
pub fn checked_text(text: &str) -> Result<String, Error> {
    let text = text.replace("\r\n", "\n");
    if let Some(c) = text.chars().find(|&c| is_direction_control(c)) {
        return Err(Error::BadRequest(format!(
            "a chat message may not hold direction controls (U+{:04X}): right-to-left text needs none",
            u32::from(c)
        )));
    }
    if text.chars().any(|c| c.is_control() && c != '\n') {
        return Err(Error::BadRequest(
            "a chat message may not hold control characters".into(),
        ));
    }
    let mut lines: Vec<&str> = Vec::new();
    for line in text.split('\n') {
        let line = line.trim_end();
        let blank = line.chars().all(is_invisible);
        if blank && lines.last().is_none_or(|l| l.is_empty()) {
            continue;
        }
        lines.push(if blank { "" } else { line });
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let text = lines.join("\n");
    let text = text.trim();
    if text.is_empty() {
        return Err(Error::BadRequest(
            "a chat message needs some text: nothing in this one is visible".into(),
        ));
    }
    let chars = text.chars().count();
    if chars > CHAT_CHARS {
        return Err(Error::BadRequest(format!(
            "a chat message has at most {CHAT_CHARS} characters, not {chars}"
        )));
    }
    let count = lines.len();
    if count > CHAT_LINES {
        return Err(Error::BadRequest(format!(
            "a chat message has at most {CHAT_LINES} lines, not {count}"
        )));
    }
    Ok(text.to_owned())
}

/// A chat message was stored on the node that tells: the watchers of its game on the others get it too.
#[derive(Serialize, Deserialize)]
struct ChatStored {
    chat: StoredChat,
}

impl Relayed for ChatStored {
    const KIND: &'static str = "said";
}

/// User `user` changed whom they mute, on the node that tells: the others forget what they knew of it.
#[derive(Serialize, Deserialize)]
struct MutesChanged {
    user: i64,
}

impl Relayed for MutesChanged {
    const KIND: &'static str = "muted";
}

/// Whom each user muted, for the users seen lately on this node (read from the store when not held).
struct Mutes {
    store: Arc<dyn ChatStore>,
    cache: std::sync::Mutex<lru::LruCache<i64, Arc<HashSet<i64>>>>,
}

impl Mutes {
    fn new(store: Arc<dyn ChatStore>) -> Mutes {
        Mutes {
            store,
            cache: std::sync::Mutex::new(lru::LruCache::new(
                NonZeroUsize::new(MUTES_CACHED).unwrap_or(NonZeroUsize::MIN),
            )),
        }
    }

    fn cached(&self) -> std::sync::MutexGuard<'_, lru::LruCache<i64, Arc<HashSet<i64>>>> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forgets what user `user` muted (they changed it, here or on another node).
    fn forget(&self, user: i64) {
        self.cached().pop(&user);
    }

    /// The users `user` muted.
    async fn of(&self, user: i64) -> Result<Arc<HashSet<i64>>, Error> {
        if let Some(muted) = self.cached().get(&user) {
            return Ok(Arc::clone(muted));
        }
        let muted: Arc<HashSet<i64>> =
            Arc::new(self.store.mutes_of(user).await?.into_iter().collect());
        self.cached().put(user, Arc::clone(&muted));
        Ok(muted)
    }
}

/// The channel of each game watched on this node, which its sockets hear the chat on. A game's channel goes
/// when its last socket does.
#[derive(Default)]
struct Rooms {
    of_game: std::sync::Mutex<HashMap<i64, broadcast::Sender<Arc<Heard>>>>,
}

impl Rooms {
    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<i64, broadcast::Sender<Arc<Heard>>>> {
        self.of_game.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn enter(self: &Arc<Self>, game: i64) -> Listener {
        let heard = self
            .held()
            .entry(game)
            .or_insert_with(|| broadcast::channel(HEARD_BUFFER).0)
            .subscribe();
        Listener {
            rooms: Arc::clone(self),
            game,
            heard,
        }
    }

    fn watched(&self, game: i64) -> bool {
        self.held().contains_key(&game)
    }

    /// Tells game `game`'s sockets here, when it has any.
    fn tell(&self, game: i64, heard: impl FnOnce() -> Heard) {
        if let Some(room) = self.held().get(&game) {
            let _ = room.send(Arc::new(heard()));
        }
    }
}

/// One socket's place in its game's room.
struct Listener {
    rooms: Arc<Rooms>,
    game: i64,
    heard: broadcast::Receiver<Arc<Heard>>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        let mut rooms = self.rooms.held();
        // This listener's receiver is still counted: the room is empty when it is the only one.
        if rooms
            .get(&self.game)
            .is_some_and(|room| room.receiver_count() <= 1)
        {
            rooms.remove(&self.game);
        }
    }
}

/// The games' chat.
pub struct Chat {
    games: Arc<Games>,
    store: Arc<dyn ChatStore>,
    accounts: Arc<dyn AccountStore>,
    relay: Arc<Relay>,
    time: TimeSource,
    mutes: Arc<Mutes>,
    rooms: Arc<Rooms>,
}

impl Chat {
    /// The chat, reading what the other nodes tell of it.
    pub fn new(
        games: Arc<Games>,
        store: Arc<dyn ChatStore>,
        accounts: Arc<dyn AccountStore>,
        time: TimeSource,
    ) -> Arc<Chat> {
        let chat = Arc::new(Chat {
            relay: Arc::clone(games.relay()),
            games,
            mutes: Arc::new(Mutes::new(Arc::clone(&store))),
            store,
            accounts,
            time,
            rooms: Arc::default(),
        });
        chat.relay.on(&chat, |chat, _, m: ChatStored| async move {
            chat.said_elsewhere(m.chat).await
        });
        chat.relay.on(&chat, |chat, _, m: MutesChanged| async move {
            chat.mutes.forget(m.user)
        });
        chat
    }

    /// User `user` says `text` at game `id`: stored, then sent to the watchers allowed to see it, here and on the
    /// other nodes.
    pub async fn say(&self, id: i64, user: &User, text: &str) -> Result<ChatView, Error> {
        let text = checked_text(text)?;
        let entry = self.games.get(id).await?;
        let live = entry.lock().await;
        if live.cancelled {
            return Err(Error::NotFound(id));
        }
        let channel = match live.seat_of(Actor::User(user.id)) {
            Some(_) => Channel::Players,
            None => Channel::Spectators,
        };
        // Stored under the game's lock, so that its move number is the one its watchers saw last.
        let stored = self
            .store
            .add_chat(&NewChat {
                game: id,
                user: user.id,
                channel: channel.name(),
                move_number: live.stored_count(),
                text: &text,
                at_ms: i64::try_from(self.time.wall_ms()).unwrap_or(i64::MAX),
            })
            .await?;
        self.rooms.tell(id, || Heard::of(&live, &stored));
        drop(live);
        self.relay.send(&ChatStored {
            chat: stored.clone(),
        });
        Ok(ChatView::from(&stored))
    }

    /// A message said on another node: this node's watchers of its game get it, when it has any.
    async fn said_elsewhere(&self, chat: StoredChat) {
        if !self.rooms.watched(chat.game) {
            return;
        }
        // A watched game is in memory: its sockets hold it.
        if let Ok(entry) = self.games.get(chat.game).await {
            let live = entry.lock().await;
            self.rooms.tell(chat.game, || Heard::of(&live, &chat));
        }
    }

    /// Game `id`'s chat as the viewer `viewer` may see it, oldest first.
    pub async fn of_game(&self, id: i64, viewer: Option<i64>) -> Result<Vec<ChatView>, Error> {
        let entry = self.games.look(id).await?;
        let (seated, over) = {
            let live = entry.lock().await;
            let seated = viewer.is_some_and(|v| live.seat_of(Actor::User(v)).is_some());
            (seated, live.game.phase() == Phase::Over)
        };
        let muted = match viewer {
            Some(v) => self.mutes.of(v).await?,
            None => Arc::default(),
        };
        Ok(self
            .store
            .chat_of(id, CHAT_KEPT)
            .await?
            .iter()
            .filter(|c| Channel::of(&c.channel).reaches(seated, over) && !muted.contains(&c.user))
            .map(ChatView::from)
            .collect())
    }

    /// The users `user` mutes, in order.
    pub async fn muted_by(&self, user: i64) -> Result<Vec<i64>, Error> {
        let mut muted: Vec<i64> = self.mutes.of(user).await?.iter().copied().collect();
        muted.sort_unstable();
        Ok(muted)
    }

    /// User `user` mutes `muted` (`on`) or no longer does; answers whom they mute now.
    pub async fn mute(&self, user: i64, muted: i64, on: bool) -> Result<Vec<i64>, Error> {
        if muted == user {
            return Err(Error::BadRequest("you cannot mute yourself".into()));
        }
        if self.accounts.find_user(muted).await?.is_none() {
            return Err(Error::NoUser(muted));
        }
        self.store.set_mute(user, muted, on).await?;
        self.mutes.forget(user);
        self.relay.send(&MutesChanged { user });
        self.muted_by(user).await
    }
}

impl GameFeed for Chat {
    fn watch(&self, live: &LiveGame, viewer: Option<i64>) -> BoxStream<'static, Arc<str>> {
        let listener = self.rooms.enter(live.id);
        let mutes = Arc::clone(&self.mutes);
        Box::pin(futures_util::stream::unfold(
            listener,
            move |mut listener| {
                let mutes = Arc::clone(&mutes);
                async move {
                    loop {
                        let heard = match listener.heard.recv().await {
                            Ok(heard) => heard,
                            // A watcher this far behind reads the chat again (GET .../chat) when it resyncs.
                            Err(RecvError::Lagged(_)) => continue,
                            Err(RecvError::Closed) => return None,
                        };
                        let muted = match viewer {
                            Some(v) => mutes.of(v).await.unwrap_or_default(),
                            None => Arc::default(),
                        };
                        if heard.reaches(viewer, &muted) {
                            return Some((Arc::clone(&heard.event), listener));
                        }
                    }
                }
            },
        ))
    }
}

impl RecordComments for Chat {
    /// The players' talk, and the spectators' once the game is over, each line under its author's name.
    fn comments(
        &self,
        game: i64,
        over: bool,
    ) -> Pin<Box<dyn Future<Output = Result<Vec<Comment>, Error>> + Send + '_>> {
        Box::pin(async move {
            let chat = self.store.chat_of(game, CHAT_KEPT).await?;
            Ok(chat
                .into_iter()
                .filter_map(|c| {
                    let channel = Channel::of(&c.channel);
                    (over || channel == Channel::Players).then(|| {
                        let watching = match channel {
                            Channel::Players => "",
                            Channel::Spectators => " (watching)",
                        };
                        Comment {
                            move_number: c.move_number,
                            line: format!("{}{watching}: {}", c.name, c.text),
                        }
                    })
                })
                .collect())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heard(author: i64) -> Heard {
        Heard {
            author,
            hidden_from: [None, None],
            event: Arc::from(format!("{author}")),
        }
    }

    #[tokio::test]
    async fn a_room_lives_as_long_as_a_socket_listens() {
        let rooms = Arc::new(Rooms::default());
        // Nobody listens: nothing is kept, nothing is told.
        rooms.tell(1, || heard(5));
        assert!(!rooms.watched(1));
        let mut first = rooms.enter(1);
        let second = rooms.enter(1);
        let other = rooms.enter(2);
        rooms.tell(1, || heard(6));
        assert_eq!(&*first.heard.recv().await.unwrap().event, "6");
        drop(second);
        assert!(rooms.watched(1), "one socket still listens");
        drop(first);
        assert!(!rooms.watched(1), "the last socket left: the room goes");
        assert!(rooms.watched(2));
        drop(other);
        assert!(rooms.held().is_empty());
    }

    #[test]
    fn the_spectators_talk_reaches_the_players_only_after_the_game() {
        assert!(Channel::Players.reaches(true, false));
        assert!(Channel::Players.reaches(false, false));
        assert!(Channel::Spectators.reaches(false, false));
        assert!(!Channel::Spectators.reaches(true, false));
        assert!(Channel::Spectators.reaches(true, true));
    }

    #[test]
    fn a_message_is_trimmed_and_checked() {
        assert_eq!(checked_text("  hi\r\nthere ").unwrap(), "hi\nthere");
        for bad in ["", "  \n ", "a\u{7}b", "tab\there"] {
            assert!(
                matches!(checked_text(bad), Err(Error::BadRequest(_))),
                "{bad:?}"
            );
        }
        // Characters, not bytes: 500 Chinese characters are allowed, 501 are not.
        assert!(checked_text(&"棋".repeat(CHAT_CHARS)).is_ok());
        let e = checked_text(&"棋".repeat(CHAT_CHARS + 1)).unwrap_err();
        assert!(e.to_string().contains("501"), "{e}");
        // Markup is text: stored as it came, escaped where it is shown.
        assert_eq!(checked_text("<b>x</b>").unwrap(), "<b>x</b>");
        // Blank lines, also of invisible characters, collapse; a leading one goes.
        assert_eq!(
            checked_text("\u{200B}\n\na  \n\u{200B}\n\n\nb").unwrap(),
            "a\n\nb"
        );
        for bad in [
            "\u{202E}x",
            "x\u{2067}",
            "\u{200B}\u{FEFF}",
            "\u{2800}\n\u{3164}",
        ] {
            assert!(checked_text(bad).is_err(), "{bad:?}");
        }
        let lines = vec!["a"; CHAT_LINES].join("\n");
        assert!(checked_text(&lines).is_ok());
        assert!(checked_text(&format!("{lines}\nb")).is_err());
    }
}
