-- The hub's small helpers keep their plans for the session (issue: the hub's CPU per synced
-- change).
--
-- These were SQL functions with a pinned search_path. Such a function is not inlined, and
-- PostgreSQL 15 parses and plans a SQL function's body again at each statement that calls
-- it: called once a statement from the hub's PL/pgSQL functions (the clock, the account's
-- lock, its bound, the pushed document's rows, whether a push is applying), each call
-- cost 50-110 us, some 30 calls a round. A PL/pgSQL function is compiled once a session
-- and keeps its statements' plans; the search path stays pinned, the bodies are the same.
CREATE OR REPLACE FUNCTION prefs_sync_now_ms() RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
    RETURN (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
END
$$;

CREATE OR REPLACE FUNCTION prefs_sync_clock_limit() RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (extract(epoch FROM clock_timestamp()) * 1000)::bigint
        + (SELECT c.clock_bound_ms FROM prefs_sync_config AS c);
END
$$;

CREATE OR REPLACE FUNCTION prefs_sync_lock_key(owner text) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN pg_catalog.hashtextextended('prefs sync ' || coalesce(
        (SELECT a.channel FROM prefs_account_state AS a WHERE a.account = owner), owner), 0);
END
$$;

CREATE OR REPLACE FUNCTION prefs_account_bytes_limit(owner text) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN coalesce((SELECT a.bytes_limit FROM prefs_account_size AS a
        WHERE a.account = owner), (SELECT c.account_bytes_limit FROM prefs_sync_config AS c));
END
$$;

CREATE OR REPLACE FUNCTION prefs_notify_payload() RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN coalesce(pg_catalog.current_setting('prefs.writer', true), '');
END
$$;

CREATE OR REPLACE FUNCTION prefs_sync_pushed_rows(document jsonb) RETURNS prefs_sync_pushed[]
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN (SELECT coalesce(array_agg(ROW(d.n, d.entity, d.ident, d.field, d.clock, d.device,
            d.present, d.type, d.value, d.bytes)::prefs_sync_pushed), '{}')
        FROM jsonb_to_recordset(document) AS d(n bigint, entity text, ident text, field text,
            clock text, device text, present boolean, type text, value text, bytes text));
END
$$;

CREATE OR REPLACE FUNCTION prefs_sync_applying() RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM prefs_sync_transaction AS t
        WHERE t.xid = pg_current_xact_id_if_assigned()
            AND t.applying = current_setting('prefs.sync_applying', true));
END
$$;

-- The store's owner named as 0017 names it, at migration time.
DO $owner$
BEGIN
    EXECUTE format($function$
        CREATE OR REPLACE FUNCTION prefs_sync_stamping(owner text) RETURNS boolean
        LANGUAGE plpgsql STABLE AS $$
        BEGIN
            RETURN NOT (coalesce(current_setting('prefs.sync_applying', true), '') <> ''
                    AND current_user = %L)
                AND coalesce((SELECT s.sync_on FROM prefs_account_state AS s
                    WHERE s.account = owner), false);
        END
        $$;
    $function$, current_user);
END
$owner$;

-- A replacement keeps none of the settings the functions had: the path pinned again.
DO $pinned$
DECLARE
    fn regprocedure;
BEGIN
    FOREACH fn IN ARRAY ARRAY[
        'prefs_sync_now_ms()'::regprocedure,
        'prefs_sync_clock_limit()'::regprocedure,
        'prefs_sync_lock_key(text)'::regprocedure,
        'prefs_account_bytes_limit(text)'::regprocedure,
        'prefs_notify_payload()'::regprocedure,
        'prefs_sync_pushed_rows(jsonb)'::regprocedure,
        'prefs_sync_applying()'::regprocedure,
        'prefs_sync_stamping(text)'::regprocedure]
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
            fn, pg_catalog.current_schema());
    END LOOP;
END
$pinned$;

-- The sizes an account's bound adds up, per pushed change and per history row: PL/pgSQL
-- too (as SQL with a pinned path, each call cost about 20 us).
CREATE OR REPLACE FUNCTION prefs_held_size(ident text, field text, clock text, value text,
    bytes bytea) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN (coalesce(octet_length(ident), 0) + coalesce(octet_length(field), 0)
        + coalesce(octet_length(clock), 0) + coalesce(octet_length(value), 0)
        + coalesce(octet_length(bytes), 0))::bigint;
END
$$;
ALTER FUNCTION prefs_held_size(text, text, text, text, bytea) SET search_path = pg_catalog;

CREATE OR REPLACE FUNCTION prefs_history_size(suite text, key text, value text, bytes bytea,
    old_value text, old_bytes bytea) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN (octet_length(suite) + octet_length(key) + coalesce(octet_length(value), 0)
        + coalesce(octet_length(bytes), 0) + coalesce(octet_length(old_value), 0)
        + coalesce(octet_length(old_bytes), 0))::bigint;
END
$$;
ALTER FUNCTION prefs_history_size(text, text, text, bytea, text, bytea)
    SET search_path = pg_catalog;
