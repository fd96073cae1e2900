-- Layout 5: the contest around the hill (its title, texts and dates, one row
-- of JSON), the organiser's announcements, and which round was the final one
-- (the text its seed was drawn from).
CREATE TABLE contest (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL);
CREATE TABLE announcements (
    id INTEGER PRIMARY KEY, at INTEGER NOT NULL, text TEXT NOT NULL);
ALTER TABLE rounds ADD COLUMN beacon TEXT;
