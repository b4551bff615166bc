-- The hub's schema as Migrations/postgres/*.sql leave it (pg_dump --schema-only),
-- written by CurrentHubSchemaTests; read it, never edit it: a migration changes it.

CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;

CREATE TYPE public.prefs_sync_pushed AS (
	n bigint,
	entity text,
	ident text,
	field text,
	clock text,
	device text,
	present boolean,
	type text,
	value text,
	bytes text
);

CREATE FUNCTION public.prefs_account_bytes_limit(owner text) RETURNS bigint
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    RETURN coalesce((SELECT a.bytes_limit FROM prefs_account_size AS a
        WHERE a.account = owner), (SELECT c.account_bytes_limit FROM prefs_sync_config AS c));
END
$$;

CREATE FUNCTION public.prefs_account_channel() RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    found_channel text;
BEGIN
    INSERT INTO prefs_account_state (account) VALUES (prefs_current_account())
        ON CONFLICT (account) DO NOTHING;
    SELECT channel INTO found_channel FROM prefs_account_state
        WHERE account = prefs_current_account();
    RETURN found_channel;
END
$$;

CREATE FUNCTION public.prefs_account_count(owner text, bytes_limit bigint) RETURNS bigint
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

CREATE FUNCTION public.prefs_account_of(role_name name) RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        BEGIN
            RETURN CASE
                -- The group roles themselves (SET ROLE prefs_account) act for no account.
                WHEN role_name IN ('prefs_account', 'prefs_service') THEN NULL
                WHEN (role_name = 'postgres'
                        AND pg_catalog.current_setting('prefs.account', true) <> '')
                    OR pg_catalog.pg_has_role(role_name, 'prefs_service', 'MEMBER')
                    THEN nullif(pg_catalog.current_setting('prefs.account', true), '')
                ELSE role_name::text
            END;
        END
        $$;

CREATE FUNCTION public.prefs_assign_id() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    assigned bigint;
BEGIN
    INSERT INTO prefs_account_state (account) VALUES (NEW.account)
        ON CONFLICT (account) DO NOTHING;
    IF TG_TABLE_NAME = 'bookmark' THEN
        UPDATE prefs_account_state
            SET last_bookmark_id = greatest(last_bookmark_id + 1, coalesce(NEW.id, 0))
            WHERE account = NEW.account RETURNING last_bookmark_id INTO assigned;
    ELSE
        UPDATE prefs_account_state
            SET last_folder_id = greatest(last_folder_id + 1, coalesce(NEW.id, 0))
            WHERE account = NEW.account RETURNING last_folder_id INTO assigned;
    END IF;
    NEW.id := coalesce(NEW.id, assigned);
    RETURN NEW;
END
$$;

CREATE FUNCTION public.prefs_bookmark_keep_replaced() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    next_revision integer;
BEGIN
    IF coalesce(current_setting('prefs.sync_applying', true), '') <> ''
            AND current_user = 'postgres' THEN
        RETURN NULL;
    END IF;
    SELECT coalesce(max(h.revision), 0) + 1 INTO next_revision FROM bookmark_history AS h
        WHERE h.account = OLD.account AND h.bookmark_id = OLD.id;
    INSERT INTO bookmark_history
        (account, bookmark_id, revision, title, url, category, folder_id, note, replaced_at)
    VALUES (OLD.account, OLD.id, next_revision, OLD.title, OLD.url, OLD.category,
        OLD.folder_id, OLD.note,
        -- Seconds since 2001-01-01 UTC, as every time of the store is kept.
        extract(epoch FROM clock_timestamp())::double precision - 978307200);
    DELETE FROM bookmark_history AS h WHERE h.account = OLD.account
        AND h.bookmark_id = OLD.id AND h.revision <= next_revision - 10;
    RETURN NULL;
END
$$;

CREATE FUNCTION public.prefs_current_account() RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        BEGIN
            RETURN CASE
                -- The group roles themselves (SET ROLE prefs_account) act for no account.
                WHEN current_user IN ('prefs_account', 'prefs_service') THEN NULL
                WHEN (current_user = 'postgres'
                        AND pg_catalog.current_setting('prefs.account', true) <> '')
                    OR pg_catalog.pg_has_role(current_user, 'prefs_service', 'MEMBER')
                    THEN nullif(pg_catalog.current_setting('prefs.account', true), '')
                ELSE current_user::text
            END;
        END
        $$;

CREATE FUNCTION public.prefs_held_size(ident text, field text, clock text, value text, bytes bytea) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog'
    AS $$
BEGIN
    RETURN (coalesce(octet_length(ident), 0) + coalesce(octet_length(field), 0)
        + coalesce(octet_length(clock), 0) + coalesce(octet_length(value), 0)
        + coalesce(octet_length(bytes), 0))::bigint;
END
$$;

CREATE FUNCTION public.prefs_history_size(suite text, key text, value text, bytes bytea, old_value text, old_bytes bytea) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog'
    AS $$
BEGIN
    RETURN (octet_length(suite) + octet_length(key) + coalesce(octet_length(value), 0)
        + coalesce(octet_length(bytes), 0) + coalesce(octet_length(old_value), 0)
        + coalesce(octet_length(old_bytes), 0))::bigint;
END
$$;

CREATE FUNCTION public.prefs_notify_declaration() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    owner text;
    account_channel text;
BEGIN
    IF TG_OP = 'DELETE' THEN owner := OLD.account; ELSE owner := NEW.account; END IF;
    INSERT INTO prefs_account_state (account) VALUES (owner) ON CONFLICT (account) DO NOTHING;
    SELECT channel INTO account_channel FROM prefs_account_state WHERE account = owner;
    PERFORM pg_notify(account_channel, prefs_notify_payload());
    RETURN NULL;
END
$$;

CREATE FUNCTION public.prefs_notify_payload() RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    RETURN coalesce(pg_catalog.current_setting('prefs.writer', true), '');
END
$$;

CREATE FUNCTION public.prefs_onboarding_report(p_suite text, p_since double precision, p_by_week boolean, p_threshold integer) RETURNS TABLE(week text, outcome text, page integer, accounts bigint)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
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
$_$;

CREATE FUNCTION public.prefs_preference_statistics(p_suite text, p_key text, p_top integer, p_threshold integer) RETURNS TABLE(kind text, value text, accounts bigint)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
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
$_$;

CREATE FUNCTION public.prefs_record_deleted() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF NOT (coalesce(current_setting('prefs.sync_applying', true), '') <> '' AND (current_user = 'postgres' OR prefs_sync_applying())) THEN
        RETURN NULL;
    END IF;
    PERFORM prefs_record_history(array_agg(account), array_agg(suite), array_agg(key),
        array_agg(NULL::text), array_agg(NULL::text), array_agg(NULL::bytea), array_agg(type),
        array_agg(value), array_agg(bytes),
        array_agg(extract(epoch FROM clock_timestamp()) - 978307200))
    FROM written_old HAVING count(*) > 0;
    RETURN NULL;
END
$$;

CREATE FUNCTION public.prefs_record_history(accounts text[], suites text[], keys text[], types text[], vals text[], bytes_ bytea[], old_types text[], old_vals text[], old_bytes_ bytea[], times double precision[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    owner text;
    written bigint;
    last bigint;
    kept integer;
    account_channel text;
BEGIN
    FOR owner, written IN
        SELECT a, count(*) FROM unnest(accounts) AS a GROUP BY a
    LOOP
        PERFORM pg_advisory_xact_lock(prefs_sync_lock_key(owner));
        INSERT INTO prefs_account_state (account) VALUES (owner)
            ON CONFLICT (account) DO NOTHING;
        SELECT history_limit, channel INTO kept, account_channel
            FROM prefs_account_state WHERE account = owner;
        -- Past the newest row, and past the counter that numbered them before this file.
        SELECT greatest(
            (SELECT h.id FROM preference_history AS h WHERE h.account = owner
                ORDER BY h.id DESC LIMIT 1),
            (SELECT a.last_change FROM prefs_account_state AS a WHERE a.account = owner), 0)
            INTO last;
        INSERT INTO preference_history (account, id, suite, key, type, value, bytes,
            old_type, old_value, old_bytes, changed_at)
        SELECT owner, last + row_number() OVER (ORDER BY h.suite, h.key), h.suite,
            h.key, h.type, h.value, h.bytes, h.old_type, h.old_value, h.old_bytes, h.changed_at
        FROM unnest(accounts, suites, keys, types, vals, bytes_, old_types, old_vals,
            old_bytes_, times)
            AS h (account, suite, key, type, value, bytes, old_type, old_value, old_bytes,
                changed_at)
        WHERE h.account = owner;
        last := last + written;
        -- Keeps the newest `kept` rows (at least one: other connections learn of changes
        -- from it).
        DELETE FROM preference_history WHERE account = owner
            AND id > last - written - greatest(kept, 1) AND id <= last - greatest(kept, 1);
        -- One notification per channel and transaction: PostgreSQL folds identical ones.
        PERFORM pg_notify(account_channel, prefs_notify_payload());
    END LOOP;
END
$$;

CREATE FUNCTION public.prefs_record_inserted() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF NOT (coalesce(current_setting('prefs.sync_applying', true), '') <> '' AND (current_user = 'postgres' OR prefs_sync_applying())) THEN
        RETURN NULL;
    END IF;
    PERFORM prefs_record_history(array_agg(account), array_agg(suite), array_agg(key),
        array_agg(type), array_agg(value), array_agg(bytes), array_agg(NULL::text),
        array_agg(NULL::text), array_agg(NULL::bytea), array_agg(updated_at))
    FROM written_new HAVING count(*) > 0;
    RETURN NULL;
END
$$;

CREATE FUNCTION public.prefs_record_row() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    owner text;
    kept integer;
    account_channel text;
    floor bigint;
    next_id bigint;
BEGIN
    IF (coalesce(current_setting('prefs.sync_applying', true), '') <> '' AND (current_user = 'postgres' OR prefs_sync_applying())) THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.type = OLD.type AND NEW.value IS NOT DISTINCT FROM OLD.value
        AND NEW.bytes IS NOT DISTINCT FROM OLD.bytes THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN owner := OLD.account; ELSE owner := NEW.account; END IF;
    PERFORM pg_advisory_xact_lock(prefs_sync_lock_key(owner));
    SELECT history_limit, channel, last_change INTO kept, account_channel, floor
        FROM prefs_account_state WHERE account = owner;
    IF NOT FOUND THEN
        INSERT INTO prefs_account_state (account) VALUES (owner)
            ON CONFLICT (account) DO NOTHING;
        SELECT history_limit, channel, last_change INTO kept, account_channel, floor
            FROM prefs_account_state WHERE account = owner;
    END IF;
    SELECT greatest(h.id, floor) INTO next_id FROM preference_history AS h
        WHERE h.account = owner ORDER BY h.id DESC LIMIT 1;
    next_id := coalesce(next_id, floor, 0) + 1;
    IF TG_OP = 'DELETE' THEN
        INSERT INTO preference_history
            (account, id, suite, key, old_type, old_value, old_bytes, changed_at)
        VALUES (owner, next_id, OLD.suite, OLD.key, OLD.type, OLD.value, OLD.bytes,
            extract(epoch FROM clock_timestamp()) - 978307200);
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO preference_history (account, id, suite, key, type, value, bytes,
            old_type, old_value, old_bytes, changed_at)
        VALUES (owner, next_id, NEW.suite, NEW.key, NEW.type, NEW.value, NEW.bytes,
            OLD.type, OLD.value, OLD.bytes, NEW.updated_at);
    ELSE
        INSERT INTO preference_history
            (account, id, suite, key, type, value, bytes, changed_at)
        VALUES (owner, next_id, NEW.suite, NEW.key, NEW.type, NEW.value, NEW.bytes,
            NEW.updated_at);
    END IF;
    DELETE FROM preference_history WHERE account = owner AND id = next_id - greatest(kept, 1);
    PERFORM pg_notify(account_channel, prefs_notify_payload());
    RETURN NULL;
END
$$;

CREATE FUNCTION public.prefs_record_updated() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    SET enable_nestloop TO 'off'
    AS $$
BEGIN
    IF NOT (coalesce(current_setting('prefs.sync_applying', true), '') <> '' AND (current_user = 'postgres' OR prefs_sync_applying())) THEN
        RETURN NULL;
    END IF;
    PERFORM prefs_record_history(array_agg(n.account), array_agg(n.suite), array_agg(n.key),
        array_agg(n.type), array_agg(n.value), array_agg(n.bytes), array_agg(o.type),
        array_agg(o.value), array_agg(o.bytes), array_agg(n.updated_at))
    FROM written_new AS n JOIN written_old AS o
        ON o.account = n.account AND o.suite = n.suite AND o.key = n.key
    WHERE NOT (n.type = o.type AND n.value IS NOT DISTINCT FROM o.value
        AND n.bytes IS NOT DISTINCT FROM o.bytes)
    HAVING count(*) > 0;
    RETURN NULL;
END
$$;

CREATE FUNCTION public.prefs_search_query(text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
    SELECT to_tsquery('simple', public.unaccent('public.unaccent'::regdictionary, $1))
$_$;

CREATE FUNCTION public.prefs_search_vector(text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
    SELECT to_tsvector('simple', public.unaccent('public.unaccent'::regdictionary, $1))
        || to_tsvector('simple', regexp_replace(
            public.unaccent('public.unaccent'::regdictionary, $1), '[[:punct:]]+', ' ', 'g'))
$_$;

CREATE FUNCTION public.prefs_set_value(owner text, set_suite text, set_key text, set_type text, set_value text, set_bytes bytea, set_at double precision, set_version integer, after_id bigint) RETURNS TABLE(id bigint, suite text, key text, type text, value text, bytes bytea, old_type text, old_value text, old_bytes bytea, changed_at double precision, declared text)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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

CREATE FUNCTION public.prefs_sync_acting(owner text) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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

CREATE FUNCTION public.prefs_sync_align() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    written bookmark;
BEGIN
    IF (coalesce(current_setting('prefs.sync_applying', true), '') <> '' AND (current_user = 'postgres' OR prefs_sync_applying())) THEN
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

CREATE FUNCTION public.prefs_sync_aligned(owner text, aligned_kind text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    DELETE FROM sync_misaligned AS m WHERE m.account = owner AND m.kind = aligned_kind;
    RETURN FOUND;
END
$$;

CREATE FUNCTION public.prefs_sync_applying() RETURNS boolean
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM prefs_sync_transaction AS t
        WHERE t.xid = pg_current_xact_id_if_assigned()
            AND t.applying = current_setting('prefs.sync_applying', true));
END
$$;

CREATE FUNCTION public.prefs_sync_begin(owner text, OUT number bigint, OUT rebuild boolean) RETURNS record
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    token text;
BEGIN
    SELECT t.number, t.applying INTO number, token FROM prefs_sync_transaction AS t
    WHERE t.xid = pg_current_xact_id() AND t.account = owner;
    IF token IS NULL THEN
        PERFORM prefs_sync_acting(owner);
        IF NOT coalesce((SELECT a.sync_on FROM prefs_account_state AS a
                WHERE a.account = owner), false) THEN
            PERFORM prefs_sync_start(owner);
        END IF;
        number := prefs_sync_take_number(owner);
        token := replace(gen_random_uuid()::text, '-', '');
        UPDATE prefs_sync_transaction SET applying = token
        WHERE xid = pg_current_xact_id() AND account = owner;
    ELSIF current_setting('prefs.account', true) IS DISTINCT FROM owner THEN
        PERFORM set_config('prefs.account', owner, true);
    END IF;
    PERFORM set_config('prefs.sync_applying', token, true);
    SELECT a.sync_rebuild INTO rebuild FROM prefs_account_state AS a WHERE a.account = owner;
    rebuild := coalesce(rebuild, false);
END
$$;

CREATE FUNCTION public.prefs_sync_clock_at(written double precision, now_ms bigint) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT lpad(greatest(0, least(now_ms,
        floor((coalesce(written, 0) + 978307200) * 1000)::bigint))::text, 15, '0') || '-000000-hub'
$$;

CREATE FUNCTION public.prefs_sync_clock_limit() RETURNS bigint
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    RETURN (extract(epoch FROM clock_timestamp()) * 1000)::bigint
        + (SELECT c.clock_bound_ms FROM prefs_sync_config AS c);
END
$$;

CREATE FUNCTION public.prefs_sync_device_forget(owner text, device_id text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    DELETE FROM sync_device WHERE account = owner AND device = device_id;
END
$$;

CREATE FUNCTION public.prefs_sync_device_name(owner text, device_id text, device_name text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    INSERT INTO sync_device (account, device, cursor, seen_at, name)
    VALUES (owner, device_id, 0, extract(epoch FROM now()) - 978307200, device_name)
    ON CONFLICT (account, device) DO UPDATE SET name = excluded.name;
END
$$;

CREATE FUNCTION public.prefs_sync_device_pushed(owner text, device_id text, clock text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    INSERT INTO sync_device (account, device, cursor, seen_at, pushed_clock)
    VALUES (owner, device_id, 0, extract(epoch FROM now()) - 978307200, clock)
    ON CONFLICT (account, device) DO UPDATE SET pushed_clock =
        greatest(sync_device.pushed_clock, excluded.pushed_clock);
END
$$;

CREATE FUNCTION public.prefs_sync_device_report(owner text, device_id text, reported bigint) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    INSERT INTO sync_device (account, device, cursor, seen_at)
    VALUES (owner, device_id, reported, extract(epoch FROM now()) - 978307200)
    ON CONFLICT (account, device) DO UPDATE SET
        cursor = greatest(sync_device.cursor, excluded.cursor), seen_at = excluded.seen_at;
END
$$;

CREATE FUNCTION public.prefs_sync_folder(owner text, folder bigint, category text) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
    SELECT CASE
        WHEN $2 IS NULL THEN coalesce(prefs_sync_name($3), '')
        ELSE coalesce((
            WITH RECURSIVE chain (id, parent_id, name, depth) AS (
                SELECT f.id, f.parent_id, f.name, 0 FROM bookmark_folder AS f
                WHERE f.account = $1 AND f.id = $2
                UNION ALL
                SELECT f.id, f.parent_id, f.name, c.depth + 1
                FROM bookmark_folder AS f JOIN chain AS c
                    ON f.account = $1 AND f.id = c.parent_id
                WHERE c.depth < 1000)
            SELECT string_agg(prefs_sync_name(name), '.' ORDER BY depth DESC) FROM chain), '')
    END
$_$;

CREATE FUNCTION public.prefs_sync_lock() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    owner text := prefs_current_account();
BEGIN
    IF owner IS NOT NULL AND prefs_sync_stamping(owner) THEN
        PERFORM prefs_sync_number(owner);
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION public.prefs_sync_lock_key(owner text) RETURNS bigint
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    RETURN pg_catalog.hashtextextended('prefs sync ' || coalesce(
        (SELECT a.channel FROM prefs_account_state AS a WHERE a.account = owner), owner), 0);
END
$$;

CREATE FUNCTION public.prefs_sync_mark_misaligned(owner text, misaligned_kind text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    INSERT INTO sync_misaligned (account, kind) VALUES (owner, misaligned_kind)
    ON CONFLICT (account, kind) DO NOTHING;
END
$$;

CREATE FUNCTION public.prefs_sync_name(text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
    SELECT upper(encode(convert_to($1, 'UTF8'), 'hex'))
$_$;

CREATE FUNCTION public.prefs_sync_next_clock(now_ms bigint, after text) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT CASE
        WHEN after IS NULL OR after !~ '^[0-9]{15}-[0-9]{6}-' OR now_ms > left(after, 15)::bigint
            THEN lpad(now_ms::text, 15, '0') || '-000000-hub'
        WHEN substr(after, 17, 6)::integer < 999999
            THEN left(after, 15) || '-' || lpad((substr(after, 17, 6)::integer + 1)::text, 6, '0')
                || '-hub'
        ELSE lpad((left(after, 15)::bigint + 1)::text, 15, '0') || '-000000-hub'
    END
$$;

CREATE FUNCTION public.prefs_sync_now_ms() RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    RETURN (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
END
$$;

CREATE FUNCTION public.prefs_sync_number(owner text) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    RETURN prefs_sync_take_number(owner);
END
$$;

CREATE FUNCTION public.prefs_sync_numbered() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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

CREATE FUNCTION public.prefs_sync_problem(entity text, ident text, field text, clock text, present boolean, type text, value text, bytes bytea) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog'
    AS $_$
DECLARE
    -- Well-formed UTF-8 with no NUL, in whole bytes, as hex.
    utf8 constant text := '^(?:0[1-9A-F]|[1-7][0-9A-F]|(?:C[2-9A-F]|D[0-9A-F])[89AB][0-9A-F]'
        '|E0[AB][0-9A-F][89AB][0-9A-F]|E[1-9A-CEF][89AB][0-9A-F][89AB][0-9A-F]'
        '|ED[89][0-9A-F][89AB][0-9A-F]|F0[9AB][0-9A-F][89AB][0-9A-F][89AB][0-9A-F]'
        '|F[1-3][89AB][0-9A-F][89AB][0-9A-F][89AB][0-9A-F]'
        '|F4[89][0-9A-F][89AB][0-9A-F][89AB][0-9A-F])*$';
    -- Unicode's White_Space, as Swift's isWhitespace.
    blank constant text := E'^[\\u0009-\\u000D\\u0020\\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]*$';
    -- Control characters but a tab.
    control constant text := E'[\\u0001-\\u0008\\u000A-\\u001F]';
    names text[] := '{}';
    part text;
    name text;
    nouns text[];
    number numeric;
BEGIN
    IF clock IS NULL OR clock !~ '^[0-9]{15}-[0-9]{6}-[0-9a-z]{1,64}$' THEN
        RETURN 'the clock is not a hybrid clock reading';
    END IF;
    IF octet_length(ident) > 3 * 2048 + 2 THEN
        RETURN 'the ident is not hex-encoded names';
    END IF;
    FOREACH part IN ARRAY string_to_array(ident, '.') LOOP
        -- ASCII names (most) take the short pattern.
        IF part !~ '^(?:0[1-9A-F]|[1-7][0-9A-F])*$' AND part !~ utf8 THEN
            RETURN 'the ident is not hex-encoded names';
        END IF;
        names := names || convert_from(decode(part, 'hex'), 'UTF8');
    END LOOP;
    IF coalesce(octet_length(value), 0) > 4194304 OR coalesce(length(bytes), 0) > 4194304 THEN
        RETURN 'the value is too large';
    END IF;
    IF entity = 'preference' THEN
        IF cardinality(names) <> 2 THEN
            RETURN 'a preference''s ident names a suite and a key';
        END IF;
        IF field <> 'value' THEN
            RETURN 'a preference has no field ''' || field || '''';
        END IF;
        -- The rulebook: 1 to 1,024 bytes, no NUL (the hex has none) or newline.
        FOR i IN 1 .. 2 LOOP
            name := names[i];
            IF octet_length(name) = 0 OR octet_length(name) > 1024 OR strpos(name, E'\n') > 0
            THEN
                RETURN 'the ' || (ARRAY['suite name', 'key'])[i]
                    || ' breaks the rulebook (1 to 1024 bytes, no NUL or newline)';
            END IF;
        END LOOP;
        IF NOT present THEN
            RETURN CASE WHEN type IS NULL AND value IS NULL AND bytes IS NULL THEN NULL
                ELSE 'a removal carries no value' END;
        END IF;
        IF type IN ('data', 'array', 'dictionary') THEN
            RETURN CASE WHEN bytes IS NOT NULL AND value IS NULL THEN NULL
                ELSE 'a ' || type || ' value is bytes' END;
        END IF;
        IF value IS NULL OR bytes IS NOT NULL THEN
            RETURN 'a preference''s change carries a value';
        END IF;
        CASE type
        WHEN 'bool' THEN
            RETURN CASE WHEN value IN ('true', 'false') THEN NULL ELSE 'not a bool' END;
        WHEN 'int' THEN
            IF value !~ '^-?[0-9]{1,19}$' THEN
                RETURN 'not an int';
            END IF;
            number := value::numeric;
            RETURN CASE WHEN number BETWEEN -9223372036854775808 AND 9223372036854775807
                THEN NULL ELSE 'not an int' END;
        WHEN 'double', 'float', 'date' THEN
            RETURN CASE
                WHEN value ~ '^(?:-?[0-9]+(?:\.[0-9]+)?(?:e[-+][0-9]+)?|-?inf|-?nan)$' THEN NULL
                ELSE 'not a ' || type END;
        WHEN 'string', 'url' THEN
            RETURN NULL;
        WHEN 'json' THEN
            BEGIN
                PERFORM value::jsonb;
                RETURN NULL;
            EXCEPTION WHEN OTHERS THEN
                RETURN 'not valid JSON';
            END;
        ELSE
            RETURN 'no such type';
        END CASE;
    END IF;
    IF entity = 'bookmark' THEN
        nouns := ARRAY['kind', 'item ID'];
        IF cardinality(names) <> 2 THEN
            RETURN 'a bookmark''s ident names a kind and an item ID';
        END IF;
    ELSIF entity = 'tag' THEN
        nouns := ARRAY['kind', 'item ID', 'tag'];
        IF cardinality(names) <> 3 THEN
            RETURN 'a tag''s ident names a kind, an item ID and a tag';
        END IF;
    ELSE
        RETURN 'no such entity';
    END IF;
    -- A bookmark's kind, item ID and tag (and below, folder names): not blank, no control
    -- character but a tab.
    FOR i IN 1 .. cardinality(names) LOOP
        IF names[i] ~ blank THEN
            RETURN 'a bookmark''s ' || nouns[i] || ' cannot be empty';
        END IF;
        IF names[i] ~ control THEN
            RETURN 'a bookmark''s ' || nouns[i] || ' cannot contain control characters';
        END IF;
    END LOOP;
    IF entity = 'tag' THEN
        IF field <> 'present' THEN
            RETURN 'a tag has no field ''' || field || '''';
        END IF;
        RETURN CASE WHEN type IS NULL AND value IS NULL AND bytes IS NULL THEN NULL
            ELSE 'a tag''s change carries no value' END;
    END IF;
    IF field NOT IN ('exists', 'removed', 'title', 'url', 'category', 'note', 'position', 'folder') THEN
        RETURN 'a bookmark has no field ''' || field || '''';
    END IF;
    IF field = 'removed' AND NOT present THEN
        RETURN 'a bookmark''s removal is present';
    END IF;
    IF field IN ('exists', 'removed') OR NOT present THEN
        RETURN CASE WHEN type IS NULL AND value IS NULL AND bytes IS NULL THEN NULL
            ELSE 'the bookmark field ''' || field || ''' carries no value' END;
    END IF;
    IF bytes IS NOT NULL THEN
        RETURN 'a bookmark''s ' || field || ' is text';
    END IF;
    IF field = 'position' THEN
        IF type IS DISTINCT FROM 'int' OR value !~ '^[0-9]{1,10}$' THEN
            RETURN 'a bookmark''s position is an integer';
        END IF;
        RETURN CASE WHEN value::bigint <= 2147483647 THEN NULL
            ELSE 'the position is out of range' END;
    END IF;
    -- A folder is read when pushed: no value for a bookmark gone meanwhile.
    IF value IS NULL THEN
        RETURN NULL;
    END IF;
    IF type IS DISTINCT FROM 'string' THEN
        RETURN 'a bookmark''s ' || field || ' is text';
    END IF;
    IF field = 'folder' THEN
        IF value = '' THEN
            RETURN NULL;
        END IF;
        FOREACH part IN ARRAY string_to_array(value, '.') LOOP
            IF part !~ '^(?:0[1-9A-F]|[1-7][0-9A-F])*$' AND part !~ utf8 THEN
                RETURN 'a bookmark''s folder is hex-encoded names';
            END IF;
            name := convert_from(decode(part, 'hex'), 'UTF8');
            IF name ~ blank THEN
                RETURN 'a bookmark''s folder name cannot be empty';
            END IF;
            IF name ~ control THEN
                RETURN 'a bookmark''s folder name cannot contain control characters';
            END IF;
        END LOOP;
        RETURN NULL;
    END IF;
    IF field IN ('title', 'category') AND value ~ control THEN
        RETURN 'a bookmark''s ' || field || ' cannot contain control characters';
    END IF;
    RETURN NULL;
END
$_$;

CREATE FUNCTION public.prefs_sync_push(owner text, document jsonb, pulled_through bigint, pusher text) RETURNS TABLE(n bigint, entity text, ident text, field text, clock text, present boolean, type text, value text, bytes bytea, newer boolean, kind text, item text, taken bigint, problem text, refused boolean, clock_limit bigint, clock_bound bigint, stale boolean, pushed_clock text)
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

CREATE FUNCTION public.prefs_sync_push_store(owner text, document jsonb, skipped bigint[]) RETURNS TABLE(kind text, item text, taken bigint)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    push_number bigint;
BEGIN
    SELECT b.number INTO push_number FROM prefs_sync_begin(owner) AS b;
    RETURN QUERY SELECT * FROM prefs_sync_store_pushed(owner,
        prefs_sync_pushed_rows(document), skipped, push_number);
END
$$;

CREATE FUNCTION public.prefs_sync_pushed_rows(document jsonb) RETURNS public.prefs_sync_pushed[]
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    RETURN (SELECT coalesce(array_agg(ROW(d.n, d.entity, d.ident, d.field, d.clock, d.device,
            d.present, d.type, d.value, d.bytes)::prefs_sync_pushed), '{}')
        FROM jsonb_to_recordset(document) AS d(n bigint, entity text, ident text, field text,
            clock text, device text, present boolean, type text, value text, bytes text));
END
$$;

CREATE FUNCTION public.prefs_sync_rebuilt(owner text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    UPDATE prefs_account_state SET sync_rebuild = false WHERE account = owner;
END
$$;

CREATE FUNCTION public.prefs_sync_removed_early() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    bookmark_ident text;
BEGIN
    IF (coalesce(current_setting('prefs.sync_applying', true), '') <> '' AND (current_user = 'postgres' OR prefs_sync_applying()))
        OR OLD.account IS NULL OR coalesce((SELECT a.sync_on FROM prefs_account_state AS a
            WHERE a.account = OLD.account), false) THEN
        RETURN OLD;
    END IF;
    IF TG_TABLE_NAME = 'preference' THEN
        IF NOT EXISTS (SELECT 1 FROM preference_declaration AS d WHERE d.account = OLD.account
            AND d.suite = OLD.suite AND d.key = OLD.key AND d.device_local) THEN
            PERFORM prefs_sync_stamp(OLD.account, 'preference',
                prefs_sync_name(OLD.suite) || '.' || prefs_sync_name(OLD.key), 'value', false,
                NULL, NULL, OLD.suite, OLD.key);
        END IF;
    ELSE
        bookmark_ident := prefs_sync_name(OLD.kind) || '.' || prefs_sync_name(OLD.item_id);
        PERFORM prefs_sync_stamp(OLD.account, 'bookmark', bookmark_ident, 'exists', false,
            NULL, NULL);
        PERFORM prefs_sync_stamp(OLD.account, 'bookmark', bookmark_ident, 'removed', true,
            NULL, NULL);
        PERFORM prefs_sync_stamp(OLD.account, 'tag',
            bookmark_ident || '.' || prefs_sync_name(t.tag), 'present', false, NULL, NULL)
        FROM bookmark_tag AS t WHERE t.account = OLD.account AND t.bookmark_id = OLD.id;
    END IF;
    RETURN OLD;
END
$$;

CREATE FUNCTION public.prefs_sync_restated_bookmark(owner text, restated_entity text, restated_ident text, restated_field text, restated_type text, restated_value text) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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

CREATE FUNCTION public.prefs_sync_restated_preference(owner text, restated_suite text, restated_key text, restated_present boolean) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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

CREATE FUNCTION public.prefs_sync_restating(owner text) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT owner IS NOT NULL AND (prefs_sync_stamping(owner) OR NOT coalesce(
        (SELECT a.sync_on FROM prefs_account_state AS a WHERE a.account = owner), false))
$$;

CREATE FUNCTION public.prefs_sync_stamp(owner text, stamp_entity text, stamp_ident text, stamp_field text, stamp_present boolean, stamp_type text, stamp_value text, stamp_suite text DEFAULT NULL::text, stamp_key text DEFAULT NULL::text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    number bigint;
    newest text;
    account_channel text;
BEGIN
    PERFORM prefs_sync_acting(owner);
    -- The rebuild after a push (the token on, outside the hub's functions) writes
    -- what the merged fields say: that is no change. Anything else is one.
    IF prefs_sync_applying() AND (stamp_field = 'position' OR EXISTS (
        SELECT 1 FROM sync_change AS s WHERE s.account = owner
            AND s.entity = stamp_entity AND s.ident = stamp_ident
            AND s.field = stamp_field AND s.present = stamp_present
            AND s.type IS NOT DISTINCT FROM stamp_type
            AND s.value IS NOT DISTINCT FROM stamp_value)) THEN
        RETURN;
    END IF;
    number := prefs_sync_take_number(owner);
    SELECT greatest(
        (SELECT s.clock FROM sync_change AS s WHERE s.account = owner
            AND s.entity = stamp_entity AND s.ident = stamp_ident AND s.field = stamp_field),
        CASE WHEN stamp_entity = 'tag' THEN (SELECT s.clock FROM sync_change AS s
            WHERE s.account = owner AND s.entity = 'bookmark'
                AND s.ident = split_part(stamp_ident, '.', 1) || '.'
                    || split_part(stamp_ident, '.', 2)
                AND s.field = 'removed') END), a.channel
    INTO newest, account_channel
    FROM prefs_account_state AS a WHERE a.account = owner;
    INSERT INTO sync_change AS s (account, entity, ident, field, clock, device, present, type,
        value, bytes, sequence, suite, key)
    VALUES (owner, stamp_entity, stamp_ident, stamp_field,
        prefs_sync_next_clock(prefs_sync_now_ms(), newest), 'hub', stamp_present, stamp_type,
        stamp_value, NULL, number, stamp_suite, stamp_key)
    ON CONFLICT ON CONSTRAINT sync_change_pkey DO UPDATE SET
        clock = excluded.clock, device = excluded.device, present = excluded.present,
        type = excluded.type, value = excluded.value, bytes = NULL,
        sequence = excluded.sequence, suite = excluded.suite, key = excluded.key;
    PERFORM pg_notify(account_channel, prefs_notify_payload());
END
$$;

CREATE FUNCTION public.prefs_sync_stamp_bookmark() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    row_account text;
    bookmark_ident text;
BEGIN
    IF (coalesce(current_setting('prefs.sync_applying', true), '') <> '' AND current_user = 'postgres') THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN row_account := OLD.account; ELSE row_account := NEW.account; END IF;
    IF NOT prefs_sync_stamping(row_account) THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        bookmark_ident := prefs_sync_name(OLD.kind) || '.' || prefs_sync_name(OLD.item_id);
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'exists', false, NULL, NULL);
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'removed', true,
            NULL, NULL);
        RETURN NULL;
    END IF;
    bookmark_ident := prefs_sync_name(NEW.kind) || '.' || prefs_sync_name(NEW.item_id);
    IF TG_OP = 'INSERT' THEN
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'exists', true, NULL, NULL);
    END IF;
    IF TG_OP = 'INSERT' OR OLD.title IS DISTINCT FROM NEW.title THEN
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'title', true, 'string',
            NEW.title);
    END IF;
    IF TG_OP = 'INSERT' OR OLD.url IS DISTINCT FROM NEW.url THEN
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'url', true,
            CASE WHEN NEW.url IS NOT NULL THEN 'string' END, NEW.url);
    END IF;
    IF TG_OP = 'INSERT' OR OLD.category IS DISTINCT FROM NEW.category THEN
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'category', true,
            CASE WHEN NEW.category IS NOT NULL THEN 'string' END, NEW.category);
    END IF;
    IF TG_OP = 'INSERT' OR OLD.note IS DISTINCT FROM NEW.note THEN
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'note', true,
            CASE WHEN NEW.note IS NOT NULL THEN 'string' END, NEW.note);
    END IF;
    IF TG_OP = 'INSERT' OR OLD.position IS DISTINCT FROM NEW.position THEN
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'position', true, 'int',
            NEW.position::text);
    END IF;
    IF TG_OP = 'INSERT' OR OLD.folder_id IS DISTINCT FROM NEW.folder_id
        OR (NEW.folder_id IS NULL AND OLD.category IS DISTINCT FROM NEW.category) THEN
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'folder', true, 'string',
            prefs_sync_folder(row_account, NEW.folder_id, NEW.category));
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION public.prefs_sync_stamp_bookmark_tags() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF NOT (coalesce(current_setting('prefs.sync_applying', true), '') <> '' AND current_user = 'postgres')
        AND prefs_sync_stamping(OLD.account) THEN
        PERFORM prefs_sync_stamp(OLD.account, 'tag',
            prefs_sync_name(OLD.kind) || '.' || prefs_sync_name(OLD.item_id) || '.'
                || prefs_sync_name(t.tag), 'present', false, NULL, NULL)
        FROM bookmark_tag AS t WHERE t.account = OLD.account AND t.bookmark_id = OLD.id;
    END IF;
    RETURN OLD;
END
$$;

CREATE FUNCTION public.prefs_sync_stamp_preference() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    written preference;
BEGIN
    -- First and inline: a push applies thousands of rows with it on.
    IF (coalesce(current_setting('prefs.sync_applying', true), '') <> '' AND current_user = 'postgres') THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN written := OLD; ELSE written := NEW; END IF;
    IF NOT prefs_sync_stamping(written.account) OR EXISTS (
        SELECT 1 FROM preference_declaration AS d WHERE d.account = written.account
            AND d.suite = written.suite AND d.key = written.key AND d.device_local) THEN
        RETURN NULL;
    END IF;
    PERFORM prefs_sync_stamp(written.account, 'preference',
        prefs_sync_name(written.suite) || '.' || prefs_sync_name(written.key), 'value',
        TG_OP <> 'DELETE', NULL, NULL, written.suite, written.key);
    RETURN NULL;
END
$$;

CREATE FUNCTION public.prefs_sync_stamp_tag() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    tag_row bookmark_tag;
BEGIN
    IF (coalesce(current_setting('prefs.sync_applying', true), '') <> '' AND current_user = 'postgres') THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN tag_row := OLD; ELSE tag_row := NEW; END IF;
    IF NOT prefs_sync_stamping(tag_row.account) THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' AND EXISTS (
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
    PERFORM prefs_sync_stamp(tag_row.account, 'tag',
        prefs_sync_name(b.kind) || '.' || prefs_sync_name(b.item_id) || '.'
            || prefs_sync_name(tag_row.tag), 'present', TG_OP = 'INSERT', NULL, NULL)
    FROM bookmark AS b WHERE b.account = tag_row.account AND b.id = tag_row.bookmark_id;
    RETURN NULL;
END
$$;

CREATE FUNCTION public.prefs_sync_stamping(owner text) RETURNS boolean
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        BEGIN
            RETURN NOT (coalesce(current_setting('prefs.sync_applying', true), '') <> ''
                    AND current_user = 'postgres')
                AND coalesce((SELECT s.sync_on FROM prefs_account_state AS s
                    WHERE s.account = owner), false);
        END
        $$;

CREATE FUNCTION public.prefs_sync_start(owner text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    number bigint;
    now_ms bigint := prefs_sync_now_ms();
    started boolean;
BEGIN
    PERFORM prefs_sync_acting(owner);
    number := prefs_sync_take_number(owner);
    INSERT INTO prefs_account_state (account) VALUES (owner) ON CONFLICT (account) DO NOTHING;
    UPDATE prefs_account_state SET sync_on = true WHERE account = owner AND NOT sync_on
        RETURNING true INTO started;
    IF started IS NULL THEN
        RETURN false;
    END IF;
    INSERT INTO sync_change AS s (account, entity, ident, field, clock, device, present,
        sequence, suite, key)
    SELECT owner, 'preference', prefs_sync_name(p.suite) || '.' || prefs_sync_name(p.key),
        'value', prefs_sync_clock_at(p.updated_at, now_ms), 'hub', true, number, p.suite, p.key
    FROM preference AS p WHERE p.account = owner AND NOT EXISTS (
        SELECT 1 FROM preference_declaration AS d WHERE d.account = owner
            AND d.suite = p.suite AND d.key = p.key AND d.device_local)
    ON CONFLICT ON CONSTRAINT sync_change_pkey DO UPDATE SET
        clock = excluded.clock, device = excluded.device, present = true,
        sequence = excluded.sequence
    WHERE NOT s.present AND s.clock < excluded.clock;
    INSERT INTO sync_change AS s (account, entity, ident, field, clock, device, present, type,
        value, sequence)
    SELECT owner, 'bookmark', prefs_sync_name(b.kind) || '.' || prefs_sync_name(b.item_id),
        f.field, prefs_sync_clock_at(b.updated_at, now_ms), 'hub', true, f.type, f.value,
        number
    FROM bookmark AS b CROSS JOIN LATERAL (VALUES
        ('exists', NULL, NULL),
        ('title', 'string', b.title),
        ('url', CASE WHEN b.url IS NOT NULL THEN 'string' END, b.url),
        ('category', CASE WHEN b.category IS NOT NULL THEN 'string' END, b.category),
        ('note', CASE WHEN b.note IS NOT NULL THEN 'string' END, b.note),
        ('position', 'int', b.position::text),
        ('folder', 'string', prefs_sync_folder(owner, b.folder_id, b.category))
    ) AS f (field, type, value)
    WHERE b.account = owner
    ON CONFLICT ON CONSTRAINT sync_change_pkey DO UPDATE SET
        clock = excluded.clock, device = excluded.device, present = true,
        type = excluded.type, value = excluded.value, sequence = excluded.sequence
    WHERE NOT s.present AND s.clock < excluded.clock;
    INSERT INTO sync_change AS s (account, entity, ident, field, clock, device, present,
        sequence)
    SELECT owner, 'tag', prefs_sync_name(b.kind) || '.' || prefs_sync_name(b.item_id) || '.'
        || prefs_sync_name(t.tag), 'present', prefs_sync_clock_at(b.updated_at, now_ms), 'hub',
        true, number
    FROM bookmark_tag AS t JOIN bookmark AS b ON b.account = t.account AND b.id = t.bookmark_id
    WHERE t.account = owner
    ON CONFLICT ON CONSTRAINT sync_change_pkey DO UPDATE SET
        clock = excluded.clock, device = excluded.device, present = true,
        sequence = excluded.sequence
    WHERE NOT s.present AND s.clock < excluded.clock;
    RETURN true;
END
$$;

CREATE FUNCTION public.prefs_sync_store_pushed(owner text, pushed public.prefs_sync_pushed[], skipped bigint[], push_number bigint) RETURNS TABLE(kind text, item text, taken bigint)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    RETURN QUERY
    WITH c AS (
        SELECT DISTINCT ON (d.entity, d.ident, d.field) d.*
        FROM unnest(pushed) AS d
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
    FROM unnest(pushed) AS d
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

CREATE FUNCTION public.prefs_sync_take_number(owner text) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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
    IF taken % 32 = 0 THEN
        DELETE FROM prefs_sync_transaction WHERE (xid, account) IN (
            SELECT t.xid, t.account FROM prefs_sync_transaction AS t
            WHERE t.xid < pg_snapshot_xmin(pg_current_snapshot())
            FOR UPDATE SKIP LOCKED);
    END IF;
    INSERT INTO prefs_sync_transaction (xid, account, number)
    VALUES (pg_current_xact_id(), owner, taken);
    RETURN taken;
END
$$;

CREATE FUNCTION public.prefs_sync_untagged_early() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF (coalesce(current_setting('prefs.sync_applying', true), '') <> '' AND (current_user = 'postgres' OR prefs_sync_applying()))
        OR OLD.account IS NULL OR coalesce((SELECT a.sync_on FROM prefs_account_state AS a
            WHERE a.account = OLD.account), false) THEN
        RETURN NULL;
    END IF;
    -- A tag removed with its bookmark has its tombstone already (its bookmark is gone).
    PERFORM prefs_sync_stamp(OLD.account, 'tag',
        prefs_sync_name(b.kind) || '.' || prefs_sync_name(b.item_id) || '.'
            || prefs_sync_name(OLD.tag), 'present', false, NULL, NULL)
    FROM bookmark AS b WHERE b.account = OLD.account AND b.id = OLD.bookmark_id;
    RETURN NULL;
END
$$;

CREATE TABLE public.bookmark (
    account text DEFAULT public.prefs_current_account() NOT NULL,
    id bigint NOT NULL,
    kind text NOT NULL,
    item_id text NOT NULL,
    title text NOT NULL,
    url text,
    category text,
    note text,
    "position" integer NOT NULL,
    created_at double precision NOT NULL,
    updated_at double precision NOT NULL,
    folder_id bigint,
    search_text text DEFAULT ''::text NOT NULL,
    CONSTRAINT bookmark_item_id_check CHECK ((item_id <> ''::text)),
    CONSTRAINT bookmark_kind_check CHECK ((kind <> ''::text)),
    CONSTRAINT bookmark_position_check CHECK (("position" >= 0))
);

ALTER TABLE ONLY public.bookmark FORCE ROW LEVEL SECURITY;

CREATE TABLE public.bookmark_folder (
    account text DEFAULT public.prefs_current_account() NOT NULL,
    id bigint NOT NULL,
    parent_id bigint,
    name text NOT NULL,
    description text,
    "position" integer NOT NULL,
    created_at double precision,
    updated_at double precision
);

ALTER TABLE ONLY public.bookmark_folder FORCE ROW LEVEL SECURITY;

CREATE TABLE public.bookmark_history (
    account text DEFAULT public.prefs_current_account() NOT NULL,
    bookmark_id bigint NOT NULL,
    revision integer NOT NULL,
    title text NOT NULL,
    url text,
    category text,
    folder_id bigint,
    note text,
    replaced_at double precision NOT NULL,
    CONSTRAINT bookmark_history_revision_check CHECK ((revision > 0))
);

ALTER TABLE ONLY public.bookmark_history FORCE ROW LEVEL SECURITY;

CREATE TABLE public.bookmark_tag (
    account text DEFAULT public.prefs_current_account() NOT NULL,
    bookmark_id bigint NOT NULL,
    tag text NOT NULL
);

ALTER TABLE ONLY public.bookmark_tag FORCE ROW LEVEL SECURITY;

CREATE TABLE public.preference (
    account text DEFAULT public.prefs_current_account() NOT NULL,
    suite text NOT NULL,
    key text NOT NULL,
    type text NOT NULL,
    value text,
    bytes bytea,
    updated_at double precision NOT NULL,
    value_version integer,
    CONSTRAINT preference_check CHECK (((bytes IS NULL) = (type <> ALL (ARRAY['data'::text, 'array'::text, 'dictionary'::text])))),
    CONSTRAINT preference_check1 CHECK (((value IS NULL) = (type = ANY (ARRAY['data'::text, 'array'::text, 'dictionary'::text])))),
    CONSTRAINT preference_type_check CHECK ((type = ANY (ARRAY['bool'::text, 'int'::text, 'double'::text, 'float'::text, 'string'::text, 'url'::text, 'date'::text, 'data'::text, 'array'::text, 'dictionary'::text, 'json'::text]))),
    CONSTRAINT preference_value_version_check CHECK ((value_version >= 0))
);

ALTER TABLE ONLY public.preference FORCE ROW LEVEL SECURITY;

CREATE TABLE public.preference_declaration (
    account text DEFAULT public.prefs_current_account() NOT NULL,
    suite text NOT NULL,
    key text NOT NULL,
    type text NOT NULL,
    default_value text,
    default_bytes bytea,
    description text,
    device_local boolean DEFAULT false NOT NULL,
    CONSTRAINT preference_declaration_type_check CHECK ((type = ANY (ARRAY['bool'::text, 'int'::text, 'double'::text, 'float'::text, 'string'::text, 'url'::text, 'date'::text, 'data'::text, 'array'::text, 'dictionary'::text, 'json'::text])))
);

ALTER TABLE ONLY public.preference_declaration FORCE ROW LEVEL SECURITY;

CREATE TABLE public.preference_history (
    account text DEFAULT public.prefs_current_account() NOT NULL,
    id bigint NOT NULL,
    suite text NOT NULL,
    key text NOT NULL,
    type text,
    value text,
    bytes bytea,
    old_type text,
    old_value text,
    old_bytes bytea,
    changed_at double precision NOT NULL
);

ALTER TABLE ONLY public.preference_history FORCE ROW LEVEL SECURITY;

CREATE TABLE public.prefs_account_size (
    account text NOT NULL,
    held_bytes bigint DEFAULT 0 NOT NULL,
    pushed_since_count bigint DEFAULT 0 NOT NULL,
    counted_at timestamp with time zone,
    bytes_limit bigint,
    CONSTRAINT prefs_account_size_bytes_limit_check CHECK (((bytes_limit IS NULL) OR (bytes_limit > 0)))
);

CREATE TABLE public.prefs_account_state (
    account text DEFAULT public.prefs_current_account() NOT NULL,
    last_change bigint DEFAULT 0 NOT NULL,
    history_limit integer DEFAULT 10000 NOT NULL,
    last_bookmark_id bigint DEFAULT 0 NOT NULL,
    last_folder_id bigint DEFAULT 0 NOT NULL,
    channel text DEFAULT ('prefs:'::text || replace((gen_random_uuid())::text, '-'::text, ''::text)) NOT NULL,
    sync_horizon_clock text COLLATE pg_catalog."C",
    sync_horizon_sequence bigint DEFAULT 0 NOT NULL,
    sync_on boolean DEFAULT false NOT NULL,
    sync_rebuild boolean DEFAULT false NOT NULL,
    first_change_at double precision DEFAULT (EXTRACT(epoch FROM clock_timestamp()) - (978307200)::numeric),
    CONSTRAINT prefs_account_state_history_limit_check CHECK ((history_limit >= 0))
);

ALTER TABLE ONLY public.prefs_account_state FORCE ROW LEVEL SECURITY;

CREATE TABLE public.prefs_device_token (
    id bigint NOT NULL,
    account text NOT NULL,
    name text NOT NULL,
    hash bytea NOT NULL,
    issued_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone,
    CONSTRAINT prefs_device_token_account_check CHECK (((length(account) >= 1) AND (length(account) <= 56))),
    CONSTRAINT prefs_device_token_hash_check CHECK ((length(hash) = 32)),
    CONSTRAINT prefs_device_token_name_check CHECK ((((length(name) >= 1) AND (length(name) <= 64)) AND (name !~ '[[:cntrl:]]'::text)))
);

ALTER TABLE public.prefs_device_token ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.prefs_device_token_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.prefs_push_receipt (
    account text NOT NULL,
    key text NOT NULL,
    device text NOT NULL,
    response text,
    made_at timestamp with time zone DEFAULT now() NOT NULL,
    changes_hash bytea,
    CONSTRAINT prefs_push_receipt_key_check CHECK (((length(key) >= 1) AND (length(key) <= 128)))
);

CREATE TABLE public.prefs_reporting (
    txid bigint NOT NULL
);

CREATE TABLE public.prefs_schema_migration (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.prefs_sync_config (
    one_row boolean DEFAULT true NOT NULL,
    clock_bound_ms bigint DEFAULT 300000 NOT NULL,
    device_expiry_days integer DEFAULT 90 NOT NULL,
    account_bytes_limit bigint DEFAULT 268435456 NOT NULL,
    CONSTRAINT prefs_sync_config_account_bytes_limit_check CHECK ((account_bytes_limit > 0)),
    CONSTRAINT prefs_sync_config_clock_bound_ms_check CHECK ((clock_bound_ms >= 0)),
    CONSTRAINT prefs_sync_config_device_expiry_days_check CHECK ((device_expiry_days > 0)),
    CONSTRAINT prefs_sync_config_one_row_check CHECK (one_row)
);

CREATE SEQUENCE public.prefs_sync_sequence
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

CREATE UNLOGGED TABLE public.prefs_sync_transaction (
    xid xid8 NOT NULL,
    account text NOT NULL,
    number bigint NOT NULL,
    applying text
);

CREATE TABLE public.selection (
    account text DEFAULT public.prefs_current_account() NOT NULL,
    name text NOT NULL,
    selected_index integer,
    count integer NOT NULL,
    policy text NOT NULL,
    item_id text,
    updated_at double precision NOT NULL,
    CONSTRAINT selection_check CHECK (((selected_index IS NULL) OR ((selected_index >= 0) AND (selected_index < count)))),
    CONSTRAINT selection_check1 CHECK (((selected_index IS NOT NULL) OR (policy = 'optional'::text) OR (count = 0))),
    CONSTRAINT selection_count_check CHECK ((count >= 0)),
    CONSTRAINT selection_policy_check CHECK ((policy = ANY (ARRAY['clamp'::text, 'wrap'::text, 'optional'::text])))
);

ALTER TABLE ONLY public.selection FORCE ROW LEVEL SECURITY;

CREATE TABLE public.sync_change (
    account text DEFAULT public.prefs_current_account() NOT NULL,
    entity text NOT NULL,
    ident text NOT NULL,
    field text NOT NULL,
    clock text NOT NULL COLLATE pg_catalog."C",
    device text NOT NULL,
    present boolean NOT NULL,
    type text,
    value text,
    bytes bytea,
    sequence bigint NOT NULL,
    suite text,
    key text,
    CONSTRAINT sync_change_entity_check CHECK ((entity = ANY (ARRAY['preference'::text, 'bookmark'::text, 'tag'::text])))
);

ALTER TABLE ONLY public.sync_change FORCE ROW LEVEL SECURITY;

CREATE TABLE public.sync_device (
    account text DEFAULT public.prefs_current_account() NOT NULL,
    device text NOT NULL,
    cursor bigint DEFAULT 0 NOT NULL,
    seen_at double precision NOT NULL,
    pushed_clock text COLLATE pg_catalog."C",
    name text,
    CONSTRAINT sync_device_name_check CHECK (((name IS NULL) OR (((length(name) >= 1) AND (length(name) <= 64)) AND (name !~ '[[:cntrl:]]'::text))))
);

ALTER TABLE ONLY public.sync_device FORCE ROW LEVEL SECURITY;

CREATE TABLE public.sync_misaligned (
    account text DEFAULT public.prefs_current_account() NOT NULL,
    kind text NOT NULL
);

ALTER TABLE ONLY public.sync_misaligned FORCE ROW LEVEL SECURITY;

ALTER TABLE ONLY public.bookmark
    ADD CONSTRAINT bookmark_account_kind_item_id_key UNIQUE (account, kind, item_id);

ALTER TABLE ONLY public.bookmark_folder
    ADD CONSTRAINT bookmark_folder_pkey PRIMARY KEY (account, id);

ALTER TABLE ONLY public.bookmark_history
    ADD CONSTRAINT bookmark_history_pkey PRIMARY KEY (account, bookmark_id, revision);

ALTER TABLE ONLY public.bookmark
    ADD CONSTRAINT bookmark_pkey PRIMARY KEY (account, id);

ALTER TABLE ONLY public.bookmark_tag
    ADD CONSTRAINT bookmark_tag_pkey PRIMARY KEY (account, bookmark_id, tag);

ALTER TABLE ONLY public.preference_declaration
    ADD CONSTRAINT preference_declaration_pkey PRIMARY KEY (account, suite, key);

ALTER TABLE ONLY public.preference_history
    ADD CONSTRAINT preference_history_pkey PRIMARY KEY (account, id);

ALTER TABLE ONLY public.preference
    ADD CONSTRAINT preference_pkey PRIMARY KEY (account, suite, key);

ALTER TABLE ONLY public.prefs_account_size
    ADD CONSTRAINT prefs_account_size_pkey PRIMARY KEY (account);

ALTER TABLE ONLY public.prefs_account_state
    ADD CONSTRAINT prefs_account_state_pkey PRIMARY KEY (account);

ALTER TABLE ONLY public.prefs_device_token
    ADD CONSTRAINT prefs_device_token_hash_key UNIQUE (hash);

ALTER TABLE ONLY public.prefs_device_token
    ADD CONSTRAINT prefs_device_token_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.prefs_push_receipt
    ADD CONSTRAINT prefs_push_receipt_pkey PRIMARY KEY (account, key);

ALTER TABLE ONLY public.prefs_reporting
    ADD CONSTRAINT prefs_reporting_pkey PRIMARY KEY (txid);

ALTER TABLE ONLY public.prefs_schema_migration
    ADD CONSTRAINT prefs_schema_migration_pkey PRIMARY KEY (version);

ALTER TABLE ONLY public.prefs_sync_config
    ADD CONSTRAINT prefs_sync_config_pkey PRIMARY KEY (one_row);

ALTER TABLE ONLY public.prefs_sync_transaction
    ADD CONSTRAINT prefs_sync_transaction_pkey PRIMARY KEY (xid, account);

ALTER TABLE ONLY public.selection
    ADD CONSTRAINT selection_pkey PRIMARY KEY (account, name);

ALTER TABLE ONLY public.sync_change
    ADD CONSTRAINT sync_change_pkey PRIMARY KEY (account, entity, ident, field);

ALTER TABLE public.sync_change
    ADD CONSTRAINT sync_change_well_formed CHECK (((clock ~ '^[0-9]{15}-[0-9]{6}-[0-9a-z]{1,64}$'::text) AND (octet_length(ident) <= ((3 * 2048) + 2)) AND (ident ~ '^(?:[0-9A-F]{2})+(?:\.(?:[0-9A-F]{2})+){1,2}$'::text) AND
CASE entity
    WHEN 'preference'::text THEN (field = 'value'::text)
    WHEN 'tag'::text THEN (field = 'present'::text)
    WHEN 'bookmark'::text THEN (field = ANY (ARRAY['exists'::text, 'removed'::text, 'title'::text, 'url'::text, 'category'::text, 'note'::text, 'position'::text, 'folder'::text]))
    ELSE false
END AND (COALESCE(octet_length(value), 0) <= 4194304) AND (COALESCE(length(bytes), 0) <= 4194304))) NOT VALID;

ALTER TABLE ONLY public.sync_device
    ADD CONSTRAINT sync_device_pkey PRIMARY KEY (account, device);

ALTER TABLE ONLY public.sync_misaligned
    ADD CONSTRAINT sync_misaligned_pkey PRIMARY KEY (account, kind);

CREATE INDEX bookmark_by_category ON public.bookmark USING btree (account, category, kind, "position");

CREATE INDEX bookmark_by_folder ON public.bookmark USING btree (account, folder_id, kind, "position") WHERE (folder_id IS NOT NULL);

CREATE INDEX bookmark_by_position ON public.bookmark USING btree (account, kind, "position");

CREATE INDEX bookmark_folder_by_parent ON public.bookmark_folder USING btree (account, parent_id, "position");

CREATE INDEX bookmark_search_index ON public.bookmark USING gin (public.prefs_search_vector(search_text));

CREATE INDEX bookmark_tag_by_tag ON public.bookmark_tag USING btree (account, tag);

CREATE INDEX preference_by_key ON public.preference USING btree (suite, key);

CREATE INDEX preference_history_by_key ON public.preference_history USING btree (suite, key, account, id);

CREATE INDEX prefs_device_token_account ON public.prefs_device_token USING btree (account);

CREATE INDEX prefs_push_receipt_made_at ON public.prefs_push_receipt USING btree (made_at);

CREATE INDEX selection_by_name ON public.selection USING btree (name);

CREATE INDEX sync_change_by_sequence ON public.sync_change USING btree (account, sequence);

CREATE TRIGGER bookmark_assign_id BEFORE INSERT ON public.bookmark FOR EACH ROW EXECUTE FUNCTION public.prefs_assign_id();

CREATE TRIGGER bookmark_folder_assign_id BEFORE INSERT ON public.bookmark_folder FOR EACH ROW EXECUTE FUNCTION public.prefs_assign_id();

CREATE TRIGGER bookmark_history_keeps_replaced AFTER UPDATE OF title, url, category, note, folder_id ON public.bookmark FOR EACH ROW WHEN (((old.title IS DISTINCT FROM new.title) OR (old.url IS DISTINCT FROM new.url) OR (old.category IS DISTINCT FROM new.category) OR (old.note IS DISTINCT FROM new.note) OR (old.folder_id IS DISTINCT FROM new.folder_id))) EXECUTE FUNCTION public.prefs_bookmark_keep_replaced();

CREATE TRIGGER bookmark_sync_align BEFORE INSERT OR DELETE OR UPDATE OF "position" ON public.bookmark FOR EACH ROW EXECUTE FUNCTION public.prefs_sync_align();

CREATE TRIGGER bookmark_sync_lock BEFORE INSERT OR DELETE OR UPDATE ON public.bookmark FOR EACH STATEMENT EXECUTE FUNCTION public.prefs_sync_lock();

CREATE TRIGGER bookmark_sync_removed_early BEFORE DELETE ON public.bookmark FOR EACH ROW EXECUTE FUNCTION public.prefs_sync_removed_early();

CREATE TRIGGER bookmark_sync_stamp AFTER INSERT OR DELETE OR UPDATE ON public.bookmark FOR EACH ROW EXECUTE FUNCTION public.prefs_sync_stamp_bookmark();

CREATE TRIGGER bookmark_sync_tags BEFORE DELETE ON public.bookmark FOR EACH ROW EXECUTE FUNCTION public.prefs_sync_stamp_bookmark_tags();

CREATE TRIGGER bookmark_tag_sync_lock BEFORE INSERT OR DELETE OR UPDATE ON public.bookmark_tag FOR EACH STATEMENT EXECUTE FUNCTION public.prefs_sync_lock();

CREATE TRIGGER bookmark_tag_sync_stamp AFTER INSERT OR DELETE ON public.bookmark_tag FOR EACH ROW EXECUTE FUNCTION public.prefs_sync_stamp_tag();

CREATE TRIGGER bookmark_tag_sync_untagged_early AFTER DELETE ON public.bookmark_tag FOR EACH ROW EXECUTE FUNCTION public.prefs_sync_untagged_early();

CREATE TRIGGER preference_declaration_notify AFTER INSERT OR DELETE OR UPDATE ON public.preference_declaration FOR EACH ROW EXECUTE FUNCTION public.prefs_notify_declaration();

CREATE TRIGGER preference_history_deleted AFTER DELETE ON public.preference REFERENCING OLD TABLE AS written_old FOR EACH STATEMENT EXECUTE FUNCTION public.prefs_record_deleted();

CREATE TRIGGER preference_history_inserted AFTER INSERT ON public.preference REFERENCING NEW TABLE AS written_new FOR EACH STATEMENT EXECUTE FUNCTION public.prefs_record_inserted();

CREATE TRIGGER preference_history_record AFTER INSERT OR DELETE OR UPDATE ON public.preference FOR EACH ROW WHEN (((COALESCE(current_setting('prefs.sync_applying'::text, true), ''::text) = ''::text) OR (CURRENT_USER <> 'postgres'::name))) EXECUTE FUNCTION public.prefs_record_row();

CREATE TRIGGER preference_history_updated AFTER UPDATE ON public.preference REFERENCING OLD TABLE AS written_old NEW TABLE AS written_new FOR EACH STATEMENT EXECUTE FUNCTION public.prefs_record_updated();

CREATE TRIGGER preference_sync_removed_early BEFORE DELETE ON public.preference FOR EACH ROW EXECUTE FUNCTION public.prefs_sync_removed_early();

CREATE TRIGGER preference_sync_stamp AFTER INSERT OR DELETE OR UPDATE ON public.preference FOR EACH ROW WHEN (((COALESCE(current_setting('prefs.sync_applying'::text, true), ''::text) = ''::text) OR (CURRENT_USER <> 'postgres'::name))) EXECUTE FUNCTION public.prefs_sync_stamp_preference();

CREATE TRIGGER sync_change_numbered BEFORE INSERT OR UPDATE ON public.sync_change FOR EACH ROW WHEN (
        CASE
            WHEN (new.clock ~ '^[0-9]{15}-'::text) THEN (("left"(new.clock, 15))::bigint > ((EXTRACT(epoch FROM clock_timestamp()) * (1000)::numeric))::bigint)
            ELSE false
        END) EXECUTE FUNCTION public.prefs_sync_numbered();

ALTER TABLE ONLY public.bookmark
    ADD CONSTRAINT bookmark_account_folder_id_fkey FOREIGN KEY (account, folder_id) REFERENCES public.bookmark_folder(account, id) ON DELETE SET NULL (folder_id);

ALTER TABLE ONLY public.bookmark_folder
    ADD CONSTRAINT bookmark_folder_account_parent_id_fkey FOREIGN KEY (account, parent_id) REFERENCES public.bookmark_folder(account, id) ON DELETE CASCADE;

ALTER TABLE ONLY public.bookmark_history
    ADD CONSTRAINT bookmark_history_account_bookmark_id_fkey FOREIGN KEY (account, bookmark_id) REFERENCES public.bookmark(account, id) ON DELETE CASCADE;

ALTER TABLE ONLY public.bookmark_tag
    ADD CONSTRAINT bookmark_tag_account_bookmark_id_fkey FOREIGN KEY (account, bookmark_id) REFERENCES public.bookmark(account, id) ON DELETE CASCADE;

CREATE POLICY account_rows ON public.bookmark USING ((account = ( SELECT public.prefs_current_account() AS prefs_current_account))) WITH CHECK ((account = ( SELECT public.prefs_current_account() AS prefs_current_account)));

CREATE POLICY account_rows ON public.bookmark_folder USING ((account = ( SELECT public.prefs_current_account() AS prefs_current_account))) WITH CHECK ((account = ( SELECT public.prefs_current_account() AS prefs_current_account)));

CREATE POLICY account_rows ON public.bookmark_history USING ((account = ( SELECT public.prefs_current_account() AS prefs_current_account))) WITH CHECK ((account = ( SELECT public.prefs_current_account() AS prefs_current_account)));

CREATE POLICY account_rows ON public.bookmark_tag USING ((account = ( SELECT public.prefs_current_account() AS prefs_current_account))) WITH CHECK ((account = ( SELECT public.prefs_current_account() AS prefs_current_account)));

CREATE POLICY account_rows ON public.preference USING ((account = ( SELECT public.prefs_current_account() AS prefs_current_account))) WITH CHECK ((account = ( SELECT public.prefs_current_account() AS prefs_current_account)));

CREATE POLICY account_rows ON public.preference_declaration USING ((account = ( SELECT public.prefs_current_account() AS prefs_current_account))) WITH CHECK ((account = ( SELECT public.prefs_current_account() AS prefs_current_account)));

CREATE POLICY account_rows ON public.preference_history USING ((account = ( SELECT public.prefs_current_account() AS prefs_current_account))) WITH CHECK ((account = ( SELECT public.prefs_current_account() AS prefs_current_account)));

CREATE POLICY account_rows ON public.prefs_account_state USING ((account = ( SELECT public.prefs_current_account() AS prefs_current_account))) WITH CHECK ((account = ( SELECT public.prefs_current_account() AS prefs_current_account)));

CREATE POLICY account_rows ON public.selection USING ((account = ( SELECT public.prefs_current_account() AS prefs_current_account))) WITH CHECK ((account = ( SELECT public.prefs_current_account() AS prefs_current_account)));

CREATE POLICY account_rows ON public.sync_change USING ((account = ( SELECT public.prefs_current_account() AS prefs_current_account))) WITH CHECK ((account = ( SELECT public.prefs_current_account() AS prefs_current_account)));

CREATE POLICY account_rows ON public.sync_device USING ((account = ( SELECT public.prefs_current_account() AS prefs_current_account))) WITH CHECK ((account = ( SELECT public.prefs_current_account() AS prefs_current_account)));

CREATE POLICY account_rows ON public.sync_misaligned USING ((account = ( SELECT public.prefs_current_account() AS prefs_current_account))) WITH CHECK ((account = ( SELECT public.prefs_current_account() AS prefs_current_account)));

ALTER TABLE public.bookmark ENABLE ROW LEVEL SECURITY;

ALTER TABLE public.bookmark_folder ENABLE ROW LEVEL SECURITY;

ALTER TABLE public.bookmark_history ENABLE ROW LEVEL SECURITY;

ALTER TABLE public.bookmark_tag ENABLE ROW LEVEL SECURITY;

ALTER TABLE public.preference ENABLE ROW LEVEL SECURITY;

ALTER TABLE public.preference_declaration ENABLE ROW LEVEL SECURITY;

ALTER TABLE public.preference_history ENABLE ROW LEVEL SECURITY;

ALTER TABLE public.prefs_account_state ENABLE ROW LEVEL SECURITY;

CREATE POLICY reporting_reads ON public.preference FOR SELECT TO postgres USING ((EXISTS ( SELECT
   FROM public.prefs_reporting
  WHERE (prefs_reporting.txid = txid_current_if_assigned()))));

CREATE POLICY reporting_reads ON public.preference_declaration FOR SELECT TO postgres USING ((EXISTS ( SELECT
   FROM public.prefs_reporting
  WHERE (prefs_reporting.txid = txid_current_if_assigned()))));

CREATE POLICY reporting_reads ON public.prefs_account_state FOR SELECT TO postgres USING ((EXISTS ( SELECT
   FROM public.prefs_reporting
  WHERE (prefs_reporting.txid = txid_current_if_assigned()))));

CREATE POLICY reporting_reads ON public.selection FOR SELECT TO postgres USING ((EXISTS ( SELECT
   FROM public.prefs_reporting
  WHERE (prefs_reporting.txid = txid_current_if_assigned()))));

ALTER TABLE public.selection ENABLE ROW LEVEL SECURITY;

ALTER TABLE public.sync_change ENABLE ROW LEVEL SECURITY;

ALTER TABLE public.sync_device ENABLE ROW LEVEL SECURITY;

ALTER TABLE public.sync_misaligned ENABLE ROW LEVEL SECURITY;

REVOKE ALL ON FUNCTION public.prefs_account_bytes_limit(owner text) FROM PUBLIC;

GRANT ALL ON FUNCTION public.prefs_account_channel() TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_account_channel() TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_account_count(owner text, bytes_limit bigint) FROM PUBLIC;

GRANT ALL ON FUNCTION public.prefs_account_of(role_name name) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_account_of(role_name name) TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_current_account() TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_current_account() TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_notify_payload() TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_notify_payload() TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_onboarding_report(p_suite text, p_since double precision, p_by_week boolean, p_threshold integer) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_onboarding_report(p_suite text, p_since double precision, p_by_week boolean, p_threshold integer) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_preference_statistics(p_suite text, p_key text, p_top integer, p_threshold integer) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_preference_statistics(p_suite text, p_key text, p_top integer, p_threshold integer) TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_record_history(accounts text[], suites text[], keys text[], types text[], vals text[], bytes_ bytea[], old_types text[], old_vals text[], old_bytes_ bytea[], times double precision[]) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_record_history(accounts text[], suites text[], keys text[], types text[], vals text[], bytes_ bytea[], old_types text[], old_vals text[], old_bytes_ bytea[], times double precision[]) TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_search_query(text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_search_query(text) TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_search_vector(text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_search_vector(text) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_set_value(owner text, set_suite text, set_key text, set_type text, set_value text, set_bytes bytea, set_at double precision, set_version integer, after_id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_set_value(owner text, set_suite text, set_key text, set_type text, set_value text, set_bytes bytea, set_at double precision, set_version integer, after_id bigint) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_set_value(owner text, set_suite text, set_key text, set_type text, set_value text, set_bytes bytea, set_at double precision, set_version integer, after_id bigint) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_acting(owner text) FROM PUBLIC;

GRANT ALL ON FUNCTION public.prefs_sync_align() TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_align() TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_aligned(owner text, aligned_kind text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_aligned(owner text, aligned_kind text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_aligned(owner text, aligned_kind text) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_applying() FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_applying() TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_applying() TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_begin(owner text, OUT number bigint, OUT rebuild boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_begin(owner text, OUT number bigint, OUT rebuild boolean) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_begin(owner text, OUT number bigint, OUT rebuild boolean) TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_sync_clock_at(written double precision, now_ms bigint) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_clock_at(written double precision, now_ms bigint) TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_sync_clock_limit() TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_clock_limit() TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_device_forget(owner text, device_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_device_forget(owner text, device_id text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_device_forget(owner text, device_id text) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_device_name(owner text, device_id text, device_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_device_name(owner text, device_id text, device_name text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_device_name(owner text, device_id text, device_name text) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_device_pushed(owner text, device_id text, clock text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_device_pushed(owner text, device_id text, clock text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_device_pushed(owner text, device_id text, clock text) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_device_report(owner text, device_id text, reported bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_device_report(owner text, device_id text, reported bigint) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_device_report(owner text, device_id text, reported bigint) TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_sync_folder(owner text, folder bigint, category text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_folder(owner text, folder bigint, category text) TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_sync_lock_key(owner text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_lock_key(owner text) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_mark_misaligned(owner text, misaligned_kind text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_mark_misaligned(owner text, misaligned_kind text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_mark_misaligned(owner text, misaligned_kind text) TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_sync_name(text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_name(text) TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_sync_next_clock(now_ms bigint, after text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_next_clock(now_ms bigint, after text) TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_sync_now_ms() TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_now_ms() TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_number(owner text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_number(owner text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_number(owner text) TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_sync_problem(entity text, ident text, field text, clock text, present boolean, type text, value text, bytes bytea) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_problem(entity text, ident text, field text, clock text, present boolean, type text, value text, bytes bytea) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_push(owner text, document jsonb, pulled_through bigint, pusher text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_push(owner text, document jsonb, pulled_through bigint, pusher text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_push(owner text, document jsonb, pulled_through bigint, pusher text) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_push_store(owner text, document jsonb, skipped bigint[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_push_store(owner text, document jsonb, skipped bigint[]) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_push_store(owner text, document jsonb, skipped bigint[]) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_pushed_rows(document jsonb) FROM PUBLIC;

REVOKE ALL ON FUNCTION public.prefs_sync_rebuilt(owner text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_rebuilt(owner text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_rebuilt(owner text) TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_sync_removed_early() TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_removed_early() TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_restated_bookmark(owner text, restated_entity text, restated_ident text, restated_field text, restated_type text, restated_value text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_restated_bookmark(owner text, restated_entity text, restated_ident text, restated_field text, restated_type text, restated_value text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_restated_bookmark(owner text, restated_entity text, restated_ident text, restated_field text, restated_type text, restated_value text) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_restated_preference(owner text, restated_suite text, restated_key text, restated_present boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_restated_preference(owner text, restated_suite text, restated_key text, restated_present boolean) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_restated_preference(owner text, restated_suite text, restated_key text, restated_present boolean) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_restating(owner text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_restating(owner text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_restating(owner text) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_stamp(owner text, stamp_entity text, stamp_ident text, stamp_field text, stamp_present boolean, stamp_type text, stamp_value text, stamp_suite text, stamp_key text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_stamp(owner text, stamp_entity text, stamp_ident text, stamp_field text, stamp_present boolean, stamp_type text, stamp_value text, stamp_suite text, stamp_key text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_stamp(owner text, stamp_entity text, stamp_ident text, stamp_field text, stamp_present boolean, stamp_type text, stamp_value text, stamp_suite text, stamp_key text) TO prefs_service;

GRANT ALL ON FUNCTION public.prefs_sync_stamping(owner text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_stamping(owner text) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_start(owner text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.prefs_sync_start(owner text) TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_start(owner text) TO prefs_service;

REVOKE ALL ON FUNCTION public.prefs_sync_store_pushed(owner text, pushed public.prefs_sync_pushed[], skipped bigint[], push_number bigint) FROM PUBLIC;

REVOKE ALL ON FUNCTION public.prefs_sync_take_number(owner text) FROM PUBLIC;

GRANT ALL ON FUNCTION public.prefs_sync_untagged_early() TO prefs_account;
GRANT ALL ON FUNCTION public.prefs_sync_untagged_early() TO prefs_service;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.bookmark TO prefs_account;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.bookmark TO prefs_service;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.bookmark_folder TO prefs_account;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.bookmark_folder TO prefs_service;

GRANT SELECT,INSERT,DELETE ON TABLE public.bookmark_history TO prefs_account;
GRANT SELECT,INSERT,DELETE ON TABLE public.bookmark_history TO prefs_service;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.bookmark_tag TO prefs_account;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.bookmark_tag TO prefs_service;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.preference TO prefs_account;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.preference TO prefs_service;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.preference_declaration TO prefs_account;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.preference_declaration TO prefs_service;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.preference_history TO prefs_account;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.preference_history TO prefs_service;

GRANT SELECT ON TABLE public.prefs_account_state TO prefs_account;
GRANT SELECT ON TABLE public.prefs_account_state TO prefs_service;

GRANT INSERT(account) ON TABLE public.prefs_account_state TO prefs_account;
GRANT INSERT(account) ON TABLE public.prefs_account_state TO prefs_service;

GRANT UPDATE(last_change) ON TABLE public.prefs_account_state TO prefs_account;
GRANT UPDATE(last_change) ON TABLE public.prefs_account_state TO prefs_service;

GRANT UPDATE(history_limit) ON TABLE public.prefs_account_state TO prefs_account;
GRANT UPDATE(history_limit) ON TABLE public.prefs_account_state TO prefs_service;

GRANT UPDATE(last_bookmark_id) ON TABLE public.prefs_account_state TO prefs_account;
GRANT UPDATE(last_bookmark_id) ON TABLE public.prefs_account_state TO prefs_service;

GRANT UPDATE(last_folder_id) ON TABLE public.prefs_account_state TO prefs_account;
GRANT UPDATE(last_folder_id) ON TABLE public.prefs_account_state TO prefs_service;

GRANT SELECT,INSERT ON TABLE public.prefs_device_token TO prefs_service;

GRANT UPDATE(revoked_at) ON TABLE public.prefs_device_token TO prefs_service;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.prefs_push_receipt TO prefs_service;

GRANT SELECT ON TABLE public.prefs_schema_migration TO prefs_account;
GRANT SELECT ON TABLE public.prefs_schema_migration TO prefs_service;

GRANT SELECT ON TABLE public.prefs_sync_config TO prefs_account;
GRANT SELECT ON TABLE public.prefs_sync_config TO prefs_service;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.selection TO prefs_account;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.selection TO prefs_service;

GRANT SELECT ON TABLE public.sync_change TO prefs_account;
GRANT SELECT ON TABLE public.sync_change TO prefs_service;

GRANT SELECT ON TABLE public.sync_device TO prefs_account;
GRANT SELECT ON TABLE public.sync_device TO prefs_service;

GRANT SELECT ON TABLE public.sync_misaligned TO prefs_account;
GRANT SELECT ON TABLE public.sync_misaligned TO prefs_service;
