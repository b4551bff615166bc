-- What a write replaced in a bookmark: its title, URL, category, folder and note as they
-- were, when the server app wrote the new ones (a second browser file imported over them,
-- an edit). The same table and rule as the SQLite file's (its migration 0018):
-- numbered per bookmark, the newest 10 of a bookmark kept, the rows going with their
-- bookmark.
--
-- Numbering needs no lock of its own: the row trigger runs while the update holds the
-- bookmark's row, so two transactions replacing the same bookmark number one after the
-- other.
CREATE TABLE bookmark_history (
    account text NOT NULL DEFAULT prefs_current_account(),
    bookmark_id bigint NOT NULL,
    revision integer NOT NULL CHECK (revision > 0),
    title text NOT NULL,
    url text,
    category text,
    folder_id bigint,
    note text,
    replaced_at double precision NOT NULL,
    PRIMARY KEY (account, bookmark_id, revision),
    FOREIGN KEY (account, bookmark_id) REFERENCES bookmark (account, id) ON DELETE CASCADE
);
ALTER TABLE bookmark_history ENABLE ROW LEVEL SECURITY;
ALTER TABLE bookmark_history FORCE ROW LEVEL SECURITY;
CREATE POLICY account_rows ON bookmark_history
    USING (account = (SELECT prefs_current_account()))
    WITH CHECK (account = (SELECT prefs_current_account()));
-- Written by the trigger, as the role whose update it follows; no role rewrites a row.
GRANT SELECT, INSERT, DELETE ON bookmark_history TO prefs_account, prefs_service;

-- What the hub's own functions write while they apply a device's push is not kept here: each
-- device keeps its own edits in its file, and a device that pushed one bookmark retitled
-- without end would otherwise make the hub keep 10 times the account's bookmarks, outside
-- the account's bound (0027). The setting is trusted from the owner only, as the stamping
-- triggers trust it (0017); another role that sets it only skips its own account's rows.
DO $keep$
BEGIN
    EXECUTE format($function$
CREATE FUNCTION prefs_bookmark_keep_replaced() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $body$
DECLARE
    next_revision integer;
BEGIN
    IF coalesce(current_setting('prefs.sync_applying', true), '') <> ''
            AND current_user = %L THEN
        RETURN NULL;
    END IF;
    SELECT coalesce(max(h.revision), 0) + 1 INTO next_revision FROM bookmark_history AS h
        WHERE h.account = OLD.account AND h.bookmark_id = OLD.id;
    INSERT INTO bookmark_history
        (account, bookmark_id, revision, title, url, category, folder_id, note, replaced_at)
    VALUES (OLD.account, OLD.id, next_revision, OLD.title, OLD.url, OLD.category,
        OLD.folder_id, OLD.note,
        -- Seconds since 2001-01-01 UTC, as every time of the store is kept.
        extract(epoch FROM clock_timestamp())::double precision - 978307200);
    DELETE FROM bookmark_history AS h WHERE h.account = OLD.account
        AND h.bookmark_id = OLD.id AND h.revision <= next_revision - 10;
    RETURN NULL;
END
$body$
$function$, current_user);
END
$keep$;

CREATE TRIGGER bookmark_history_keeps_replaced
    AFTER UPDATE OF title, url, category, note, folder_id ON bookmark
    FOR EACH ROW
    WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.url IS DISTINCT FROM NEW.url
        OR OLD.category IS DISTINCT FROM NEW.category OR OLD.note IS DISTINCT FROM NEW.note
        OR OLD.folder_id IS DISTINCT FROM NEW.folder_id)
    EXECUTE FUNCTION prefs_bookmark_keep_replaced();
