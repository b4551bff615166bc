-- Sync that cannot diverge (README "Sync"): a clock that cannot overflow its text, a device
-- that knows when the hub says its clock is wrong, and a record of every change refused on
-- either side.

-- The clock's counter has six digits in the clock's text; a seventh would sort the reading
-- before smaller ones. A counter that would pass 999999 moves the milliseconds on instead,
-- as hybrid logical clocks do.
DROP TRIGGER sync_capture_stamp;

CREATE TRIGGER sync_capture_stamp INSTEAD OF INSERT ON sync_capture
BEGIN
    UPDATE sync_state SET
        clock_counter = CASE
            WHEN CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + clock_skew_ms
                > clock_ms THEN 0
            WHEN clock_counter >= 999999 THEN 0
            ELSE clock_counter + 1 END,
        clock_ms = CASE
            WHEN CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + clock_skew_ms
                > clock_ms THEN CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
                    + clock_skew_ms
            WHEN clock_counter >= 999999 THEN clock_ms + 1
            ELSE clock_ms END;
    -- Not INSERT OR REPLACE: inside a trigger the outer statement's conflict policy (an
    -- upsert's) would override it.
    DELETE FROM sync_field
    WHERE entity = NEW.entity AND ident = NEW.ident AND field = NEW.field;
    INSERT INTO sync_field (entity, ident, field, clock, present, value, pending)
    SELECT NEW.entity, NEW.ident, NEW.field,
        printf('%015d-%06d-%s', clock_ms, clock_counter, device_id), NEW.present, NEW.value, 1
    FROM sync_state;
END;

-- What the hub said of this device's clock at the last push: how far ahead of the hub's it
-- was (NULL when the hub took the push), and when.
ALTER TABLE sync_state ADD COLUMN clock_ahead_ms INTEGER;
ALTER TABLE sync_state ADD COLUMN clock_checked_at REAL;

-- Changes refused: pushed ones the hub would not take, pulled ones this device could not
-- apply. Each is refused alone; the rest of the round goes on.
CREATE TABLE sync_refused (
    id INTEGER PRIMARY KEY,
    direction TEXT NOT NULL CHECK (direction IN ('push', 'pull')),
    entity TEXT NOT NULL,
    ident TEXT NOT NULL,
    field TEXT NOT NULL,
    clock TEXT NOT NULL,
    reason TEXT NOT NULL,
    recorded_at REAL NOT NULL
) STRICT;

-- A bookmark deleted takes its tags with it, and their sync fields with them: without a
-- tombstone per tag, a tag of the deleted bookmark stayed present in sync, and came back on
-- the other devices when the bookmark was added again without it. BEFORE: the tags are
-- still there to be read.
CREATE TRIGGER sync_bookmark_tags_deleted BEFORE DELETE ON bookmark
WHEN (SELECT applying FROM sync_state) = 0
BEGIN
    INSERT INTO sync_capture
    SELECT 'tag', hex(OLD.kind) || '.' || hex(OLD.item_id) || '.' || hex(tag), 'present', 0,
        NULL
    FROM bookmark_tag WHERE bookmark_id = OLD.id;
END;

-- Tags that sync still calls present but that no bookmark holds (left by deletes before
-- this trigger) are removed in sync too.
INSERT INTO sync_capture
SELECT 'tag', f.ident, 'present', 0, NULL FROM sync_field AS f
WHERE f.entity = 'tag' AND f.present = 1 AND NOT EXISTS (
    SELECT 1 FROM bookmark_tag AS t JOIN bookmark AS b ON b.id = t.bookmark_id
    WHERE hex(b.kind) || '.' || hex(b.item_id) || '.' || hex(t.tag) = f.ident);
