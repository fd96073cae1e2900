-- Layout 6: what the programs of a batch's games wrote to stderr at each
-- decision and how long each decision took, one compressed row a batch (as
-- the batches hold the games); the oldest rows go when the hill's cap
-- (settings.log_mib) is passed.
CREATE TABLE game_logs (
    id INTEGER PRIMARY KEY, block INTEGER NOT NULL REFERENCES blocks(id), first INTEGER NOT NULL,
    count INTEGER NOT NULL, logs BLOB NOT NULL, UNIQUE (block, first));
