-- The hub is reached through its functions only (docs/sync.md, "What a client of the hub can
-- and cannot do").
--
-- Until this file a device's login role (and a server app's) could write the sync tables
-- itself, under row-level security, and set the session settings the hub's own code relied
-- on: `prefs.sync_applying` ("a push is applying: stamp nothing") and `prefs.sync_number`
-- (the number of this transaction's changes). So a client could insert rows into
-- sync_change that reached its devices but never the store's tables, number them low so
-- that devices past that number never pulled them, turn its account's stamping off, or
-- write the store's tables unstamped. Now:
--   * the roles prefs_account and prefs_service have no INSERT, UPDATE or DELETE on
--     sync_change, sync_device, sync_misaligned and the sequence's numbers, nor on the sync
--     columns of prefs_account_state (sync_on, sync_rebuild, channel, the old horizon);
--   * every write of those is made by a function below that runs as the store's owner
--     (SECURITY DEFINER) and acts only for the account of the session's own login role
--     (a member of prefs_service: the account it names in prefs.account);
--   * a transaction's number is kept in a table of the hub's own, by transaction id, never
--     in a setting; "a push is applying" is a token that the push's function keeps there
--     and sets, so that no setting a client sets, or leaves behind in a pooled session,
--     counts as one.

-- The store's owner acts for the account it names in prefs.account, as a member of
-- prefs_service does (with none named it is the account of its own name, as before): the
-- hub's functions run as the owner and act for the caller's account. Written with the
-- owner's name at migration time, so that the check costs no catalog lookup.
DO $owner$
BEGIN
    EXECUTE format($function$
        CREATE FUNCTION prefs_account_of(role_name name) RETURNS text
        LANGUAGE sql STABLE AS $$
            SELECT CASE
                -- The group roles themselves (SET ROLE prefs_account) act for no account.
                WHEN role_name IN ('prefs_account', 'prefs_service') THEN NULL
                WHEN (role_name = %1$L
                        AND pg_catalog.current_setting('prefs.account', true) <> '')
                    OR pg_catalog.pg_has_role(role_name, 'prefs_service', 'MEMBER')
                    THEN nullif(pg_catalog.current_setting('prefs.account', true), '')
                ELSE role_name::text
            END
        $$;
    $function$, current_user);
END
$owner$;

CREATE OR REPLACE FUNCTION prefs_current_account() RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT prefs_account_of(current_user)
$$;

-- The hub's own record of the transactions that number changes: for each transaction and
-- account, the number it took and, for a push, the token of "applying". Rows of ended
-- transactions are collected by the next transaction that takes a number.
CREATE UNLOGGED TABLE prefs_sync_transaction (
    xid xid8 NOT NULL,
    account text NOT NULL,
    number bigint NOT NULL,
    applying text,
    PRIMARY KEY (xid, account)
);
REVOKE ALL ON prefs_sync_transaction FROM PUBLIC;

-- The caller's account, checked: the account of the session's own login role (never
-- current_user, which inside these functions is the owner; never a role set with SET ROLE).
-- The owner and superusers act for any account. Sets prefs.account, for the function's
-- statements, whose row security is the owner's (for every other caller it is already the
-- account, or not read).
CREATE FUNCTION prefs_sync_acting(owner text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF owner IS NULL OR (owner IS DISTINCT FROM prefs_account_of(session_user)
        AND NOT pg_catalog.pg_has_role(session_user,
            (SELECT c.relowner FROM pg_catalog.pg_class AS c
                WHERE c.oid = 'prefs_sync_transaction'::regclass), 'MEMBER')) THEN
        RAISE EXCEPTION 'the hub acts only for the account of the session''s own role'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF current_setting('prefs.account', true) IS DISTINCT FROM owner THEN
        PERFORM set_config('prefs.account', owner, true);
    END IF;
END
$$;

-- The number of this transaction's changes of the account, taken once per transaction
-- under the account's sync lock. Called inside the hub's functions only.
CREATE FUNCTION prefs_sync_take_number(owner text) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    taken bigint;
BEGIN
    SELECT t.number INTO taken FROM prefs_sync_transaction AS t
    WHERE t.xid = pg_current_xact_id() AND t.account = owner;
    IF FOUND THEN
        RETURN taken;
    END IF;
    PERFORM pg_advisory_xact_lock(prefs_sync_lock_key(owner));
    taken := nextval('prefs_sync_sequence');
    DELETE FROM prefs_sync_transaction WHERE (xid, account) IN (
        SELECT t.xid, t.account FROM prefs_sync_transaction AS t
        WHERE t.xid < pg_snapshot_xmin(pg_current_snapshot())
        FOR UPDATE SKIP LOCKED);
    INSERT INTO prefs_sync_transaction (xid, account, number)
    VALUES (pg_current_xact_id(), owner, taken);
    RETURN taken;
END
$$;

CREATE OR REPLACE FUNCTION prefs_sync_number(owner text) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    RETURN prefs_sync_take_number(owner);
END
$$;

CREATE FUNCTION prefs_sync_applying() RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM prefs_sync_transaction AS t
        WHERE t.xid = pg_current_xact_id_if_assigned()
            AND t.applying = current_setting('prefs.sync_applying', true))
$$;

-- A push or a first pull opens: stamping on, the transaction's number, "applying" (what
-- the push writes to the store's tables is not stamped again); whether the account's
-- bookmarks are to be rebuilt.
CREATE FUNCTION prefs_sync_begin(owner text, OUT number bigint, OUT rebuild boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    token text;
BEGIN
    PERFORM prefs_sync_acting(owner);
    PERFORM prefs_sync_start(owner);
    number := prefs_sync_take_number(owner);
    SELECT t.applying INTO token FROM prefs_sync_transaction AS t
    WHERE t.xid = pg_current_xact_id() AND t.account = owner;
    IF token IS NULL THEN
        token := replace(gen_random_uuid()::text, '-', '');
        UPDATE prefs_sync_transaction SET applying = token
        WHERE xid = pg_current_xact_id() AND account = owner;
    END IF;
    PERFORM set_config('prefs.sync_applying', token, true);
    SELECT a.sync_rebuild INTO rebuild FROM prefs_account_state AS a WHERE a.account = owner;
    rebuild := coalesce(rebuild, false);
END
$$;

-- The push's store: the winners of the pushed document (`jsonb_to_recordset` rows n,
-- entity, ident, field, clock, device, present, type, value, bytes), all but the numbers in
-- `skipped` (refused by the rules or the clock bound), are kept with their clocks, and the
-- preferences among them applied to the preference table. Returns one row (NULL, NULL,
-- count of things taken), then the bookmarks (kind and item idents) whose fields changed.
-- The table's constraint and trigger check every row again, whoever calls.
CREATE FUNCTION prefs_sync_push_store(owner text, document jsonb, skipped bigint[])
RETURNS TABLE (kind text, item text, taken bigint)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    push_number bigint;
BEGIN
    SELECT b.number INTO push_number FROM prefs_sync_begin(owner) AS b;
    RETURN QUERY
    WITH c AS (
        SELECT DISTINCT ON (d.entity, d.ident, d.field) d.*
        FROM jsonb_to_recordset(document) AS d(n bigint, entity text, ident text,
            field text, clock text, device text, present boolean, type text, value text,
            bytes text)
        WHERE d.n <> ALL(skipped)
        ORDER BY d.entity, d.ident, d.field, d.clock COLLATE "C" DESC
    ), won AS (
        INSERT INTO sync_change AS s (account, entity, ident, field, clock,
            device, present, type, value, bytes, sequence, suite, key)
        SELECT owner, c.entity, c.ident, c.field, c.clock, c.device, c.present,
            CASE WHEN c.entity <> 'preference' THEN c.type END,
            CASE WHEN c.entity <> 'preference' THEN c.value END,
            CASE WHEN c.entity <> 'preference' THEN c.bytes::bytea END,
            push_number,
            CASE WHEN c.entity = 'preference' THEN convert_from(
                decode(split_part(c.ident, '.', 1), 'hex'), 'UTF8') END,
            CASE WHEN c.entity = 'preference' THEN convert_from(
                decode(split_part(c.ident, '.', 2), 'hex'), 'UTF8') END
        FROM c
        ON CONFLICT ON CONSTRAINT sync_change_pkey DO UPDATE SET
            clock = excluded.clock, device = excluded.device,
            present = excluded.present, type = excluded.type,
            value = excluded.value, bytes = excluded.bytes,
            sequence = excluded.sequence, suite = excluded.suite,
            key = excluded.key
        WHERE s.clock < excluded.clock
        RETURNING s.entity, s.ident, s.field, s.present, s.suite, s.key
    )
    SELECT NULL, NULL, count(DISTINCT (w.entity, w.ident)) FROM won AS w
    UNION ALL
    SELECT DISTINCT split_part(w.ident, '.', 1), split_part(w.ident, '.', 2), 0::bigint
    FROM won AS w WHERE w.entity <> 'preference';
    -- The preferences that won: their rows carry their clocks now (one pushed again applies
    -- its same value again, which changes nothing).
    INSERT INTO preference AS p (account, suite, key, type, value, bytes, updated_at)
    SELECT DISTINCT ON (s.suite, s.key) owner, s.suite, s.key, d.type, d.value,
        d.bytes::bytea, left(d.clock, 15)::bigint / 1000.0 - 978307200
    FROM jsonb_to_recordset(document) AS d(n bigint, entity text, ident text, field text,
        clock text, present boolean, type text, value text, bytes text)
    CROSS JOIN LATERAL (
        SELECT * FROM sync_change AS s WHERE s.account = owner AND s.entity = d.entity
            AND s.ident = d.ident AND s.field = d.field OFFSET 0) AS s
    WHERE s.clock = d.clock AND d.entity = 'preference' AND d.present AND d.n <> ALL(skipped)
    ON CONFLICT (account, suite, key) DO UPDATE SET
        type = excluded.type, value = excluded.value, bytes = excluded.bytes,
        updated_at = excluded.updated_at;
    DELETE FROM preference AS p USING sync_change AS s
    WHERE s.account = owner AND s.sequence = push_number AND s.entity = 'preference'
        AND NOT s.present AND p.account = owner AND p.suite = s.suite AND p.key = s.key;
END
$$;

-- What the hub knows of a device: the newest clock it took from it (a file older than that
-- was restored), the cursor it reported, when it was seen; and forgetting it.
CREATE FUNCTION prefs_sync_device_pushed(owner text, device_id text, clock text) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    INSERT INTO sync_device (account, device, cursor, seen_at, pushed_clock)
    VALUES (owner, device_id, 0, extract(epoch FROM now()) - 978307200, clock)
    ON CONFLICT (account, device) DO UPDATE SET pushed_clock =
        greatest(sync_device.pushed_clock, excluded.pushed_clock);
END
$$;

CREATE FUNCTION prefs_sync_device_report(owner text, device_id text, reported bigint)
RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    INSERT INTO sync_device (account, device, cursor, seen_at)
    VALUES (owner, device_id, reported, extract(epoch FROM now()) - 978307200)
    ON CONFLICT (account, device) DO UPDATE SET
        cursor = greatest(sync_device.cursor, excluded.cursor), seen_at = excluded.seen_at;
END
$$;

CREATE FUNCTION prefs_sync_device_forget(owner text, device_id text) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    DELETE FROM sync_device WHERE account = owner AND device = device_id;
END
$$;

-- The account's bookmarks were rebuilt from their sync fields (once, see 0010).
CREATE FUNCTION prefs_sync_rebuilt(owner text) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    UPDATE prefs_account_state SET sync_rebuild = false WHERE account = owner;
END
$$;

-- A kind a push renumbered without stamping (see 0011), and the kind aligned again.
CREATE FUNCTION prefs_sync_mark_misaligned(owner text, misaligned_kind text) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    INSERT INTO sync_misaligned (account, kind) VALUES (owner, misaligned_kind)
    ON CONFLICT (account, kind) DO NOTHING;
END
$$;

CREATE FUNCTION prefs_sync_aligned(owner text, aligned_kind text) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    DELETE FROM sync_misaligned AS m WHERE m.account = owner AND m.kind = aligned_kind;
    RETURN FOUND;
END
$$;

-- 0011's trigger, its write of sync_misaligned through the function above.
CREATE OR REPLACE FUNCTION prefs_sync_align() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    written bookmark;
BEGIN
    IF coalesce(current_setting('prefs.sync_applying', true), '') = 'on' THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    IF TG_OP = 'INSERT' THEN written := NEW; ELSE written := OLD; END IF;
    IF EXISTS (SELECT 1 FROM sync_misaligned AS m WHERE m.account = written.account
            AND m.kind = written.kind) AND prefs_sync_stamping(written.account)
        AND prefs_sync_aligned(written.account, written.kind) THEN
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

-- Rows of sync_change come from the hub's functions only, each numbered by them: the
-- table's trigger checks the clock bound and no longer numbers (a number a row carried in
-- was replaced by a lookup of the transaction's, for every stamp of a server write).
CREATE OR REPLACE FUNCTION prefs_sync_numbered() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- The bound's own reading (a table read) only for a clock past now.
    IF NEW.clock ~ '^[0-9]{15}-'
        AND left(NEW.clock, 15)::bigint > (extract(epoch FROM clock_timestamp()) * 1000)::bigint
        AND left(NEW.clock, 15)::bigint > prefs_sync_clock_limit() THEN
        RAISE EXCEPTION 'the clock % is ahead of the hub''s by more than the bound', NEW.clock
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

-- Every function that read the setting now asks whether a push's function is applying in
-- this transaction: statements inside the hub's functions run as the owner (the cheap test,
-- written in line); elsewhere the token that the setting holds must be the one the push's
-- function kept (a setting left by another client, or set by hand, is no token). Those that
-- took the number take it in the hub's own table; stamping and starting check their caller.
DO $rewrite$
DECLARE
    fn oid;
    definition text;
    applying text := format('(coalesce(current_setting(''prefs.sync_applying'', true), '''')'
        || ' <> '''' AND (current_user = %L OR prefs_sync_applying()))', current_user);
BEGIN
    FOR fn IN
        SELECT p.oid FROM pg_catalog.pg_proc AS p
        WHERE p.pronamespace = pg_catalog.current_schema()::regnamespace
            AND p.proname LIKE 'prefs\_%'
            AND (p.prosrc LIKE '%current_setting(''prefs.sync_applying'', true), '''')%'
                OR p.proname IN ('prefs_sync_stamp', 'prefs_sync_start'))
    LOOP
        definition := pg_catalog.pg_get_functiondef(fn);
        definition := replace(definition,
            'coalesce(current_setting(''prefs.sync_applying'', true), '''') = ''on''',
            applying);
        definition := replace(definition,
            'coalesce(current_setting(''prefs.sync_applying'', true), '''') <> ''on''',
            'NOT ' || applying);
        definition := replace(definition, 'number bigint := prefs_sync_number(owner);',
            'number bigint;');
        definition := replace(definition, 'number := prefs_sync_number(owner);',
            'number := prefs_sync_take_number(owner);');
        IF pg_catalog.pg_get_function_identity_arguments(fn) LIKE 'owner text%' THEN
            -- The caller checked first, then the number.
            definition := regexp_replace(definition, E'\\nBEGIN\\n',
                E'\nBEGIN\n    PERFORM prefs_sync_acting(owner);\n'
                || CASE WHEN definition LIKE '%number bigint;%'
                    AND definition NOT LIKE '%number := prefs_sync_take_number(owner);%'
                    THEN E'    number := prefs_sync_take_number(owner);\n' ELSE '' END);
        END IF;
        EXECUTE definition;
    END LOOP;
END
$rewrite$;

-- The functions that write the sync tables run as the owner, with the search path pinned.
DO $definer$
DECLARE
    fn regprocedure;
BEGIN
    FOR fn IN
        SELECT p.oid::regprocedure FROM pg_catalog.pg_proc AS p
        WHERE p.pronamespace = pg_catalog.current_schema()::regnamespace
            AND p.proname IN ('prefs_sync_number', 'prefs_sync_stamp', 'prefs_sync_start',
                'prefs_sync_applying', 'prefs_sync_begin', 'prefs_sync_push_store',
                'prefs_sync_device_pushed', 'prefs_sync_device_report',
                'prefs_sync_device_forget', 'prefs_sync_rebuilt', 'prefs_sync_mark_misaligned',
                'prefs_sync_aligned')
    LOOP
        EXECUTE format('ALTER FUNCTION %s SECURITY DEFINER'
            || ' SET search_path = pg_catalog, %I, pg_temp',
            fn, pg_catalog.current_schema());
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', fn);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO prefs_account, prefs_service', fn);
    END LOOP;
END
$definer$;

-- What the hub's functions use inside only.
REVOKE ALL ON FUNCTION prefs_sync_take_number(text), prefs_sync_acting(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION prefs_account_of(name) TO prefs_account, prefs_service;

-- No client writes the sync tables.
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON sync_change, sync_device, sync_misaligned
    FROM prefs_account, prefs_service;
REVOKE USAGE, UPDATE ON SEQUENCE prefs_sync_sequence FROM prefs_account, prefs_service;
-- The account's state row: the store's own counters stay writable; its sync columns and
-- its channel (the secret of its notifications and of its lock) are the hub's.
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON prefs_account_state
    FROM prefs_account, prefs_service;
GRANT INSERT (account), UPDATE (last_change, history_limit, last_bookmark_id, last_folder_id)
    ON prefs_account_state TO prefs_account, prefs_service;

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
