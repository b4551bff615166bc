-- Sync that loses nothing (docs/sync.md, "The merge rule"), on the device.
--
-- A device that leaves keeps its sync state, marked left: its clock, the clock of every
-- field (what it only pulled keeps the clock it came with) and its capture triggers, which
-- go on stamping its own writes, removals included. When it joins again, nothing is stamped
-- anew: a value it pulled can no longer come back as its own, later, write.
ALTER TABLE sync_state ADD COLUMN left_account TEXT;
ALTER TABLE sync_state ADD COLUMN is_left INTEGER NOT NULL DEFAULT 0 CHECK (is_left IN (0, 1));

-- Removals in a file that has never synced: when it starts, each is a tombstone of the time
-- it was made, so that an older write of the same thing elsewhere does not come back. Only
-- DELETE statements compile these triggers: a set or an insert pays nothing for them.
CREATE TABLE sync_removed_early (
    entity TEXT NOT NULL,
    ident TEXT NOT NULL,
    field TEXT NOT NULL,
    removed_ms INTEGER NOT NULL,
    PRIMARY KEY (entity, ident, field)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER prejoin_preference_deleted AFTER DELETE ON preference
WHEN NOT EXISTS (SELECT 1 FROM sync_state) AND NOT EXISTS (
    SELECT 1 FROM preference_declaration
    WHERE suite = OLD.suite AND key = OLD.key AND device_local = 1)
BEGIN
    DELETE FROM sync_removed_early WHERE entity = 'preference'
        AND ident = hex(OLD.suite) || '.' || hex(OLD.key) AND field = 'value';
    INSERT INTO sync_removed_early VALUES ('preference', hex(OLD.suite) || '.' || hex(OLD.key),
        'value', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;

-- BEFORE: the bookmark's tags are still there to be read.
CREATE TRIGGER prejoin_bookmark_deleted BEFORE DELETE ON bookmark
WHEN NOT EXISTS (SELECT 1 FROM sync_state)
BEGIN
    DELETE FROM sync_removed_early WHERE (entity = 'bookmark'
            AND ident = hex(OLD.kind) || '.' || hex(OLD.item_id) AND field = 'exists')
        OR (entity = 'tag' AND field = 'present' AND ident IN (
            SELECT hex(OLD.kind) || '.' || hex(OLD.item_id) || '.' || hex(tag)
            FROM bookmark_tag WHERE bookmark_id = OLD.id));
    INSERT INTO sync_removed_early
    SELECT 'bookmark', hex(OLD.kind) || '.' || hex(OLD.item_id), 'exists',
        CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
    UNION ALL
    SELECT 'tag', hex(OLD.kind) || '.' || hex(OLD.item_id) || '.' || hex(tag), 'present',
        CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
    FROM bookmark_tag WHERE bookmark_id = OLD.id;
END;

CREATE TRIGGER prejoin_tag_deleted AFTER DELETE ON bookmark_tag
WHEN NOT EXISTS (SELECT 1 FROM sync_state)
BEGIN
    DELETE FROM sync_removed_early WHERE entity = 'tag' AND field = 'present' AND ident IN (
        SELECT hex(kind) || '.' || hex(item_id) || '.' || hex(OLD.tag)
        FROM bookmark WHERE id = OLD.bookmark_id);
    INSERT INTO sync_removed_early
    SELECT 'tag', hex(kind) || '.' || hex(item_id) || '.' || hex(OLD.tag), 'present',
        CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
    FROM bookmark WHERE id = OLD.bookmark_id;
END;

-- Edits of a bookmark's fields and tags added in a file that has never synced, field by
-- field: when it starts, each field is stamped with the time it was last written (the
-- bookmark's creation, where nothing is here), not the time its row last changed, so that
-- a later edit of one field does not make the others newer than another device's later
-- edit of them. Only UPDATE statements of bookmarks and inserts of tags compile them.
CREATE TABLE sync_written_early (
    entity TEXT NOT NULL,
    ident TEXT NOT NULL,
    field TEXT NOT NULL,
    written_ms INTEGER NOT NULL,
    PRIMARY KEY (entity, ident, field)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER prejoin_bookmark_updated AFTER UPDATE ON bookmark
WHEN NOT EXISTS (SELECT 1 FROM sync_state)
BEGIN
    INSERT INTO sync_written_early
    SELECT 'bookmark', hex(NEW.kind) || '.' || hex(NEW.item_id), changed.field,
        CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
    FROM (
        SELECT 'title' AS field WHERE OLD.title IS NOT NEW.title
        UNION ALL SELECT 'url' WHERE OLD.url IS NOT NEW.url
        UNION ALL SELECT 'category' WHERE OLD.category IS NOT NEW.category
        UNION ALL SELECT 'note' WHERE OLD.note IS NOT NEW.note
        UNION ALL SELECT 'position' WHERE OLD.position IS NOT NEW.position
        UNION ALL SELECT 'folder' WHERE OLD.folder_id IS NOT NEW.folder_id
            OR (NEW.folder_id IS NULL AND OLD.category IS NOT NEW.category)
    ) AS changed WHERE true
    ON CONFLICT (entity, ident, field) DO UPDATE SET written_ms = excluded.written_ms;
END;

CREATE TRIGGER prejoin_tag_inserted AFTER INSERT ON bookmark_tag
WHEN NOT EXISTS (SELECT 1 FROM sync_state)
BEGIN
    INSERT INTO sync_written_early
    SELECT 'tag', hex(kind) || '.' || hex(item_id) || '.' || hex(NEW.tag), 'present',
        CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
    FROM bookmark WHERE id = NEW.bookmark_id
    ON CONFLICT (entity, ident, field) DO UPDATE SET written_ms = excluded.written_ms;
END;

-- How far this device's clock was from the hub's at the last round, when further than the
-- tolerance (docs/sync.md, "Clocks"); NULL when within it. Positive: ahead.
ALTER TABLE sync_state ADD COLUMN clock_offset_ms INTEGER;
