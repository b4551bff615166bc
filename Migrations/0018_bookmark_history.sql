-- What a write replaced in a bookmark: its title, URL, category, folder and note as they
-- were, whoever wrote the new ones (the app, an edit, a second browser file, sync). A
-- browser file imported over bookmarks that are there re-titles and moves them; the old
-- title and folder are kept here. Position and tags are not kept (a move is not a
-- replacement, and tags have their own sync history).
--
-- Numbered per bookmark (revision 1, 2, ...); the newest 10 of a bookmark are kept, so a
-- bookmark retitled without end holds 10 rows here, not more. The rows go with their
-- bookmark. folder_id names the folder as it was; when that folder is gone its path is
-- unknown. replaced_at: when the new fields were written, in seconds since 2001-01-01 UTC,
-- as every time of the file is kept.
CREATE TABLE bookmark_history (
    bookmark_id INTEGER NOT NULL REFERENCES bookmark (id) ON DELETE CASCADE,
    revision INTEGER NOT NULL CHECK (revision > 0),
    title TEXT NOT NULL,
    url TEXT,
    category TEXT,
    folder_id INTEGER,
    note TEXT,
    replaced_at REAL NOT NULL,
    PRIMARY KEY (bookmark_id, revision)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER bookmark_history_keeps_replaced
AFTER UPDATE OF title, url, category, note, folder_id ON bookmark
WHEN OLD.title IS NOT NEW.title OR OLD.url IS NOT NEW.url
    OR OLD.category IS NOT NEW.category OR OLD.note IS NOT NEW.note
    OR OLD.folder_id IS NOT NEW.folder_id
BEGIN
    INSERT INTO bookmark_history
        (bookmark_id, revision, title, url, category, folder_id, note, replaced_at)
    VALUES (
        OLD.id,
        coalesce((SELECT max(revision) FROM bookmark_history WHERE bookmark_id = OLD.id), 0) + 1,
        OLD.title, OLD.url, OLD.category, OLD.folder_id, OLD.note,
        (julianday('now') - 2451910.5) * 86400.0);
    DELETE FROM bookmark_history WHERE bookmark_id = OLD.id
        AND revision <= (SELECT max(revision) FROM bookmark_history WHERE bookmark_id = OLD.id) - 10;
END;
