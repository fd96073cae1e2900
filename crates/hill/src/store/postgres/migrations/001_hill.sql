-- Layout 1 of a hill on PostgreSQL: what SQLite's layout 6 holds, and what
-- workers on many machines share (leases, workers, the programs' folders).
CREATE TABLE settings (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL);
CREATE TABLE entrants (
    id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, status TEXT NOT NULL,
    version BIGINT NOT NULL, owner TEXT);
CREATE TABLE versions (
    id BIGSERIAL PRIMARY KEY, entrant BIGINT NOT NULL REFERENCES entrants(id),
    number BIGINT NOT NULL, spec TEXT NOT NULL, at BIGINT NOT NULL);
CREATE TABLE events (
    id BIGSERIAL PRIMARY KEY, at BIGINT NOT NULL, kind TEXT NOT NULL, entrant TEXT NOT NULL,
    version BIGINT, before_block BIGINT NOT NULL);
CREATE TABLE tokens (
    name TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, admin BOOLEAN NOT NULL, at BIGINT NOT NULL);
CREATE TABLE rounds (
    id BIGINT PRIMARY KEY, at BIGINT NOT NULL, games BIGINT NOT NULL, entrants TEXT NOT NULL,
    standings TEXT NOT NULL, beacon TEXT);
CREATE TABLE history (
    id BIGSERIAL PRIMARY KEY, at BIGINT NOT NULL, games BIGINT NOT NULL, rows TEXT NOT NULL);
-- Blocks are numbered 1, 2, 3... with no gap (the planning window counts back
-- by number): the planner takes the next number itself, never a sequence.
CREATE TABLE blocks (
    id BIGINT PRIMARY KEY, kind TEXT NOT NULL, schedule TEXT NOT NULL, seed TEXT NOT NULL,
    games BIGINT NOT NULL, done BIGINT NOT NULL, after_event BIGINT NOT NULL);
CREATE INDEX blocks_open ON blocks (id) WHERE done < games;
CREATE TABLE block_versions (
    block BIGINT NOT NULL REFERENCES blocks(id), seat INTEGER NOT NULL, version BIGINT NOT NULL,
    PRIMARY KEY (block, seat));
CREATE INDEX block_versions_by_version ON block_versions (version, block);
CREATE TABLE workers (
    name TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, at BIGINT NOT NULL,
    revoked BOOLEAN NOT NULL DEFAULT false, seen BIGINT);
-- A lease is a run of a block's games; its expiry is the database's clock, so
-- that workers' clocks never matter.
CREATE TABLE leases (
    block BIGINT NOT NULL REFERENCES blocks(id), first BIGINT NOT NULL, count BIGINT NOT NULL,
    worker TEXT, expires TIMESTAMPTZ, done BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (block, first));
CREATE INDEX leases_open ON leases (block, first) WHERE NOT done;
-- A batch is a lease's games (or a run of them), with the worker that stored them.
CREATE TABLE batches (
    block BIGINT NOT NULL REFERENCES blocks(id), first BIGINT NOT NULL, count BIGINT NOT NULL,
    games BYTEA NOT NULL, worker TEXT, PRIMARY KEY (block, first));
CREATE TABLE version_results (
    version BIGINT PRIMARY KEY, games BIGINT NOT NULL, score DOUBLE PRECISION NOT NULL,
    forfeits BIGINT NOT NULL);
CREATE TABLE game_logs (
    id BIGSERIAL PRIMARY KEY, block BIGINT NOT NULL REFERENCES blocks(id), first BIGINT NOT NULL,
    count BIGINT NOT NULL, logs BYTEA NOT NULL, UNIQUE (block, first));
CREATE TABLE kept (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL);
CREATE TABLE contest (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL);
CREATE TABLE announcements (id BIGSERIAL PRIMARY KEY, at BIGINT NOT NULL, text TEXT NOT NULL);
-- Programs' folders as tars, by content hash, for workers on other machines.
CREATE TABLE folders (hash TEXT PRIMARY KEY, tar BYTEA NOT NULL);
