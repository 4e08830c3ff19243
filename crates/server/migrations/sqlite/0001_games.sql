-- Games and their actions. A game's position is never stored: it is rebuilt by replaying its moves through the
-- rules crate, which keeps the rules engine the only judge.
CREATE TABLE games (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    rules   TEXT    NOT NULL,
    created INTEGER NOT NULL,
    state   TEXT    NOT NULL
);

CREATE TABLE moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    number  INTEGER NOT NULL,
    color   TEXT    NOT NULL,
    move    TEXT    NOT NULL,
    PRIMARY KEY (game_id, number)
) WITHOUT ROWID;
