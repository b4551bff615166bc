-- The account a statement acts for costs no plan per call (issue: the hub's CPU per synced
-- change).
--
-- Row-level security asks prefs_current_account() once a statement of every table it reads
-- or writes, and the hub's functions ask prefs_account_of(session_user): some 15 calls a
-- device's round. Both were SQL functions with a pinned search_path. Such a function is
-- never inlined, and PostgreSQL 15 parses and plans its body again at each statement that
-- calls it: about 45 us of the hub's CPU a call. As PL/pgSQL they are compiled once a
-- session and their expression evaluated directly; the search path stays pinned (every
-- function pins it: a body is never read with a caller's path), and the rule is the same
-- one, in one place.
DO $owner$
BEGIN
    EXECUTE pg_catalog.format($function$
        CREATE OR REPLACE FUNCTION prefs_account_of(role_name name) RETURNS text
        LANGUAGE plpgsql STABLE AS $$
        BEGIN
            RETURN CASE
                -- The group roles themselves (SET ROLE prefs_account) act for no account.
                WHEN role_name IN ('prefs_account', 'prefs_service') THEN NULL
                WHEN (role_name = %1$L
                        AND pg_catalog.current_setting('prefs.account', true) <> '')
                    OR pg_catalog.pg_has_role(role_name, 'prefs_service', 'MEMBER')
                    THEN nullif(pg_catalog.current_setting('prefs.account', true), '')
                ELSE role_name::text
            END;
        END
        $$;
    $function$, current_user);
END
$owner$;

CREATE OR REPLACE FUNCTION prefs_current_account() RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN prefs_account_of(current_user);
END
$$;

-- A replacement keeps none of the settings the functions had: the path pinned again.
DO $pinned$
DECLARE
    fn regprocedure;
BEGIN
    FOREACH fn IN ARRAY ARRAY[
        'prefs_account_of(name)'::regprocedure,
        'prefs_current_account()'::regprocedure]
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
            fn, pg_catalog.current_schema());
    END LOOP;
END
$pinned$;
