-- Layout 4: what each version's stored games gave it (games, scores summed,
-- forfeits), added to as batches are stored; the games stored before it are
-- counted by the step's code (they are compressed).
CREATE TABLE version_results (
    version INTEGER PRIMARY KEY, games INTEGER NOT NULL, score REAL NOT NULL,
    forfeits INTEGER NOT NULL);
