//! What features show in a game's state beside the core's own fields (the rematch offered after a game),
//! without the core naming them: a feature sets its field on the live game, which puts it in each state and
//! tells the watchers when it changes; it fills in the field of a finished game read back from the store
//! through [`ReadBack`], which a node of several also asks when a finished game it holds is looked at (the
//! feature's message from another node may have been lost).

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use serde_json::{Map, Value};

use crate::error::Error;
use crate::store::Seats;

/// A feature's field of a game's state, as the game's players and as everyone else see it (a player's own
/// state may say more, as a rematch's invite).
#[derive(Clone, Debug, PartialEq)]
pub struct StateField {
    pub players: Value,
    pub others: Value,
}

/// The features' fields of one game, by name (each name unique among a state's fields).
#[derive(Clone, Debug, Default)]
pub(super) struct Fields(BTreeMap<&'static str, StateField>);

impl Fields {
    /// The fields as a viewer sees them, `seated` at the game or not.
    pub(super) fn view(&self, seated: bool) -> Map<String, Value> {
        self.0
            .iter()
            .map(|(name, field)| {
                let value = if seated {
                    &field.players
                } else {
                    &field.others
                };
                ((*name).to_owned(), value.clone())
            })
            .collect()
    }
}

impl Fields {
    /// Field `name`, if set.
    pub(super) fn get(&self, name: &str) -> Option<&StateField> {
        self.0.get(name)
    }

    /// Sets field `name`: whether it changed.
    pub(super) fn set(&mut self, name: &'static str, field: StateField) -> bool {
        if self.0.get(name) == Some(&field) {
            return false;
        }
        self.0.insert(name, field);
        true
    }
}

/// Fields by name, as a feature reads them back.
pub type NamedFields = Vec<(&'static str, StateField)>;

type Reading<'a> = Pin<Box<dyn Future<Output = Result<NamedFields, Error>> + Send + 'a>>;

/// A feature whose fields a finished game read back from the store has (its rematch).
pub trait ReadBack: Send + Sync {
    /// The fields of finished game `game`, seated as `seats`, as the store has them: for a game just rebuilt
    /// from the store, or one held and looked at on a node of several.
    fn read_back<'a>(&'a self, game: i64, seats: &'a Seats) -> Reading<'a>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_viewer_sees_the_fields_as_their_seat_allows() {
        let mut fields = Fields::default();
        let field = StateField {
            players: serde_json::json!({"invite": "x"}),
            others: serde_json::json!({}),
        };
        assert!(fields.set("rematch", field.clone()));
        assert!(
            !fields.set("rematch", field),
            "the same field again is no change"
        );
        assert_eq!(
            Value::Object(fields.view(true)),
            serde_json::json!({"rematch": {"invite": "x"}})
        );
        assert_eq!(
            Value::Object(fields.view(false)),
            serde_json::json!({"rematch": {}})
        );
    }
}
