-- Notifications say which store's transaction sent them. A store behind a transaction
-- pooler listens on a connection of its own, and the server connection that ran its commit
-- varies, so the sending process's id no longer tells a store its own commits from others'.
-- Each store names itself in the transaction (`prefs.writer`, set with the account) and
-- every notification of the schema carries that name as its payload ('' when unset).

CREATE FUNCTION prefs_notify_payload() RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT coalesce(pg_catalog.current_setting('prefs.writer', true), '')
$$;

GRANT EXECUTE ON FUNCTION prefs_notify_payload() TO prefs_account, prefs_service;

-- Every function of the schema that notifies, rewritten from its own current definition
-- (pg_get_functiondef keeps its settings, the pinned search_path among them) with the
-- payload in place of ''.
DO $rewrite$
DECLARE
    fn oid;
    definition text;
BEGIN
    FOR fn IN
        SELECT p.oid FROM pg_catalog.pg_proc AS p
        WHERE p.pronamespace = pg_catalog.current_schema()::regnamespace
            AND p.proname LIKE 'prefs\_%' AND p.prosrc LIKE '%pg_notify(%'
    LOOP
        definition := pg_catalog.pg_get_functiondef(fn);
        definition := pg_catalog.regexp_replace(definition,
            'pg_notify\(([^;]*?), ''''\)', 'pg_notify(\1, prefs_notify_payload())', 'g');
        IF definition ~ 'pg_notify\([^;]*, ''''\)' THEN
            RAISE EXCEPTION 'a notification left without its payload in %', fn::regprocedure;
        END IF;
        EXECUTE definition;
    END LOOP;
END
$rewrite$;

DO $pin$
BEGIN
    EXECUTE format(
        'ALTER FUNCTION prefs_notify_payload() SET search_path = pg_catalog, %I, pg_temp',
        pg_catalog.current_schema());
END
$pin$;
