-- Sync that loses nothing (docs/sync.md, "The merge rule").
--
-- 1. Removals are kept. The per-account horizon of 0007 could not tell "deleted, and its
--    tombstone collected" from "never existed": a change older than the horizon for a field
--    the hub had no row of lost, so a value nobody deleted vanished (a phone's first write of
--    a key when another device had deleted some other key). A tombstone is a row without a
--    payload (its field's identity, clock, device and number): it is never collected, so
--    every pushed change meets the exact clock it must beat. The horizon columns stay, no
--    longer read: hubs that collected before this file may bring back what they collected.
--
-- 2. The hub knows the newest clock it took from each device: a device whose file is
--    older than that (restored from a backup or a snapshot) is told so and pulls in full.
--
-- 3. Writes are stamped when they are made. What the server held before the first contact
--    of a device is stamped with the time it was written (its updated_at, never later than
--    now), no longer the time of that contact, and a removal made before it is kept as a
--    tombstone of its time: a device's older write of the same thing loses to it.

ALTER TABLE sync_device ADD COLUMN pushed_clock text COLLATE "C";

-- A time of the engine's tables (seconds since 2001) as the hub's clock reading, never past
-- `now_ms` (a stored time may come from a clock that was wrong).
CREATE FUNCTION prefs_sync_clock_at(written double precision, now_ms bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT lpad(greatest(0, least(now_ms,
        floor((coalesce(written, 0) + 978307200) * 1000)::bigint))::text, 15, '0') || '-000000-hub'
$$;

-- A removal made through the engine before the account syncs: its tombstone, stamped now.
-- (Writes before that are stamped by prefs_sync_start, from their rows.)
CREATE FUNCTION prefs_sync_removed_early() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    bookmark_ident text;
BEGIN
    IF coalesce(current_setting('prefs.sync_applying', true), '') = 'on'
        OR OLD.account IS NULL OR coalesce((SELECT a.sync_on FROM prefs_account_state AS a
            WHERE a.account = OLD.account), false) THEN
        RETURN OLD;
    END IF;
    IF TG_TABLE_NAME = 'preference' THEN
        IF NOT EXISTS (SELECT 1 FROM preference_declaration AS d WHERE d.account = OLD.account
            AND d.suite = OLD.suite AND d.key = OLD.key AND d.device_local) THEN
            PERFORM prefs_sync_stamp(OLD.account, 'preference',
                prefs_sync_name(OLD.suite) || '.' || prefs_sync_name(OLD.key), 'value', false,
                NULL, NULL, OLD.suite, OLD.key);
        END IF;
    ELSE
        bookmark_ident := prefs_sync_name(OLD.kind) || '.' || prefs_sync_name(OLD.item_id);
        PERFORM prefs_sync_stamp(OLD.account, 'bookmark', bookmark_ident, 'exists', false,
            NULL, NULL);
        PERFORM prefs_sync_stamp(OLD.account, 'tag',
            bookmark_ident || '.' || prefs_sync_name(t.tag), 'present', false, NULL, NULL)
        FROM bookmark_tag AS t WHERE t.account = OLD.account AND t.bookmark_id = OLD.id;
    END IF;
    RETURN OLD;
END
$$;

CREATE TRIGGER preference_sync_removed_early BEFORE DELETE ON preference
    FOR EACH ROW EXECUTE FUNCTION prefs_sync_removed_early();
CREATE TRIGGER bookmark_sync_removed_early BEFORE DELETE ON bookmark
    FOR EACH ROW EXECUTE FUNCTION prefs_sync_removed_early();

-- A tag removed alone before the account syncs.
CREATE FUNCTION prefs_sync_untagged_early() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('prefs.sync_applying', true), '') = 'on'
        OR OLD.account IS NULL OR coalesce((SELECT a.sync_on FROM prefs_account_state AS a
            WHERE a.account = OLD.account), false) THEN
        RETURN NULL;
    END IF;
    -- A tag removed with its bookmark has its tombstone already (its bookmark is gone).
    PERFORM prefs_sync_stamp(OLD.account, 'tag',
        prefs_sync_name(b.kind) || '.' || prefs_sync_name(b.item_id) || '.'
            || prefs_sync_name(OLD.tag), 'present', false, NULL, NULL)
    FROM bookmark AS b WHERE b.account = OLD.account AND b.id = OLD.bookmark_id;
    RETURN NULL;
END
$$;

CREATE TRIGGER bookmark_tag_sync_untagged_early AFTER DELETE ON bookmark_tag
    FOR EACH ROW EXECUTE FUNCTION prefs_sync_untagged_early();

-- Stamps one field with the hub's clock and the transaction's number (as 0010 did). A tag
-- is stamped past its bookmark's `exists` too: a bookmark has the tags stamped at or after
-- it was (re)added (docs/sync.md), and the server's tag of a bookmark it just added must
-- count even when `exists` had to go past a clock of a device that ran ahead.
CREATE OR REPLACE FUNCTION prefs_sync_stamp(owner text, stamp_entity text, stamp_ident text,
    stamp_field text, stamp_present boolean, stamp_type text, stamp_value text,
    stamp_suite text DEFAULT NULL, stamp_key text DEFAULT NULL) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    number bigint := prefs_sync_number(owner);
    newest text;
    account_channel text;
BEGIN
    SELECT greatest(
        (SELECT s.clock FROM sync_change AS s WHERE s.account = owner
            AND s.entity = stamp_entity AND s.ident = stamp_ident AND s.field = stamp_field),
        CASE WHEN stamp_entity = 'tag' THEN (SELECT s.clock FROM sync_change AS s
            WHERE s.account = owner AND s.entity = 'bookmark'
                AND s.ident = split_part(stamp_ident, '.', 1) || '.'
                    || split_part(stamp_ident, '.', 2)
                AND s.field = 'exists') END), a.channel
    INTO newest, account_channel
    FROM prefs_account_state AS a WHERE a.account = owner;
    INSERT INTO sync_change AS s (account, entity, ident, field, clock, device, present, type,
        value, bytes, sequence, suite, key)
    VALUES (owner, stamp_entity, stamp_ident, stamp_field,
        prefs_sync_next_clock(prefs_sync_now_ms(), newest), 'hub', stamp_present, stamp_type,
        stamp_value, NULL, number, stamp_suite, stamp_key)
    ON CONFLICT ON CONSTRAINT sync_change_pkey DO UPDATE SET
        clock = excluded.clock, device = excluded.device, present = excluded.present,
        type = excluded.type, value = excluded.value, bytes = NULL,
        sequence = excluded.sequence, suite = excluded.suite, key = excluded.key;
    PERFORM pg_notify(account_channel, prefs_notify_payload());
END
$$;

-- Stamping starts: what the account holds is stamped with the time it was written, past
-- nothing (a tombstone of an earlier removal keeps its place when it is newer).
CREATE OR REPLACE FUNCTION prefs_sync_start(owner text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    number bigint;
    now_ms bigint := prefs_sync_now_ms();
    started boolean;
BEGIN
    number := prefs_sync_number(owner);
    INSERT INTO prefs_account_state (account) VALUES (owner) ON CONFLICT (account) DO NOTHING;
    UPDATE prefs_account_state SET sync_on = true WHERE account = owner AND NOT sync_on
        RETURNING true INTO started;
    IF started IS NULL THEN
        RETURN false;
    END IF;
    INSERT INTO sync_change AS s (account, entity, ident, field, clock, device, present,
        sequence, suite, key)
    SELECT owner, 'preference', prefs_sync_name(p.suite) || '.' || prefs_sync_name(p.key),
        'value', prefs_sync_clock_at(p.updated_at, now_ms), 'hub', true, number, p.suite, p.key
    FROM preference AS p WHERE p.account = owner AND NOT EXISTS (
        SELECT 1 FROM preference_declaration AS d WHERE d.account = owner
            AND d.suite = p.suite AND d.key = p.key AND d.device_local)
    ON CONFLICT ON CONSTRAINT sync_change_pkey DO UPDATE SET
        clock = excluded.clock, device = excluded.device, present = true,
        sequence = excluded.sequence
    WHERE NOT s.present AND s.clock < excluded.clock;
    INSERT INTO sync_change AS s (account, entity, ident, field, clock, device, present, type,
        value, sequence)
    SELECT owner, 'bookmark', prefs_sync_name(b.kind) || '.' || prefs_sync_name(b.item_id),
        f.field, prefs_sync_clock_at(b.updated_at, now_ms), 'hub', true, f.type, f.value,
        number
    FROM bookmark AS b CROSS JOIN LATERAL (VALUES
        ('exists', NULL, NULL),
        ('title', 'string', b.title),
        ('url', CASE WHEN b.url IS NOT NULL THEN 'string' END, b.url),
        ('category', CASE WHEN b.category IS NOT NULL THEN 'string' END, b.category),
        ('note', CASE WHEN b.note IS NOT NULL THEN 'string' END, b.note),
        ('position', 'int', b.position::text),
        ('folder', 'string', prefs_sync_folder(owner, b.folder_id, b.category))
    ) AS f (field, type, value)
    WHERE b.account = owner
    ON CONFLICT ON CONSTRAINT sync_change_pkey DO UPDATE SET
        clock = excluded.clock, device = excluded.device, present = true,
        type = excluded.type, value = excluded.value, sequence = excluded.sequence
    WHERE NOT s.present AND s.clock < excluded.clock;
    INSERT INTO sync_change AS s (account, entity, ident, field, clock, device, present,
        sequence)
    SELECT owner, 'tag', prefs_sync_name(b.kind) || '.' || prefs_sync_name(b.item_id) || '.'
        || prefs_sync_name(t.tag), 'present', prefs_sync_clock_at(b.updated_at, now_ms), 'hub',
        true, number
    FROM bookmark_tag AS t JOIN bookmark AS b ON b.account = t.account AND b.id = t.bookmark_id
    WHERE t.account = owner
    ON CONFLICT ON CONSTRAINT sync_change_pkey DO UPDATE SET
        clock = excluded.clock, device = excluded.device, present = true,
        sequence = excluded.sequence
    WHERE NOT s.present AND s.clock < excluded.clock;
    RETURN true;
END
$$;

GRANT EXECUTE ON FUNCTION prefs_sync_clock_at(double precision, bigint),
    prefs_sync_removed_early(), prefs_sync_untagged_early()
    TO prefs_account, prefs_service;

-- Every function of the schema pins its search_path, these too.
DO $pin$
DECLARE
    fn regprocedure;
BEGIN
    FOR fn IN
        SELECT p.oid::regprocedure FROM pg_catalog.pg_proc AS p
        WHERE p.pronamespace = pg_catalog.current_schema()::regnamespace
            AND p.proname LIKE 'prefs\_%' AND p.proconfig IS NULL
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
            fn, pg_catalog.current_schema());
    END LOOP;
END
$pin$;

-- 4. An account's sync lock cannot be taken by another account. It was an advisory lock on
--    a hash of the account's name, which any role can compute and hold, stopping another
--    account's rounds and server writes (exit 75). Its key is now a hash of the account's
--    channel, a random token that row-level security shows to the account alone.
CREATE FUNCTION prefs_sync_lock_key(owner text) RETURNS bigint
LANGUAGE sql STABLE AS $$
    SELECT pg_catalog.hashtextextended('prefs sync ' || coalesce(
        (SELECT a.channel FROM prefs_account_state AS a WHERE a.account = owner), owner), 0)
$$;

GRANT EXECUTE ON FUNCTION prefs_sync_lock_key(text) TO prefs_account, prefs_service;

-- Every function that took the lock, rewritten from its own current definition (its
-- settings kept) with the new key.
DO $rewrite$
DECLARE
    fn oid;
    definition text;
BEGIN
    FOR fn IN
        SELECT p.oid FROM pg_catalog.pg_proc AS p
        WHERE p.pronamespace = pg_catalog.current_schema()::regnamespace
            AND p.proname LIKE 'prefs\_%'
            AND p.prosrc LIKE '%hashtextextended(''prefs sync '' || owner, 0)%'
    LOOP
        definition := pg_catalog.replace(pg_catalog.pg_get_functiondef(fn),
            'hashtextextended(''prefs sync '' || owner, 0)', 'prefs_sync_lock_key(owner)');
        EXECUTE definition;
    END LOOP;
END
$rewrite$;

-- 5. A row written into sync_change by other means than a push is held to the clock bound
--    even when the session claims to be a push applying (a setting any client can set): a
--    forged clock far ahead no longer reaches the devices. (A push checks its rows' clocks
--    before it stores them.)
CREATE OR REPLACE FUNCTION prefs_sync_numbered() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- The bound's own reading (a table read) only for a clock past now: cheap for a push.
    IF NEW.clock ~ '^[0-9]{15}-'
        AND left(NEW.clock, 15)::bigint > (extract(epoch FROM clock_timestamp()) * 1000)::bigint
        AND left(NEW.clock, 15)::bigint > prefs_sync_clock_limit() THEN
        RAISE EXCEPTION 'the clock % is ahead of the hub''s by more than the bound', NEW.clock
            USING ERRCODE = 'check_violation';
    END IF;
    -- A push numbers its rows itself, for all of them at once.
    IF coalesce(current_setting('prefs.sync_applying', true), '') = 'on' THEN
        RETURN NEW;
    END IF;
    NEW.sequence := prefs_sync_number(NEW.account);
    RETURN NEW;
END
$$;

DO $pin$
DECLARE
    fn regprocedure;
BEGIN
    FOR fn IN
        SELECT p.oid::regprocedure FROM pg_catalog.pg_proc AS p
        WHERE p.pronamespace = pg_catalog.current_schema()::regnamespace
            AND p.proname LIKE 'prefs\_%' AND p.proconfig IS NULL
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
            fn, pg_catalog.current_schema());
    END LOOP;
END
$pin$;
