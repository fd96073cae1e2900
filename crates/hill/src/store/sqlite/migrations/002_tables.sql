-- Layout 2: the tables of a hill, its games in compressed batches.
CREATE TABLE settings (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL);
CREATE TABLE entrants (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, status TEXT NOT NULL, version INTEGER NOT NULL,
    owner TEXT);
CREATE TABLE rounds (
    id INTEGER PRIMARY KEY, at INTEGER NOT NULL, games INTEGER NOT NULL, entrants TEXT NOT NULL,
    standings TEXT NOT NULL);
CREATE TABLE history (
    id INTEGER PRIMARY KEY, at INTEGER NOT NULL, games INTEGER NOT NULL, rows TEXT NOT NULL);
CREATE TABLE tokens (
    name TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, admin INTEGER NOT NULL, at INTEGER NOT NULL);
CREATE TABLE versions (
    id INTEGER PRIMARY KEY, entrant INTEGER NOT NULL REFERENCES entrants(id),
    number INTEGER NOT NULL, spec TEXT NOT NULL, at INTEGER NOT NULL);
CREATE TABLE events (
    id INTEGER PRIMARY KEY, at INTEGER NOT NULL, kind TEXT NOT NULL, entrant TEXT NOT NULL,
    version INTEGER, before_block INTEGER NOT NULL);
CREATE TABLE blocks (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, versions TEXT NOT NULL, schedule TEXT NOT NULL,
    seed TEXT NOT NULL, games INTEGER NOT NULL, done INTEGER NOT NULL, after_event INTEGER NOT NULL);
CREATE TABLE batches (
    id INTEGER PRIMARY KEY, block INTEGER NOT NULL REFERENCES blocks(id), first INTEGER NOT NULL,
    count INTEGER NOT NULL, games BLOB NOT NULL, UNIQUE (block, first));
CREATE TABLE kept (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL);
CREATE INDEX blocks_open ON blocks (id) WHERE done < games;
CREATE INDEX blocks_candidate ON blocks (id) WHERE kind = 'candidate';
