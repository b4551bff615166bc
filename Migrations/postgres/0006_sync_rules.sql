-- The hub refuses malformed changes and clocks too far ahead, one change at a time (README
-- "Sync"). The rules are those of the devices (Sources/PrefsKit/Sync/SyncValidation.swift):
-- a hybrid clock in its one spelling, idents of hex-encoded UTF-8 names, the rulebook's key
-- and suite names, the fields and value types of each entity, a size limit. A push reports
-- each refused change to its device; a row written into sync_change by any other means is
-- held to the same rules by a constraint and a trigger.

-- How far ahead of the hub's clock a change may be stamped. One row; the owner changes it
-- (UPDATE prefs_sync_config SET clock_bound_ms = 600000), accounts read it.
CREATE TABLE prefs_sync_config (
    one_row boolean PRIMARY KEY DEFAULT true CHECK (one_row),
    clock_bound_ms bigint NOT NULL DEFAULT 300000 CHECK (clock_bound_ms >= 0)
);
INSERT INTO prefs_sync_config DEFAULT VALUES;
GRANT SELECT ON prefs_sync_config TO prefs_account, prefs_service;

-- The hub's clock, as a hybrid clock's milliseconds, and the latest a change may carry.
CREATE FUNCTION prefs_sync_clock_limit() RETURNS bigint
LANGUAGE sql STABLE SET search_path = pg_catalog, public AS $$
    SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint
        + (SELECT clock_bound_ms FROM public.prefs_sync_config)
$$;

-- Whether hex text holds well-formed UTF-8 with no NUL, in whole bytes.
CREATE FUNCTION prefs_sync_is_utf8_hex(hex text) RETURNS boolean
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog AS $$
    SELECT hex ~ ('^(0[1-9A-F]|[1-7][0-9A-F]|(C[2-9A-F]|D[0-9A-F])[89AB][0-9A-F]'
        '|E0[AB][0-9A-F][89AB][0-9A-F]|E[1-9A-CEF][89AB][0-9A-F][89AB][0-9A-F]'
        '|ED[89][0-9A-F][89AB][0-9A-F]|F0[9AB][0-9A-F][89AB][0-9A-F][89AB][0-9A-F]'
        '|F[1-3][89AB][0-9A-F][89AB][0-9A-F][89AB][0-9A-F]'
        '|F4[89][0-9A-F][89AB][0-9A-F][89AB][0-9A-F])*$')
$$;

-- The names of an ident (or a folder path): hex parts joined by dots; NULL when malformed.
CREATE FUNCTION prefs_sync_names(ident text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog AS $$
DECLARE
    part text;
    names text[] := '{}';
BEGIN
    FOREACH part IN ARRAY string_to_array(ident, '.') LOOP
        IF NOT public.prefs_sync_is_utf8_hex(part) THEN
            RETURN NULL;
        END IF;
        names := names || convert_from(decode(part, 'hex'), 'UTF8');
    END LOOP;
    RETURN names;
END
$$;

-- A bookmark's kind, item ID, tag or folder name: not blank (Unicode's White_Space, as
-- Swift's isWhitespace), no control character but a tab.
CREATE FUNCTION prefs_sync_name_problem(name text, noun text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog AS $$
    SELECT CASE
        WHEN name ~ E'^[\\u0009-\\u000D\\u0020\\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]*$'
            THEN 'a bookmark''s ' || noun || ' cannot be empty'
        WHEN name ~ E'[\\u0001-\\u0008\\u000A-\\u001F]'
            THEN 'a bookmark''s ' || noun || ' cannot contain control characters'
    END
$$;

-- A key or suite name by the rulebook: 1 to 1,024 bytes, no NUL (the hex has none) or newline.
CREATE FUNCTION prefs_sync_key_problem(name text, noun text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog AS $$
    SELECT CASE
        WHEN octet_length(name) = 0 THEN 'the ' || noun || ' cannot be empty'
        WHEN octet_length(name) > 1024 THEN 'the ' || noun || ' is longer than 1024 bytes'
        WHEN strpos(name, E'\n') > 0 THEN 'the ' || noun || ' contains a NUL or newline character'
    END
$$;

-- Why a change cannot be stored; NULL when it can. The clock's bound is apart (it moves).
CREATE FUNCTION prefs_sync_problem(entity text, ident text, field text, clock text,
    present boolean, type text, value text, bytes bytea) RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog AS $$
DECLARE
    names text[];
    problem text;
    number numeric;
BEGIN
    IF clock IS NULL OR clock !~ '^[0-9]{15}-[0-9]{6}-[0-9a-z]{1,64}$' THEN
        RETURN 'the clock is not a hybrid clock reading';
    END IF;
    IF octet_length(ident) > 3 * 2048 + 2 THEN
        RETURN 'the ident is not hex-encoded names';
    END IF;
    names := public.prefs_sync_names(ident);
    IF names IS NULL THEN
        RETURN 'the ident is not hex-encoded names';
    END IF;
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
        problem := coalesce(public.prefs_sync_key_problem(names[1], 'suite name'),
            public.prefs_sync_key_problem(names[2], 'key'));
        IF problem IS NOT NULL THEN
            RETURN problem;
        END IF;
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
                WHEN value ~ '^(-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?|-?inf|-?nan)$' THEN NULL
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
    ELSIF entity = 'bookmark' THEN
        IF cardinality(names) <> 2 THEN
            RETURN 'a bookmark''s ident names a kind and an item ID';
        END IF;
        problem := coalesce(public.prefs_sync_name_problem(names[1], 'kind'),
            public.prefs_sync_name_problem(names[2], 'item ID'));
        IF problem IS NOT NULL THEN
            RETURN problem;
        END IF;
        IF field NOT IN ('exists', 'title', 'url', 'category', 'note', 'position', 'folder') THEN
            RETURN 'a bookmark has no field ''' || field || '''';
        END IF;
        IF field = 'exists' OR NOT present THEN
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
            names := public.prefs_sync_names(value);
            IF names IS NULL THEN
                RETURN 'a bookmark''s folder is hex-encoded names';
            END IF;
            FOR i IN 1 .. cardinality(names) LOOP
                problem := public.prefs_sync_name_problem(names[i], 'folder name');
                IF problem IS NOT NULL THEN
                    RETURN problem;
                END IF;
            END LOOP;
            RETURN NULL;
        END IF;
        IF field IN ('title', 'category') AND value ~ E'[\\u0001-\\u0008\\u000A-\\u001F]' THEN
            RETURN 'a bookmark''s ' || field || ' cannot contain control characters';
        END IF;
        RETURN NULL;
    ELSIF entity = 'tag' THEN
        IF cardinality(names) <> 3 THEN
            RETURN 'a tag''s ident names a kind, an item ID and a tag';
        END IF;
        problem := coalesce(public.prefs_sync_name_problem(names[1], 'kind'),
            public.prefs_sync_name_problem(names[2], 'item ID'), public.prefs_sync_name_problem(names[3], 'tag'));
        IF problem IS NOT NULL THEN
            RETURN problem;
        END IF;
        IF field <> 'present' THEN
            RETURN 'a tag has no field ''' || field || '''';
        END IF;
        RETURN CASE WHEN type IS NULL AND value IS NULL AND bytes IS NULL THEN NULL
            ELSE 'a tag''s change carries no value' END;
    END IF;
    RETURN 'no such entity';
END
$$;

GRANT EXECUTE ON FUNCTION prefs_sync_clock_limit(), prefs_sync_is_utf8_hex(text),
    prefs_sync_names(text), prefs_sync_name_problem(text, text),
    prefs_sync_key_problem(text, text),
    prefs_sync_problem(text, text, text, text, boolean, text, text, bytea)
    TO prefs_account, prefs_service;

-- Rows already on a hub are left as they are (devices skip what they cannot apply); every
-- new or changed row must keep the rules.
ALTER TABLE sync_change ADD CONSTRAINT sync_change_well_formed
    CHECK (public.prefs_sync_problem(entity, ident, field, clock, present, type, value, bytes) IS NULL)
    NOT VALID;

CREATE FUNCTION prefs_sync_clock_bound() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
    -- A clock that is not a reading at all is the constraint's to refuse.
    IF NEW.clock ~ '^[0-9]{1,18}-'
        AND split_part(NEW.clock, '-', 1)::bigint > public.prefs_sync_clock_limit() THEN
        RAISE EXCEPTION 'the clock % is ahead of the hub''s by more than the bound', NEW.clock
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER sync_change_clock_bound BEFORE INSERT OR UPDATE OF clock ON sync_change
    FOR EACH ROW EXECUTE FUNCTION prefs_sync_clock_bound();
