-- Sync stamps what the user decided, a restored file never reuses a clock, and tags merge
-- (docs/sync.md, "Stamping", "A restore is detected" and "Tags"); the device's side is
-- `Migrations/0016_sync_stamps_intent.sql`.
--
-- 1. A bookmark's newest removal is a field of its own, `removed` (present, no value, the
--    clock of the removal): a bookmark has the tags stamped at or after it, so two additions
--    keep both tag sets. Every bookmark's `removed` starts at the clock of its `exists`
--    (which hides what the old rule, "tags at or after the newest addition", hid), numbered
--    as its `exists`: a device makes the same row in its own migration.
-- 2. A write that repeats what the account holds (a set of the stored value, a removal of
--    what is not there, a title or tag given again) is stamped: prefs_sync_restated_*.
--    An update of a preference is stamped whatever it changed.
-- 3. A push names its device: a change of that device stamped at or below the newest
--    clock the hub took from it, with other content than the hub took under that clock
--    (or never taken, while the hub holds only older changes of the field), comes from a
--    file restored from an older copy whose clock came back. It is not taken; the push answers it as
--    stale with that clock, and the device stamps it again above it.

-- 1. The rules and the table's constraint know `removed`.
DO $rules$
DECLARE
    fn regprocedure :=
        'prefs_sync_problem(text, text, text, text, boolean, text, text, bytea)'::regprocedure;
    definition text := pg_catalog.pg_get_functiondef(fn);
    fields constant text := $$('exists', 'title', 'url', 'category', 'note', 'position', 'folder')$$;
    valueless constant text := $$IF field = 'exists' OR NOT present THEN$$;
BEGIN
    IF position(fields IN definition) = 0 OR position(valueless IN definition) = 0 THEN
        RAISE EXCEPTION 'prefs: prefs_sync_problem is not as expected';
    END IF;
    definition := replace(definition, fields,
        $$('exists', 'removed', 'title', 'url', 'category', 'note', 'position', 'folder')$$);
    definition := replace(definition, valueless,
        $$IF field = 'removed' AND NOT present THEN
        RETURN 'a bookmark''s removal is present';
    END IF;
    IF field IN ('exists', 'removed') OR NOT present THEN$$);
    EXECUTE definition;
END
$rules$;

ALTER TABLE sync_change DROP CONSTRAINT sync_change_well_formed;
ALTER TABLE sync_change ADD CONSTRAINT sync_change_well_formed CHECK (
    clock ~ '^[0-9]{15}-[0-9]{6}-[0-9a-z]{1,64}$'
    AND octet_length(ident) <= 3 * 2048 + 2
    AND ident ~ '^(?:[0-9A-F]{2})+(?:\.(?:[0-9A-F]{2})+){1,2}$'
    AND CASE entity
        WHEN 'preference' THEN field = 'value'
        WHEN 'tag' THEN field = 'present'
        WHEN 'bookmark' THEN field IN ('exists', 'removed', 'title', 'url', 'category', 'note',
            'position', 'folder')
        ELSE false END
    AND coalesce(octet_length(value), 0) <= 4194304
    AND coalesce(length(bytes), 0) <= 4194304
) NOT VALID;

-- Every bookmark's newest removal, as the old rule read it.
INSERT INTO sync_change (account, entity, ident, field, clock, device, present, sequence)
SELECT s.account, 'bookmark', s.ident, 'removed', s.clock, s.device, true, s.sequence
FROM sync_change AS s WHERE s.entity = 'bookmark' AND s.field = 'exists'
ON CONFLICT ON CONSTRAINT sync_change_pkey DO NOTHING;

-- A server's deletion stamps `removed` beside its tombstone (and one before the account
-- syncs: a removal of its time); a server's tag goes past its bookmark's `removed` (it counts
-- even when a removal came from a device whose clock ran ahead); every server update of a
-- preference is stamped.
DO $stamps$
DECLARE
    definition text;
    old_text text;
BEGIN
    definition := pg_catalog.pg_get_functiondef('prefs_sync_stamp_bookmark()'::regprocedure);
    old_text := $$'exists', false, NULL, NULL);
        RETURN NULL;$$;
    IF position(old_text IN definition) = 0 THEN
        RAISE EXCEPTION 'prefs: prefs_sync_stamp_bookmark is not as expected';
    END IF;
    EXECUTE replace(definition, old_text, $$'exists', false, NULL, NULL);
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'removed', true,
            NULL, NULL);
        RETURN NULL;$$);

    definition := pg_catalog.pg_get_functiondef('prefs_sync_removed_early()'::regprocedure);
    old_text := $$'exists', false,
            NULL, NULL);$$;
    IF position(old_text IN definition) = 0 THEN
        RAISE EXCEPTION 'prefs: prefs_sync_removed_early is not as expected';
    END IF;
    EXECUTE replace(definition, old_text, $$'exists', false,
            NULL, NULL);
        PERFORM prefs_sync_stamp(OLD.account, 'bookmark', bookmark_ident, 'removed', true,
            NULL, NULL);$$);

    definition := pg_catalog.pg_get_functiondef(
        'prefs_sync_stamp(text, text, text, text, boolean, text, text, text, text)'::regprocedure);
    old_text := $$AND s.field = 'exists') END)$$;
    IF position(old_text IN definition) = 0 THEN
        RAISE EXCEPTION 'prefs: prefs_sync_stamp is not as expected';
    END IF;
    EXECUTE replace(definition, old_text, $$AND s.field = 'removed') END)$$);

    definition := pg_catalog.pg_get_functiondef('prefs_sync_stamp_preference()'::regprocedure);
    old_text := $$    IF TG_OP = 'UPDATE' AND NEW.type = OLD.type AND NEW.value IS NOT DISTINCT FROM OLD.value
        AND NEW.bytes IS NOT DISTINCT FROM OLD.bytes THEN
        RETURN NULL;
    END IF;
$$;
    IF position(old_text IN definition) = 0 THEN
        RAISE EXCEPTION 'prefs: prefs_sync_stamp_preference is not as expected';
    END IF;
    EXECUTE replace(definition, old_text, '');

    -- A tag the hub has already (present, at or after its bookmark's newest removal) is not
    -- stamped again when a bookmark added again gets it (BookmarkStore.withSyncedTags).
    definition := pg_catalog.pg_get_functiondef('prefs_sync_stamp_tag()'::regprocedure);
    old_text := $$    PERFORM prefs_sync_stamp(tag_row.account, 'tag',$$;
    IF position(old_text IN definition) = 0 THEN
        RAISE EXCEPTION 'prefs: prefs_sync_stamp_tag is not as expected';
    END IF;
    EXECUTE replace(definition, old_text, $$    IF TG_OP = 'INSERT' AND EXISTS (
        SELECT 1 FROM bookmark AS b JOIN sync_change AS t ON t.account = b.account
            AND t.entity = 'tag' AND t.field = 'present' AND t.present
            AND t.ident = prefs_sync_name(b.kind) || '.' || prefs_sync_name(b.item_id) || '.'
                || prefs_sync_name(tag_row.tag)
        WHERE b.account = tag_row.account AND b.id = tag_row.bookmark_id
            AND t.clock COLLATE "C" >= coalesce((SELECT r.clock FROM sync_change AS r
                WHERE r.account = b.account AND r.entity = 'bookmark' AND r.field = 'removed'
                    AND r.ident = prefs_sync_name(b.kind) || '.' || prefs_sync_name(b.item_id)),
                '')) THEN
        RETURN NULL;
    END IF;
    PERFORM prefs_sync_stamp(tag_row.account, 'tag',$$);
END
$stamps$;

-- 2. Writes that change no row, stamped all the same; not while a push applies (stamping
--    off while the account syncs). Before the account syncs too, as prefs_sync_removed_early
--    stamps a removal then: the first contact keeps a stamp newer than the row's time.
CREATE FUNCTION prefs_sync_restating(owner text) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT owner IS NOT NULL AND (prefs_sync_stamping(owner) OR NOT coalesce(
        (SELECT a.sync_on FROM prefs_account_state AS a WHERE a.account = owner), false))
$$;

CREATE FUNCTION prefs_sync_restated_preference(owner text, restated_suite text,
    restated_key text, restated_present boolean) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF NOT prefs_sync_restating(owner) OR EXISTS (
        SELECT 1 FROM preference_declaration AS d WHERE d.account = owner
            AND d.suite = restated_suite AND d.key = restated_key AND d.device_local) THEN
        RETURN;
    END IF;
    PERFORM prefs_sync_stamp(owner, 'preference',
        prefs_sync_name(restated_suite) || '.' || prefs_sync_name(restated_key), 'value',
        restated_present, NULL, NULL, restated_suite, restated_key);
END
$$;

-- A bookmark's field (`folder`: read here, as the hub stamps it) or a tag (`present`).
CREATE FUNCTION prefs_sync_restated_bookmark(owner text, restated_entity text,
    restated_ident text, restated_field text, restated_type text, restated_value text)
RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    names text[] := string_to_array(restated_ident, '.');
BEGIN
    IF NOT prefs_sync_restating(owner) OR restated_entity NOT IN ('bookmark', 'tag') THEN
        RETURN;
    END IF;
    IF restated_entity = 'bookmark' AND restated_field = 'folder' THEN
        SELECT 'string', prefs_sync_folder(owner, b.folder_id, b.category)
        INTO restated_type, restated_value
        FROM bookmark AS b WHERE b.account = owner
            AND b.kind = convert_from(decode(names[1], 'hex'), 'UTF8')
            AND b.item_id = convert_from(decode(names[2], 'hex'), 'UTF8');
    END IF;
    PERFORM prefs_sync_stamp(owner, restated_entity, restated_ident, restated_field, true,
        restated_type, restated_value);
END
$$;

-- The set sent alone (0022), stamping a set of the value stored.
CREATE OR REPLACE FUNCTION prefs_set_value(owner text, set_suite text, set_key text,
    set_type text, set_value text, set_bytes bytea, set_at double precision,
    set_version integer, after_id bigint)
RETURNS TABLE (id bigint, suite text, key text, type text, value text, bytes bytea,
    old_type text, old_value text, old_bytes bytea, changed_at double precision,
    declared text)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
    other text;
BEGIN
    SELECT d.type INTO other FROM preference_declaration AS d
        WHERE d.account = owner AND d.suite = set_suite AND d.key = set_key
            AND d.type <> set_type;
    IF other IS NOT NULL THEN
        RETURN QUERY SELECT NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text,
            NULL::bytea, NULL::text, NULL::text, NULL::bytea, NULL::double precision, other;
        RETURN;
    END IF;
    INSERT INTO preference AS p (account, suite, key, type, value, bytes, updated_at,
        value_version)
    VALUES (owner, set_suite, set_key, set_type, set_value, set_bytes, set_at, set_version)
    ON CONFLICT (account, suite, key) DO UPDATE
    SET type = excluded.type, value = excluded.value, bytes = excluded.bytes,
        updated_at = excluded.updated_at, value_version = excluded.value_version
    -- The value already stored is no change: no time moves, no one is told; sync stamps it.
    WHERE (p.type, p.value, p.bytes, p.value_version)
        IS DISTINCT FROM (excluded.type, excluded.value, excluded.bytes,
            excluded.value_version);
    IF NOT FOUND THEN
        PERFORM prefs_sync_restated_preference(owner, set_suite, set_key, true);
    END IF;
    RETURN QUERY SELECT h.id, h.suite, h.key, h.type, h.value, h.bytes, h.old_type,
            h.old_value, h.old_bytes, h.changed_at, NULL::text
        FROM preference_history AS h
        WHERE h.account = owner AND h.id > after_id ORDER BY h.id;
END;
$$;

-- 3. The push, with its device: stale changes besides the rest (0018's columns, then
-- `stale` and the device's `pushed_clock`, on the stale rows and the taken row).
DROP FUNCTION prefs_sync_push(text, jsonb, bigint);

CREATE FUNCTION prefs_sync_push(owner text, document jsonb, pulled_through bigint,
    pusher text)
RETURNS TABLE (n bigint, entity text, ident text, field text, clock text, present boolean,
    type text, value text, bytes bytea, newer boolean, kind text, item text, taken bigint,
    problem text, refused boolean, clock_limit bigint, clock_bound bigint, stale boolean,
    pushed_clock text)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    push_number bigint;
    pushed prefs_sync_pushed[] := prefs_sync_pushed_rows(document);
    skipped bigint[] := '{}';
    limit_ms bigint := prefs_sync_clock_limit();
    bound_ms bigint := (SELECT c.clock_bound_ms FROM prefs_sync_config AS c);
    known text;
    checked record;
BEGIN
    SELECT b.number INTO push_number FROM prefs_sync_begin(owner) AS b;
    -- Each change against the rules and the clock bound, alone: a malformed one or one
    -- stamped too far ahead is refused and reported; the rest go on.
    FOR checked IN
        SELECT r.n, r.problem FROM (
            SELECT d.n, d.clock, prefs_sync_problem(d.entity, d.ident, d.field, d.clock,
                d.present, d.type, d.value, d.bytes::bytea) AS problem
            FROM unnest(pushed) AS d) AS r
        WHERE CASE WHEN r.problem IS NOT NULL THEN true
            ELSE split_part(r.clock, '-', 1)::bigint > limit_ms END
    LOOP
        skipped := skipped || checked.n;
        RETURN QUERY SELECT checked.n, NULL::text, NULL::text, NULL::text, NULL::text,
            NULL::boolean, NULL::text, NULL::text, NULL::bytea, NULL::boolean, NULL::text,
            NULL::text, NULL::bigint, checked.problem, true, NULL::bigint, NULL::bigint,
            NULL::boolean, NULL::text;
    END LOOP;
    -- The pushing device's own changes at or below the newest clock taken from it, that the
    -- hub does not hold as they are: from a file restored from an older copy.
    SELECT d.pushed_clock INTO known FROM sync_device AS d
    WHERE d.account = owner AND d.device = pusher;
    IF known IS NOT NULL THEN
        FOR checked IN
            -- The device's own changes at or below the clock first: in a push of new writes
            -- there are none, and nothing below is read.
            SELECT d.n FROM (
                SELECT u.* FROM unnest(pushed) AS u
                WHERE u.device = pusher AND u.clock COLLATE "C" <= known COLLATE "C"
                    AND u.n <> ALL(skipped) OFFSET 0) AS d
            LEFT JOIN LATERAL (
                SELECT * FROM sync_change AS x WHERE x.account = owner AND x.entity = d.entity
                    AND x.ident = d.ident AND x.field = d.field OFFSET 0) AS s ON true
            LEFT JOIN preference AS p ON s.entity = 'preference' AND s.present
                AND p.account = owner AND p.suite = s.suite AND p.key = s.key
            WHERE CASE
                    WHEN s.clock IS NULL THEN true
                    WHEN s.clock = d.clock THEN (s.present,
                            CASE WHEN s.entity = 'preference' THEN p.type ELSE s.type END,
                            CASE WHEN s.entity = 'preference' THEN p.value ELSE s.value END,
                            CASE WHEN s.entity = 'preference' THEN p.bytes ELSE s.bytes END)
                        IS DISTINCT FROM (d.present, d.type, d.value, d.bytes::bytea)
                    -- A newer row (the file's own lost future's too): the change is older
                    -- than a decision the hub took, and loses as any older change does.
                    ELSE s.clock COLLATE "C" < d.clock COLLATE "C" END
        LOOP
            skipped := skipped || checked.n;
            RETURN QUERY SELECT checked.n, NULL::text, NULL::text, NULL::text, NULL::text,
                NULL::boolean, NULL::text, NULL::text, NULL::bytea, NULL::boolean, NULL::text,
                NULL::text, NULL::bigint, NULL::text, NULL::boolean, NULL::bigint,
                NULL::bigint, true, known;
        END LOOP;
    END IF;
    -- The hub's rows as new or newer than a change, and the older ones of other devices
    -- that the pushing device had not pulled, before the store replaces them.
    RETURN QUERY
    SELECT d.n, s.entity, s.ident, s.field, s.clock, s.present,
        CASE WHEN s.entity = 'preference' THEN p.type ELSE s.type END,
        CASE WHEN s.entity = 'preference' THEN p.value ELSE s.value END,
        CASE WHEN s.entity = 'preference' THEN p.bytes ELSE s.bytes END,
        s.clock >= d.clock COLLATE "C", NULL::text, NULL::text, NULL::bigint, NULL::text,
        NULL::boolean, NULL::bigint, NULL::bigint, NULL::boolean, NULL::text
    FROM unnest(pushed) AS d
    CROSS JOIN LATERAL (
        SELECT * FROM sync_change AS x WHERE x.account = owner AND x.entity = d.entity
            AND x.ident = d.ident AND x.field = d.field OFFSET 0) AS s
    LEFT JOIN preference AS p ON s.entity = 'preference' AND s.present
        AND p.account = s.account AND p.suite = s.suite AND p.key = s.key
    WHERE d.n <> ALL(skipped) AND (s.clock >= d.clock COLLATE "C"
        OR (s.sequence > pulled_through AND s.device <> d.device));
    RETURN QUERY
    SELECT NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text, NULL::boolean,
        NULL::text, NULL::text, NULL::bytea, NULL::boolean, w.kind, w.item,
        CASE WHEN w.kind IS NULL THEN w.taken END, NULL::text, NULL::boolean,
        CASE WHEN w.kind IS NULL THEN limit_ms END, CASE WHEN w.kind IS NULL THEN bound_ms END,
        NULL::boolean, CASE WHEN w.kind IS NULL THEN known END
    FROM prefs_sync_store_pushed(owner, pushed, skipped, push_number) AS w;
END
$$;

DO $definer$
DECLARE
    fn regprocedure;
BEGIN
    FOREACH fn IN ARRAY ARRAY[
        'prefs_sync_restating(text)'::regprocedure,
        'prefs_sync_restated_preference(text, text, text, boolean)'::regprocedure,
        'prefs_sync_restated_bookmark(text, text, text, text, text, text)'::regprocedure,
        'prefs_sync_push(text, jsonb, bigint, text)'::regprocedure]
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
            fn, pg_catalog.current_schema());
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', fn);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO prefs_account, prefs_service', fn);
    END LOOP;
    -- The push runs as the owner and checks that the caller acts for the account
    -- (prefs_sync_begin); the restatements run as their caller, and stamp through
    -- prefs_sync_stamp, which checks it.
    EXECUTE 'ALTER FUNCTION prefs_sync_push(text, jsonb, bigint, text) SECURITY DEFINER';
    -- Replaced above, its grants kept and its settings not.
    EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
        'prefs_set_value(text, text, text, text, text, bytea, double precision, integer, bigint)'
            ::regprocedure, pg_catalog.current_schema());
END
$definer$;
