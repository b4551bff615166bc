-- A kind's order is the order of its merged positions (ties by item id). A push renumbers a
-- kind's bookmarks densely without stamping, so their rows' positions can differ from their
-- merged ones; a server write that then moves positions (an insert at the end, a move, the
-- gap a delete closes) stamped only the rows it shifted, mixing the two numberings, and the
-- server's order differed from the devices'. Such a kind is marked here when a push
-- renumbers it, and the first server write that moves positions in it stamps first every
-- bookmark of the kind whose merged position is not its row's (as devices do,
-- Migrations/0011_sync_positions_aligned.sql).
CREATE TABLE sync_misaligned (
    account text NOT NULL DEFAULT prefs_current_account(),
    kind text NOT NULL,
    PRIMARY KEY (account, kind)
);

ALTER TABLE sync_misaligned ENABLE ROW LEVEL SECURITY;
ALTER TABLE sync_misaligned FORCE ROW LEVEL SECURITY;
CREATE POLICY account_rows ON sync_misaligned
    USING (account = (SELECT prefs_current_account()))
    WITH CHECK (account = (SELECT prefs_current_account()));
GRANT SELECT, INSERT, UPDATE, DELETE ON sync_misaligned TO prefs_account, prefs_service;

CREATE FUNCTION prefs_sync_align() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    written bookmark;
BEGIN
    IF coalesce(current_setting('prefs.sync_applying', true), '') = 'on' THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    IF TG_OP = 'INSERT' THEN written := NEW; ELSE written := OLD; END IF;
    IF EXISTS (SELECT 1 FROM sync_misaligned AS m WHERE m.account = written.account
            AND m.kind = written.kind) AND prefs_sync_stamping(written.account) THEN
        DELETE FROM sync_misaligned AS m WHERE m.account = written.account
            AND m.kind = written.kind;
        PERFORM prefs_sync_stamp(written.account, 'bookmark', a.ident, 'position', true,
            'int', a.position::text)
        FROM (
            SELECT prefs_sync_name(b.kind) || '.' || prefs_sync_name(b.item_id) AS ident,
                b.position
            FROM bookmark AS b WHERE b.account = written.account AND b.kind = written.kind
        ) AS a
        LEFT JOIN sync_change AS s ON s.account = written.account AND s.entity = 'bookmark'
            AND s.ident = a.ident AND s.field = 'position'
        WHERE s.value IS DISTINCT FROM a.position::text;
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$$;

CREATE TRIGGER bookmark_sync_align BEFORE INSERT OR UPDATE OF position OR DELETE ON bookmark
    FOR EACH ROW EXECUTE FUNCTION prefs_sync_align();

GRANT EXECUTE ON FUNCTION prefs_sync_align() TO prefs_account, prefs_service;
DO $pin$
BEGIN
    EXECUTE format('ALTER FUNCTION prefs_sync_align() SET search_path = pg_catalog, %I, pg_temp',
        pg_catalog.current_schema());
END
$pin$;
