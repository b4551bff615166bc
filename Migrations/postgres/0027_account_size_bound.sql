-- An account's size has a bound (issue: a device could push without end, and an account
-- past 256 MB could never be pulled whole).
--
-- What an account holds: each synced field's ident, field, clock and payload (sync_change)
-- and each preference's value (preference), that is what a pull carries; its preference
-- history is held to the same number of bytes apart. The bookmark tables are rebuilt from
-- the synced fields and hold about as much again.
--
-- The bound: prefs_sync_config.account_bytes_limit (256 MiB), or an account's own
-- prefs_account_size.bytes_limit when set. A pushed change that would take the account
-- past it is refused alone, with its reason (the others are taken: a removal, a smaller
-- value, a change that loses); the history keeps its newest rows within the bound (and at
-- least one row), dropping the oldest.
--
-- Counted by pushes, not by writes: a set pays nothing for the bound. A push adds what it
-- carries to the account's estimate (prefs_account_size.held_bytes, an upper bound: what a
-- change replaces is not subtracted there); the account is counted again from its rows
-- once every 1 MiB pushed, and when the estimate would pass the bound (at most once a
-- minute: an account at its bound cannot make every push read it whole). Past the bound,
-- each change's growth is weighed against what it replaces. Between counts the server
-- app's own writes are not in the estimate; the bound is for what devices push.
--
-- The counts are the owner's: no account role can read or write them (a role that could
-- would set its own count to 0).
ALTER TABLE prefs_sync_config ADD COLUMN account_bytes_limit bigint NOT NULL
    DEFAULT 268435456 CHECK (account_bytes_limit > 0);
CREATE TABLE prefs_account_size (
    account text PRIMARY KEY,
    held_bytes bigint NOT NULL DEFAULT 0,
    pushed_since_count bigint NOT NULL DEFAULT 0,
    counted_at timestamptz,
    bytes_limit bigint CHECK (bytes_limit IS NULL OR bytes_limit > 0)
);
REVOKE ALL ON prefs_account_size FROM PUBLIC;

-- The bytes a synced field (or a preference's value alone) counts for.
CREATE FUNCTION prefs_held_size(ident text, field text, clock text, value text, bytes bytea)
    RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog'
    AS $$
    SELECT (coalesce(octet_length(ident), 0) + coalesce(octet_length(field), 0)
        + coalesce(octet_length(clock), 0) + coalesce(octet_length(value), 0)
        + coalesce(octet_length(bytes), 0))::bigint
$$;

-- The bytes a history row counts for.
CREATE FUNCTION prefs_history_size(suite text, key text, value text, bytes bytea,
    old_value text, old_bytes bytea) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog'
    AS $$
    SELECT (octet_length(suite) + octet_length(key) + coalesce(octet_length(value), 0)
        + coalesce(octet_length(bytes), 0) + coalesce(octet_length(old_value), 0)
        + coalesce(octet_length(old_bytes), 0))::bigint
$$;

-- The bound of an account.
CREATE FUNCTION prefs_account_bytes_limit(owner text) RETURNS bigint
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT coalesce((SELECT a.bytes_limit FROM prefs_account_size AS a
        WHERE a.account = owner), (SELECT c.account_bytes_limit FROM prefs_sync_config AS c))
$$;
REVOKE ALL ON FUNCTION prefs_account_bytes_limit(text) FROM PUBLIC;

-- Counts what an account holds from its rows, and drops its oldest history rows past the
-- bound (the newest kept). Lengths are read from the values' headers: nothing is
-- decompressed. Called by the push, as the owner acting for the account.
CREATE FUNCTION prefs_account_count(owner text, bytes_limit bigint) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    held bigint;
    excess bigint;
BEGIN
    SELECT coalesce((SELECT sum(prefs_held_size(s.ident, s.field, s.clock, s.value, s.bytes))
            FROM sync_change AS s WHERE s.account = owner), 0)
        + coalesce((SELECT sum(prefs_held_size(NULL, NULL, NULL, p.value, p.bytes))
            FROM preference AS p WHERE p.account = owner), 0)
        INTO held;
    SELECT sum(prefs_history_size(h.suite, h.key, h.value, h.bytes, h.old_value,
            h.old_bytes)) - bytes_limit
        INTO excess FROM preference_history AS h WHERE h.account = owner;
    IF excess > 0 THEN
        DELETE FROM preference_history AS h
        WHERE h.account = owner AND h.id <= (
                SELECT r.id FROM (
                    SELECT x.id, sum(prefs_history_size(x.suite, x.key, x.value, x.bytes,
                            x.old_value, x.old_bytes)) OVER (ORDER BY x.id) AS freed
                    FROM preference_history AS x WHERE x.account = owner) AS r
                WHERE r.freed >= excess ORDER BY r.id LIMIT 1)
            AND h.id < (SELECT max(y.id) FROM preference_history AS y
                WHERE y.account = owner);
    END IF;
    RETURN held;
END
$$;
REVOKE ALL ON FUNCTION prefs_account_count(text, bigint) FROM PUBLIC;

-- A push is held to the account's bound (above), after the rules, the declarations, the
-- clock bound and a restore's stale changes.
CREATE OR REPLACE FUNCTION prefs_sync_push(owner text, document jsonb, pulled_through bigint, pusher text) RETURNS TABLE(n bigint, entity text, ident text, field text, clock text, present boolean, type text, value text, bytes bytea, newer boolean, kind text, item text, taken bigint, problem text, refused boolean, clock_limit bigint, clock_bound bigint, stale boolean, pushed_clock text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    push_number bigint;
    pushed prefs_sync_pushed[] := prefs_sync_pushed_rows(document);
    skipped bigint[] := '{}';
    limit_ms bigint := prefs_sync_clock_limit();
    bound_ms bigint := (SELECT c.clock_bound_ms FROM prefs_sync_config AS c);
    known text;
    checked record;
    held bigint;
    pushed_since bigint;
    counted timestamptz;
    growth bigint;
    bytes_limit bigint;
BEGIN
    SELECT b.number INTO push_number FROM prefs_sync_begin(owner) AS b;
    -- Each change against the rules, the account's declarations and the clock bound,
    -- alone: a malformed one, one the hub's declaration refuses (a device-local key, a value
    -- of another type, as a set refuses it) or one stamped too far ahead is refused and
    -- reported; the rest go on.
    FOR checked IN
        SELECT r.n, r.problem FROM (
            SELECT d.n, d.clock, coalesce(
                prefs_sync_problem(d.entity, d.ident, d.field, d.clock, d.present, d.type,
                    d.value, d.bytes::bytea),
                CASE WHEN k.device_local THEN 'the hub declares this key device-local: it'
                        ' does not sync'
                    WHEN d.present AND k.type <> d.type THEN 'the hub declares this key '
                        || k.type || ', and the change holds ' || d.type END) AS problem
            FROM unnest(pushed) AS d
            -- The account's declarations (a few) by their idents, not one lookup a change.
            LEFT JOIN (
                SELECT upper(encode(convert_to(x.suite, 'UTF8'), 'hex')) || '.'
                        || upper(encode(convert_to(x.key, 'UTF8'), 'hex')) AS ident,
                    x.type, x.device_local
                FROM preference_declaration AS x WHERE x.account = owner) AS k
                ON d.entity = 'preference' AND k.ident = d.ident) AS r
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
    -- The account's bound (0027): an estimate, counted again from the rows every 1 MiB
    -- pushed and when it would pass the bound (at most once a minute). Past the bound, a
    -- change that would grow the account is refused alone, in the push's order; a
    -- removal, a smaller value or a change that loses is taken.
    SELECT a.held_bytes, a.pushed_since_count, a.counted_at INTO held, pushed_since, counted
    FROM prefs_account_size AS a WHERE a.account = owner;
    held := coalesce(held, 0);
    pushed_since := coalesce(pushed_since, 0);
    bytes_limit := prefs_account_bytes_limit(owner);
    SELECT coalesce(sum(prefs_held_size(d.ident, d.field, d.clock, d.value,
            d.bytes::bytea)), 0) INTO growth
    FROM unnest(pushed) AS d WHERE d.n <> ALL(skipped);
    IF pushed_since + growth > 1048576 OR (held + growth > bytes_limit
        AND (counted IS NULL OR counted < clock_timestamp() - interval '1 minute'))
    THEN
        held := prefs_account_count(owner, bytes_limit);
        pushed_since := 0;
        counted := clock_timestamp();
    END IF;
    IF held + growth <= bytes_limit THEN
        held := held + growth;
    ELSE
        FOR checked IN
            SELECT d.n, CASE WHEN s.clock COLLATE "C" >= d.clock COLLATE "C" THEN 0
                ELSE prefs_held_size(d.ident, d.field, d.clock, d.value, d.bytes::bytea)
                    - coalesce(prefs_held_size(s.ident, s.field, s.clock,
                        CASE WHEN s.entity = 'preference' THEN p.value ELSE s.value END,
                        CASE WHEN s.entity = 'preference' THEN p.bytes ELSE s.bytes END), 0)
                END AS growth
            FROM unnest(pushed) AS d
            LEFT JOIN LATERAL (
                SELECT * FROM sync_change AS x WHERE x.account = owner
                    AND x.entity = d.entity AND x.ident = d.ident AND x.field = d.field
                OFFSET 0) AS s ON true
            LEFT JOIN preference AS p ON s.entity = 'preference' AND s.present
                AND p.account = owner AND p.suite = s.suite AND p.key = s.key
            WHERE d.n <> ALL(skipped)
            ORDER BY d.n
        LOOP
            IF checked.growth <= 0 OR held + checked.growth <= bytes_limit THEN
                held := greatest(held + checked.growth, 0);
            ELSE
                skipped := skipped || checked.n;
                RETURN QUERY SELECT checked.n, NULL::text, NULL::text, NULL::text,
                    NULL::text, NULL::boolean, NULL::text, NULL::text, NULL::bytea,
                    NULL::boolean, NULL::text, NULL::text, NULL::bigint,
                    'the account would hold more than its bound of ' || bytes_limit
                        || ' bytes (it holds ' || held || ')', true, NULL::bigint,
                    NULL::bigint, NULL::boolean, NULL::text;
            END IF;
        END LOOP;
    END IF;
    INSERT INTO prefs_account_size AS a (account, held_bytes, pushed_since_count, counted_at)
    VALUES (owner, held, pushed_since + growth, counted)
    ON CONFLICT (account) DO UPDATE SET held_bytes = excluded.held_bytes,
        pushed_since_count = excluded.pushed_since_count, counted_at = excluded.counted_at;
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
