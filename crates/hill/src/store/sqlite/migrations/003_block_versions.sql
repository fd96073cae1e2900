-- Layout 3: a block's versions in a table of their own, seat by seat, indexed
-- by version (an entrant's games are found without reading every block); the
-- text column they were kept in goes.
CREATE TABLE block_versions (
    block INTEGER NOT NULL REFERENCES blocks(id), seat INTEGER NOT NULL, version INTEGER NOT NULL,
    PRIMARY KEY (block, seat)) WITHOUT ROWID;
CREATE INDEX block_versions_by_version ON block_versions (version, block);
WITH RECURSIVE split(block, seat, rest, version) AS (
    SELECT id, -1, versions || ',', NULL FROM blocks WHERE versions <> ''
    UNION ALL
    SELECT block, seat + 1, substr(rest, instr(rest, ',') + 1),
           CAST(substr(rest, 1, instr(rest, ',') - 1) AS INTEGER)
    FROM split WHERE rest <> ''
)
INSERT INTO block_versions (block, seat, version)
    SELECT block, seat, version FROM split WHERE seat >= 0;
ALTER TABLE blocks DROP COLUMN versions;
