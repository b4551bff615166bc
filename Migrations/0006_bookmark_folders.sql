-- Bookmark folders: the tree of folders that a browser's bookmark file holds, empty ones
-- and same-named siblings included, so that an import followed by an export reproduces it.
-- A bookmark's folder_id is its place in the tree; its category stays the name of that
-- folder (the app groups by it). A bookmark with a category and no folder_id (everything
-- written before this migration, and what the app writes) is in the top-level folder
-- named after its category, as the HTML export has always written it.
CREATE TABLE bookmark_folder (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    parent_id INTEGER REFERENCES bookmark_folder (id) ON DELETE CASCADE,
    name TEXT NOT NULL CHECK (name <> ''),
    description TEXT,
    -- The order among the folder's siblings.
    position INTEGER NOT NULL CHECK (position >= 0),
    created_at REAL,
    updated_at REAL
) STRICT;

CREATE INDEX bookmark_folder_by_parent ON bookmark_folder (parent_id, name, position);

-- No index on folder_id: every insert would pay for it; listing a folder scans the
-- bookmark table instead.
ALTER TABLE bookmark ADD COLUMN folder_id INTEGER
    REFERENCES bookmark_folder (id) ON DELETE SET NULL;
