-- Onboarding across accounts, for the server app (README, "On a server, and sync"): how
-- many accounts finished the walkthrough, skipped it on which page, stopped on which page,
-- or never started it, optionally by the week of their first change; and how the values
-- of one key are spread over the accounts (prefs stats).
--
-- Who sees it: a service role only, and only counts. The rows stay apart by row-level
-- security, still forced: the report is a function that runs as the owner, reads every
-- account's rows of three tables for its own duration only (below), and returns counts by
-- outcome and page, never an account's name. A count below the caller's threshold (at
-- least 1) comes back as NULL, so that a report cannot single anyone out. Account roles
-- cannot run it.

-- When each account first changed anything: the week of its sign-up in a report. Seconds
-- since 2001-01-01, as the store's other times. Accounts from before this file take their
-- earliest time still stored; the others the time of their first change from now on.
-- The owner reads every account's rows for this (forced row-level security applies to it
-- too); forced again after.
ALTER TABLE prefs_account_state NO FORCE ROW LEVEL SECURITY;
ALTER TABLE preference NO FORCE ROW LEVEL SECURITY;
ALTER TABLE preference_history NO FORCE ROW LEVEL SECURITY;
ALTER TABLE selection NO FORCE ROW LEVEL SECURITY;

ALTER TABLE prefs_account_state ADD COLUMN first_change_at double precision;
UPDATE prefs_account_state AS s SET first_change_at = m.first
    FROM (
        SELECT account, min(at) AS first FROM (
            SELECT account, updated_at AS at FROM preference
            UNION ALL SELECT account, changed_at FROM preference_history
            UNION ALL SELECT account, updated_at FROM selection
        ) AS times GROUP BY account
    ) AS m
    WHERE s.account = m.account;
ALTER TABLE prefs_account_state ALTER COLUMN first_change_at
    SET DEFAULT (extract(epoch FROM clock_timestamp()) - 978307200);

ALTER TABLE prefs_account_state FORCE ROW LEVEL SECURITY;
ALTER TABLE preference FORCE ROW LEVEL SECURITY;
ALTER TABLE preference_history FORCE ROW LEVEL SECURITY;
ALTER TABLE selection FORCE ROW LEVEL SECURITY;

-- What the report reads of each key: the rows of a suite and key, every account's.
CREATE INDEX preference_by_key ON preference (suite, key);
CREATE INDEX selection_by_name ON selection (name);

-- While a report's function runs, and only then, the owner reads every account's rows
-- of the four tables reports count: by a policy for the owner alone, true in a transaction
-- whose id the function wrote into prefs_reporting (which no client can write, read or
-- make a function write) and removed before it returned. The hub's functions, which also
-- run as the owner, still see one account's rows.
CREATE TABLE prefs_reporting (txid bigint PRIMARY KEY);
REVOKE ALL ON prefs_reporting FROM PUBLIC;

DO $reporting$
DECLARE
    name text;
BEGIN
    FOREACH name IN ARRAY ARRAY['prefs_account_state', 'preference', 'selection',
        'preference_declaration'] LOOP
        EXECUTE format('CREATE POLICY reporting_reads ON %I FOR SELECT TO %I USING (EXISTS'
            || ' (SELECT FROM prefs_reporting'
            || ' WHERE txid = pg_catalog.txid_current_if_assigned()))', name, current_user);
    END LOOP;
END
$reporting$;

-- One row per week (NULL when not by week), outcome and page: 'finished' (page NULL),
-- 'skipped' and 'stopped' (on that page, from 0), 'never started' (no walkthrough key and
-- no walkthrough selection). accounts is NULL when below p_threshold.
CREATE FUNCTION prefs_onboarding_report(
    p_suite text, p_since double precision, p_by_week boolean, p_threshold integer
) RETURNS TABLE (week text, outcome text, page integer, accounts bigint)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF p_threshold IS NULL OR p_threshold < 1 THEN
        RAISE EXCEPTION 'the threshold must be at least 1' USING ERRCODE = '22023';
    END IF;
    INSERT INTO prefs_reporting VALUES (pg_catalog.txid_current()) ON CONFLICT DO NOTHING;
    RETURN QUERY
    WITH account AS (
        SELECT s.account, s.first_change_at FROM prefs_account_state AS s
        WHERE p_since IS NULL OR s.first_change_at >= p_since
    ), walkthrough AS (
        SELECT p.account,
            bool_or(p.key = 'hasViewedWalkthrough' AND p.type = 'bool' AND p.value = 'true')
                AS viewed,
            bool_or(p.key = 'walkthroughEnding' AND p.type = 'string' AND p.value = 'skipped')
                AS skipped,
            max(CASE WHEN p.key = 'walkthroughEndedOnPage' AND p.type = 'int'
                    AND p.value ~ '^[0-9]{1,9}$' THEN p.value::integer END) AS ended_on
        FROM preference AS p
        WHERE p.suite = p_suite
            AND p.key IN ('hasViewedWalkthrough', 'walkthroughEnding', 'walkthroughEndedOnPage')
        GROUP BY p.account
    ), shown AS (
        SELECT s.account, s.selected_index FROM selection AS s WHERE s.name = 'walkthrough'
    ), counted AS (
        SELECT
            CASE WHEN p_by_week THEN to_char(
                to_timestamp(a.first_change_at + 978307200) AT TIME ZONE 'UTC', 'IYYY-"W"IW')
            END AS week,
            CASE
                WHEN w.viewed AND w.skipped THEN 'skipped'
                WHEN w.viewed THEN 'finished'
                WHEN w.account IS NULL AND v.account IS NULL THEN 'never started'
                ELSE 'stopped'
            END AS outcome,
            CASE
                WHEN w.viewed AND w.skipped THEN w.ended_on
                WHEN w.viewed THEN NULL
                WHEN w.account IS NULL AND v.account IS NULL THEN NULL
                ELSE coalesce(v.selected_index, 0)
            END AS page
        FROM account AS a
        LEFT JOIN walkthrough AS w ON w.account = a.account
        LEFT JOIN shown AS v ON v.account = a.account
    )
    SELECT c.week, c.outcome, c.page,
        CASE WHEN count(*) >= p_threshold THEN count(*) END
    FROM counted AS c
    GROUP BY c.week, c.outcome, c.page
    ORDER BY c.week NULLS FIRST, c.outcome, c.page NULLS FIRST;
    DELETE FROM prefs_reporting WHERE txid = pg_catalog.txid_current();
END
$$;

DO $definer$
BEGIN
    EXECUTE format('ALTER FUNCTION prefs_onboarding_report(text, double precision, boolean,'
        || ' integer) SECURITY DEFINER SET search_path = pg_catalog, %I, pg_temp',
        pg_catalog.current_schema());
END
$definer$;
REVOKE ALL ON FUNCTION prefs_onboarding_report(text, double precision, boolean, integer)
    FROM PUBLIC;
GRANT EXECUTE ON FUNCTION prefs_onboarding_report(text, double precision, boolean, integer)
    TO prefs_service;

-- How one key's values are spread over the accounts, one row per fact:
--   ('declared', type, accounts declaring it with that type): the type most accounts
--     declare, or when none does the type most stored (with 0 accounts);
--   ('value', value, accounts) for the p_top most common values of that type (text, as
--     stored), each held by at least p_threshold accounts (a rarer value is not shown:
--     it could name someone);
--   ('other', NULL, accounts) with a value of that type not shown above;
--   ('other type', NULL, accounts) with a value of another type;
--   ('default', NULL, accounts) with no value (the default applies);
--   for numbers, ('min' | 'p25' | 'median' | 'p75' | 'max', number, accounts with one),
--     only when at least p_threshold accounts have one.
-- Every count below p_threshold but 0 is NULL.
CREATE FUNCTION prefs_preference_statistics(
    p_suite text, p_key text, p_top integer, p_threshold integer
) RETURNS TABLE (kind text, value text, accounts bigint)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    declared text;
    declaring bigint;
BEGIN
    IF p_threshold IS NULL OR p_threshold < 1 OR p_top IS NULL OR p_top < 0 THEN
        RAISE EXCEPTION 'the threshold must be at least 1 and top at least 0'
            USING ERRCODE = '22023';
    END IF;
    INSERT INTO prefs_reporting VALUES (pg_catalog.txid_current()) ON CONFLICT DO NOTHING;
    SELECT d.type, count(*) INTO declared, declaring FROM preference_declaration AS d
        WHERE d.suite = p_suite AND d.key = p_key
        GROUP BY d.type ORDER BY count(*) DESC, d.type LIMIT 1;
    IF declared IS NULL THEN
        -- Undeclared: the most common type stored stands for it.
        SELECT p.type INTO declared FROM preference AS p
            WHERE p.suite = p_suite AND p.key = p_key
            GROUP BY p.type ORDER BY count(*) DESC, p.type LIMIT 1;
    END IF;
    RETURN QUERY
    WITH stored AS (
        SELECT p.account, p.type, p.value FROM preference AS p
        WHERE p.suite = p_suite AND p.key = p_key
    ), typed AS (
        SELECT s.value FROM stored AS s WHERE s.type = declared
    ), counted AS (
        SELECT t.value, count(*) AS accounts FROM typed AS t GROUP BY t.value
    ), shown AS (
        SELECT c.value, c.accounts FROM counted AS c
        WHERE c.accounts >= p_threshold AND declared NOT IN ('int', 'double', 'float')
        ORDER BY c.accounts DESC, c.value LIMIT p_top
    ), numbers AS (
        SELECT t.value::double precision AS number FROM typed AS t
        WHERE declared IN ('int', 'double', 'float')
            AND t.value ~ '^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$'
    ), facts AS (
        SELECT 'declared'::text AS kind, declared AS value, coalesce(declaring, 0) AS accounts
            WHERE declared IS NOT NULL
        UNION ALL SELECT 'value', s.value, s.accounts FROM shown AS s
        UNION ALL SELECT 'other', NULL,
            (SELECT count(*) FROM typed) - (SELECT coalesce(sum(s.accounts), 0)::bigint FROM shown AS s)
        UNION ALL SELECT 'other type', NULL,
            (SELECT count(*) FROM stored AS s WHERE s.type IS DISTINCT FROM declared)
        UNION ALL SELECT 'default', NULL,
            (SELECT count(*) FROM prefs_account_state AS a
                WHERE NOT EXISTS (SELECT FROM stored AS s WHERE s.account = a.account))
        UNION ALL SELECT q.kind, q.number::text, q.accounts FROM (
            SELECT unnest(ARRAY['min', 'p25', 'median', 'p75', 'max']) AS kind,
                unnest(ARRAY[min(n.number),
                    percentile_cont(0.25) WITHIN GROUP (ORDER BY n.number),
                    percentile_cont(0.5) WITHIN GROUP (ORDER BY n.number),
                    percentile_cont(0.75) WITHIN GROUP (ORDER BY n.number),
                    max(n.number)]) AS number,
                count(*) AS accounts
            FROM numbers AS n HAVING count(*) >= p_threshold
        ) AS q
    )
    SELECT f.kind, f.value,
        CASE WHEN f.accounts >= p_threshold OR f.accounts = 0 THEN f.accounts END
    FROM facts AS f;
    DELETE FROM prefs_reporting WHERE txid = pg_catalog.txid_current();
END
$$;

DO $definer$
BEGIN
    EXECUTE format('ALTER FUNCTION prefs_preference_statistics(text, text, integer, integer)'
        || ' SECURITY DEFINER SET search_path = pg_catalog, %I, pg_temp',
        pg_catalog.current_schema());
END
$definer$;
REVOKE ALL ON FUNCTION prefs_preference_statistics(text, text, integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION prefs_preference_statistics(text, text, integer, integer)
    TO prefs_service;
