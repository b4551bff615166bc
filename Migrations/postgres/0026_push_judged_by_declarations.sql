-- A push is judged against the account's declarations as a set is: a change to a key the hub
-- declares device-local, or one holding another type than the declared one, is refused
-- alone, with its reason, and the rest of the push is taken (issue: a push overwrote a
-- device-local key and stored a value of another type).
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
