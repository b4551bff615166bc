-- The hub of sync (README "Sync"): the newest change of every synced field of an account, as
-- the account's devices pushed them, numbered in the order they were accepted so that a
-- device pulls from a cursor and never skips a change that committed late (numbers are
-- taken under the account's row lock, so they commit in order).

ALTER TABLE prefs_account_state ADD COLUMN sync_sequence bigint NOT NULL DEFAULT 0;

-- entity, ident, field: as in the device's sync_field (Migrations/0008_sync.sql). clock:
-- the hybrid logical clock, compared as text. present = false is a tombstone. type, value,
-- bytes: the value as in the preference table (a bookmark field is a string or an int).
CREATE TABLE sync_change (
    account text NOT NULL DEFAULT prefs_current_account(),
    entity text NOT NULL CHECK (entity IN ('preference', 'bookmark', 'tag')),
    ident text NOT NULL,
    field text NOT NULL,
    clock text COLLATE "C" NOT NULL,
    device text NOT NULL,
    present boolean NOT NULL,
    type text,
    value text,
    bytes bytea,
    sequence bigint NOT NULL,
    PRIMARY KEY (account, entity, ident, field)
);

CREATE INDEX sync_change_by_sequence ON sync_change (account, sequence);

-- The devices known to have synced, and how far each has pulled: a tombstone goes once
-- every known device has pulled past it.
CREATE TABLE sync_device (
    account text NOT NULL DEFAULT prefs_current_account(),
    device text NOT NULL,
    cursor bigint NOT NULL DEFAULT 0,
    seen_at double precision NOT NULL,
    PRIMARY KEY (account, device)
);

DO $isolation$
DECLARE
    name text;
BEGIN
    FOREACH name IN ARRAY ARRAY['sync_change', 'sync_device'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', name);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', name);
        EXECUTE format(
            'CREATE POLICY account_rows ON %I USING (account = (SELECT prefs_current_account()))'
            ' WITH CHECK (account = (SELECT prefs_current_account()))', name);
        EXECUTE format(
            'GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO prefs_account, prefs_service', name);
    END LOOP;
END
$isolation$;
