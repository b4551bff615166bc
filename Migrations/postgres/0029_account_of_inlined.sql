-- The account a statement acts for is worked out inline, not by a call (issue: the hub's CPU
-- per synced change).
--
-- Row-level security asks prefs_current_account() once a statement of every table it reads
-- or writes, and the hub's functions ask prefs_account_of(session_user): some 15 calls a
-- device's round. Both were SQL functions with a pinned search_path, and a function with a
-- setting of its own is never inlined: each call saved and restored the setting and ran the
-- function apart, about 45 us of the hub's CPU each.
--
-- Without the setting PostgreSQL puts their bodies into the statement that calls them. A
-- body inlined is read with the caller's search_path, so nothing in it is found by that
-- path: every function, operator and type is named with its schema (pg_catalog, or the
-- store's own), and NULLIF and IN, which find their operator by the path, are spelled out.
-- A role that may create in a schema ahead of pg_catalog in its path (an operator "=" on
-- names, a pg_has_role of its own) changes nothing here
-- (PostgreSQLAttackTests.aWritableSearchPathCannotImpersonateAnotherAccount).
DO $owner$
BEGIN
    EXECUTE pg_catalog.format($function$
        CREATE OR REPLACE FUNCTION %2$I.prefs_account_of(role_name name) RETURNS text
        LANGUAGE sql STABLE AS $$
            SELECT CASE
                -- The group roles themselves (SET ROLE prefs_account) act for no account.
                WHEN role_name OPERATOR(pg_catalog.=) 'prefs_account'::pg_catalog.name
                    OR role_name OPERATOR(pg_catalog.=) 'prefs_service'::pg_catalog.name
                    THEN NULL
                WHEN (role_name OPERATOR(pg_catalog.=) %1$L::pg_catalog.name
                        AND pg_catalog.current_setting('prefs.account', true)
                            OPERATOR(pg_catalog.<>) ''::pg_catalog.text)
                    OR pg_catalog.pg_has_role(role_name, 'prefs_service'::pg_catalog.text,
                        'MEMBER'::pg_catalog.text)
                    THEN CASE WHEN pg_catalog.current_setting('prefs.account', true)
                            OPERATOR(pg_catalog.<>) ''::pg_catalog.text
                        THEN pg_catalog.current_setting('prefs.account', true) END
                ELSE role_name::pg_catalog.text
            END
        $$;
    $function$, current_user, pg_catalog.current_schema());
    EXECUTE pg_catalog.format($function$
        CREATE OR REPLACE FUNCTION %1$I.prefs_current_account() RETURNS text
        LANGUAGE sql STABLE AS $$
            SELECT %1$I.prefs_account_of(CURRENT_USER)
        $$;
    $function$, pg_catalog.current_schema());
    -- What the functions were created with (0014's pinned path) is not kept by a
    -- replacement; said again so that no setting is left on them.
    EXECUTE pg_catalog.format('ALTER FUNCTION %I.prefs_account_of(name) RESET ALL',
        pg_catalog.current_schema());
    EXECUTE pg_catalog.format('ALTER FUNCTION %I.prefs_current_account() RESET ALL',
        pg_catalog.current_schema());
END
$owner$;
