-- A kind's order is the order of its merged positions (ties by item id). Applying pulled
-- changes renumbers a kind densely without stamping, so its rows' positions can differ from
-- its merged ones; a local write that then moves positions (an insert at the end, a move,
-- the gap a delete closes) stamped only the rows it shifted, mixing the two numberings, and
-- this device's order differed from every other's. Such a kind is marked here when it is
-- renumbered, and the first local position write in it stamps first every bookmark of the
-- kind whose merged position is not its row's.
CREATE TABLE sync_misaligned (kind TEXT PRIMARY KEY) STRICT, WITHOUT ROWID;

-- Writing a kind here stamps every position of the kind that differs from its merged one,
-- and clears its mark.
CREATE VIEW sync_align (kind) AS SELECT NULL WHERE 0;

CREATE TRIGGER sync_align_kind INSTEAD OF INSERT ON sync_align
BEGIN
    INSERT INTO sync_capture
    SELECT 'bookmark', hex(b.kind) || '.' || hex(b.item_id), 'position', 1, b.position
    FROM bookmark AS b LEFT JOIN sync_field AS f ON f.entity = 'bookmark'
        AND f.ident = hex(b.kind) || '.' || hex(b.item_id) AND f.field = 'position'
    WHERE b.kind = NEW.kind AND f.value IS NOT b.position;
    DELETE FROM sync_misaligned WHERE kind = NEW.kind;
END;

CREATE TRIGGER sync_bookmark_align_inserted BEFORE INSERT ON bookmark
WHEN (SELECT applying FROM sync_state) = 0
    AND EXISTS (SELECT 1 FROM sync_misaligned WHERE kind = NEW.kind)
BEGIN
    INSERT INTO sync_align VALUES (NEW.kind);
END;

CREATE TRIGGER sync_bookmark_align_moved BEFORE UPDATE OF position ON bookmark
WHEN (SELECT applying FROM sync_state) = 0
    AND EXISTS (SELECT 1 FROM sync_misaligned WHERE kind = OLD.kind)
BEGIN
    INSERT INTO sync_align VALUES (OLD.kind);
END;

CREATE TRIGGER sync_bookmark_align_deleted BEFORE DELETE ON bookmark
WHEN (SELECT applying FROM sync_state) = 0
    AND EXISTS (SELECT 1 FROM sync_misaligned WHERE kind = OLD.kind)
BEGIN
    INSERT INTO sync_align VALUES (OLD.kind);
END;
