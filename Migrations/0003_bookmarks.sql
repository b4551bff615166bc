-- Bookmarks: items of the app marked by the user, with tags and a full-text index.
-- id is AUTOINCREMENT so that an id is never reused after a delete.
CREATE TABLE bookmark (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind <> ''),
    item_id TEXT NOT NULL CHECK (item_id <> ''),
    title TEXT NOT NULL,
    url TEXT,
    category TEXT,
    note TEXT,
    position INTEGER NOT NULL CHECK (position >= 0),
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    UNIQUE (kind, item_id)
) STRICT;

CREATE INDEX bookmark_by_position ON bookmark (kind, position);
CREATE INDEX bookmark_by_category ON bookmark (category, kind, position);

CREATE TABLE bookmark_tag (
    bookmark_id INTEGER NOT NULL REFERENCES bookmark (id) ON DELETE CASCADE,
    tag TEXT NOT NULL CHECK (tag <> ''),
    PRIMARY KEY (bookmark_id, tag)
) STRICT, WITHOUT ROWID;

CREATE INDEX bookmark_tag_by_tag ON bookmark_tag (tag, bookmark_id);

-- The searchable text of each bookmark; rowid = bookmark.id. PrefsKit keeps it in step
-- in the same transaction as every bookmark write. (Triggers cannot do it: with
-- trusted_schema=OFF, SQLite refuses virtual tables inside triggers.)
CREATE VIRTUAL TABLE bookmark_search USING fts5 (
    title, category, tags, note, url,
    tokenize = 'unicode61 remove_diacritics 2'
);
