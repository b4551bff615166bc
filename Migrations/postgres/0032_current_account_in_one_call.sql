-- The account a statement acts for in one call, not two (issue: the hub's CPU per synced
-- change; a set's).
--
-- Row-level security asks prefs_current_account() once a statement of every table it
-- reads or writes: 11 times a set of a preference, some 14 times a device's round. It
-- called prefs_account_of(current_user), and each call of a function that pins its search
-- path costs PostgreSQL 15 about 3 us for the setting alone (100,000 calls: 0.83-0.96 s,
-- 0.47-0.56 s with the rule in the function itself, 0.20-0.23 s with no path pinned).
-- Both functions are made here from one text of the rule, so that it stays one rule; both
-- keep their pinned path.
DO $owner$
DECLARE
    rule constant text := $rule$
            RETURN CASE
                -- The group roles themselves (SET ROLE prefs_account) act for no account.
                WHEN %1$s IN ('prefs_account', 'prefs_service') THEN NULL
                WHEN (%1$s = %2$L
                        AND pg_catalog.current_setting('prefs.account', true) <> '')
                    OR pg_catalog.pg_has_role(%1$s, 'prefs_service', 'MEMBER')
                    THEN nullif(pg_catalog.current_setting('prefs.account', true), '')
                ELSE %1$s::text
            END;$rule$;
BEGIN
    EXECUTE pg_catalog.format($function$
        CREATE OR REPLACE FUNCTION prefs_account_of(role_name name) RETURNS text
        LANGUAGE plpgsql STABLE AS $$
        BEGIN%s
        END
        $$;
    $function$, pg_catalog.format(rule, 'role_name', current_user));
    EXECUTE pg_catalog.format($function$
        CREATE OR REPLACE FUNCTION prefs_current_account() RETURNS text
        LANGUAGE plpgsql STABLE AS $$
        BEGIN%s
        END
        $$;
    $function$, pg_catalog.format(rule, 'current_user', current_user));
END
$owner$;

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
