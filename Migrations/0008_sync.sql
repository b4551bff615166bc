-- Sync of preferences and bookmarks with other devices of one account, through a PostgreSQL
-- hub (README "Sync"). Nothing here does anything until sync is turned on (a sync_state
-- row): every trigger below first asks for that row.
--
-- Capture is by trigger, so that every writer records its changes for sync (the library,
-- the command line, another process): each change of a synced field stamps the field with
-- the device's hybrid logical clock in the writing transaction, and marks it pending until
-- the hub confirms it. Changes the sync itself applies from the hub (applying = 1, set and
-- reset inside its own transaction) are not captured, so they are never echoed back.

-- This device: its id, hub and account (no credentials), the cursor into the hub's
-- numbering, its clock, and the outcome of the last rounds.
CREATE TABLE sync_state (
    only INTEGER PRIMARY KEY CHECK (only = 1),
    device_id TEXT NOT NULL CHECK (device_id <> ''),
    hub TEXT,
    account TEXT,
    cursor INTEGER NOT NULL DEFAULT 0,
    -- The hybrid logical clock: wall-clock milliseconds (never going back: the largest seen
    -- here or in a change pulled from the hub) and a counter within the millisecond.
    clock_ms INTEGER NOT NULL DEFAULT 0,
    clock_counter INTEGER NOT NULL DEFAULT 0,
    -- Added to the wall clock: 0, except in tests of devices whose clock is wrong.
    clock_skew_ms INTEGER NOT NULL DEFAULT 0,
    applying INTEGER NOT NULL DEFAULT 0 CHECK (applying IN (0, 1)),
    last_push REAL,
    last_pull REAL,
    last_error TEXT
) STRICT;

-- The clock of every synced field (the newest change this device knows of it), and for
-- bookmark fields their value; pending = 1 until the hub confirmed the local change.
-- entity: preference (ident suite.key, field value), bookmark (ident kind.item id, fields
-- exists, title, url, category, note, position, folder: its path, read when pushed), tag
-- (ident kind.item id.tag, field present); each part of an ident in hex, as hex() writes it (JSON's functions may not run
-- in a trigger here: trusted_schema is off). present = 0 is a tombstone: removed, deleted,
-- untagged.
CREATE TABLE sync_field (
    entity TEXT NOT NULL CHECK (entity IN ('preference', 'bookmark', 'tag')),
    ident TEXT NOT NULL,
    field TEXT NOT NULL,
    clock TEXT NOT NULL,
    present INTEGER NOT NULL CHECK (present IN (0, 1)),
    value ANY,
    pending INTEGER NOT NULL CHECK (pending IN (0, 1)),
    PRIMARY KEY (entity, ident, field)
) STRICT, WITHOUT ROWID;

CREATE INDEX sync_field_pending ON sync_field (entity, ident) WHERE pending = 1;

-- The losing side of every conflict, local or remote: nothing is lost without a trace.
CREATE TABLE sync_conflict (
    id INTEGER PRIMARY KEY,
    entity TEXT NOT NULL,
    ident TEXT NOT NULL,
    field TEXT NOT NULL,
    lost_clock TEXT NOT NULL,
    lost_present INTEGER NOT NULL,
    lost_type TEXT,
    lost_value ANY,
    won_clock TEXT NOT NULL,
    recorded_at REAL NOT NULL
) STRICT;

-- A declared key may stay on this device.
ALTER TABLE preference_declaration ADD COLUMN device_local INTEGER NOT NULL DEFAULT 0
    CHECK (device_local IN (0, 1));

-- Writing a row here stamps a field with the next clock reading and marks it pending.
CREATE VIEW sync_capture (entity, ident, field, present, value) AS
    SELECT NULL, NULL, NULL, NULL, NULL WHERE 0;

CREATE TRIGGER sync_capture_stamp INSTEAD OF INSERT ON sync_capture
BEGIN
    UPDATE sync_state SET
        clock_counter = CASE
            WHEN CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + clock_skew_ms
                > clock_ms THEN 0
            ELSE clock_counter + 1 END,
        clock_ms = max(clock_ms,
            CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + clock_skew_ms);
    -- Not INSERT OR REPLACE: inside a trigger the outer statement's conflict policy (an
    -- upsert's) would override it.
    DELETE FROM sync_field
    WHERE entity = NEW.entity AND ident = NEW.ident AND field = NEW.field;
    INSERT INTO sync_field (entity, ident, field, clock, present, value, pending)
    SELECT NEW.entity, NEW.ident, NEW.field,
        printf('%015d-%06d-%s', clock_ms, clock_counter, device_id), NEW.present, NEW.value, 1
    FROM sync_state;
END;

CREATE TRIGGER sync_preference_inserted AFTER INSERT ON preference
WHEN (SELECT applying FROM sync_state) = 0 AND NOT EXISTS (
    SELECT 1 FROM preference_declaration
    WHERE suite = NEW.suite AND key = NEW.key AND device_local = 1)
BEGIN
    INSERT INTO sync_capture VALUES
        ('preference', hex(NEW.suite) || '.' || hex(NEW.key), 'value', 1, NULL);
END;

CREATE TRIGGER sync_preference_updated AFTER UPDATE ON preference
WHEN (OLD.value IS NOT NEW.value OR OLD.type IS NOT NEW.type)
    AND (SELECT applying FROM sync_state) = 0 AND NOT EXISTS (
        SELECT 1 FROM preference_declaration
        WHERE suite = NEW.suite AND key = NEW.key AND device_local = 1)
BEGIN
    INSERT INTO sync_capture VALUES
        ('preference', hex(NEW.suite) || '.' || hex(NEW.key), 'value', 1, NULL);
END;

CREATE TRIGGER sync_preference_deleted AFTER DELETE ON preference
WHEN (SELECT applying FROM sync_state) = 0 AND NOT EXISTS (
    SELECT 1 FROM preference_declaration
    WHERE suite = OLD.suite AND key = OLD.key AND device_local = 1)
BEGIN
    INSERT INTO sync_capture VALUES
        ('preference', hex(OLD.suite) || '.' || hex(OLD.key), 'value', 0, NULL);
END;

CREATE TRIGGER sync_bookmark_inserted AFTER INSERT ON bookmark
WHEN (SELECT applying FROM sync_state) = 0
BEGIN
    INSERT INTO sync_capture VALUES
        ('bookmark', hex(NEW.kind) || '.' || hex(NEW.item_id), 'exists', 1, NULL),
        ('bookmark', hex(NEW.kind) || '.' || hex(NEW.item_id), 'title', 1, NEW.title),
        ('bookmark', hex(NEW.kind) || '.' || hex(NEW.item_id), 'url', 1, NEW.url),
        ('bookmark', hex(NEW.kind) || '.' || hex(NEW.item_id), 'category', 1, NEW.category),
        ('bookmark', hex(NEW.kind) || '.' || hex(NEW.item_id), 'note', 1, NEW.note),
        ('bookmark', hex(NEW.kind) || '.' || hex(NEW.item_id), 'position', 1, NEW.position),
        ('bookmark', hex(NEW.kind) || '.' || hex(NEW.item_id), 'folder', 1, NULL);
END;

CREATE TRIGGER sync_bookmark_updated AFTER UPDATE ON bookmark
WHEN (SELECT applying FROM sync_state) = 0
BEGIN
    INSERT INTO sync_capture
    SELECT 'bookmark', hex(NEW.kind) || '.' || hex(NEW.item_id), 'title', 1, NEW.title
    WHERE OLD.title IS NOT NEW.title;
    INSERT INTO sync_capture
    SELECT 'bookmark', hex(NEW.kind) || '.' || hex(NEW.item_id), 'url', 1, NEW.url
    WHERE OLD.url IS NOT NEW.url;
    INSERT INTO sync_capture
    SELECT 'bookmark', hex(NEW.kind) || '.' || hex(NEW.item_id), 'category', 1, NEW.category
    WHERE OLD.category IS NOT NEW.category;
    INSERT INTO sync_capture
    SELECT 'bookmark', hex(NEW.kind) || '.' || hex(NEW.item_id), 'note', 1, NEW.note
    WHERE OLD.note IS NOT NEW.note;
    INSERT INTO sync_capture
    SELECT 'bookmark', hex(NEW.kind) || '.' || hex(NEW.item_id), 'position', 1, NEW.position
    WHERE OLD.position IS NOT NEW.position;
    -- The folder path is read when pushed (a trigger cannot walk the folder tree).
    INSERT INTO sync_capture
    SELECT 'bookmark', hex(NEW.kind) || '.' || hex(NEW.item_id), 'folder', 1, NULL
    WHERE OLD.folder_id IS NOT NEW.folder_id
        OR (NEW.folder_id IS NULL AND OLD.category IS NOT NEW.category);
END;

CREATE TRIGGER sync_bookmark_deleted AFTER DELETE ON bookmark
WHEN (SELECT applying FROM sync_state) = 0
BEGIN
    INSERT INTO sync_capture VALUES
        ('bookmark', hex(OLD.kind) || '.' || hex(OLD.item_id), 'exists', 0, NULL);
END;

CREATE TRIGGER sync_tag_inserted AFTER INSERT ON bookmark_tag
WHEN (SELECT applying FROM sync_state) = 0
BEGIN
    INSERT INTO sync_capture
    SELECT 'tag', hex(kind) || '.' || hex(item_id) || '.' || hex(NEW.tag), 'present', 1, NULL
    FROM bookmark WHERE id = NEW.bookmark_id;
END;

-- A tag removed with its bookmark needs no tombstone of its own: the bookmark's has it.
CREATE TRIGGER sync_tag_deleted AFTER DELETE ON bookmark_tag
WHEN (SELECT applying FROM sync_state) = 0
BEGIN
    INSERT INTO sync_capture
    SELECT 'tag', hex(kind) || '.' || hex(item_id) || '.' || hex(OLD.tag), 'present', 0, NULL
    FROM bookmark WHERE id = OLD.bookmark_id;
END;
