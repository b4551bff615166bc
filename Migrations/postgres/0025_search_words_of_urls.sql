-- A search finds the words of a bookmark's URL and of any text joined by punctuation, as
-- SQLite's FTS5 does: 'lisbon' finds https://example.com/lisbon. PostgreSQL's parser reads a
-- URL as one token (its host and path), so the text is also indexed with ASCII punctuation
-- read as spaces; the tokens it read before stay ('example.com' still finds the host).
-- SearchOrderContractTests holds both engines to the same matches.
CREATE OR REPLACE FUNCTION prefs_search_vector(text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT to_tsvector('simple', public.unaccent('public.unaccent'::regdictionary, $1))
        || to_tsvector('simple', regexp_replace(
            public.unaccent('public.unaccent'::regdictionary, $1), '[[:punct:]]+', ' ', 'g'))
$$;

-- The index holds the function's old values: made again.
REINDEX INDEX bookmark_search_index;
