-- "A push is applying" no longer lets a client write the account's tables unstamped.
--
-- A device's own login role could call prefs_sync_begin (as every push must), then, in the
-- same transaction, write its account's preferences, bookmarks and tags directly: the
-- token that prefs_sync_begin keeps turned every stamping trigger off until the commit, so
-- the hub's store (which the server app reads) held values that no device would ever pull.
--
-- Now:
-- 1. Preferences are applied inside the hub's function only (prefs_sync_push_store, which
--    runs as the owner): the token no longer turns their stamping off. A preference written
--    by a client in any transaction is stamped.
-- 2. The bookmark rebuild that follows a push runs as the client, through the bookmark
--    repository, with the token on. Its writes are stamped unless they are what the merged
--    fields already say (the rebuild writes exactly that): a title, URL, category, note,
--    folder, existence or tag that differs from the merged change is stamped as any write
--    is, and reaches every device. Positions are the exception: the rebuild renumbers a
--    kind's positions into ranks, which may differ from the merged numbers; such a kind is
--    recorded as misaligned and realigned by the next write that moves positions
--    (Migrations/postgres/0011_sync_positions_aligned.sql).
DO $rewrite$
DECLARE
    fn oid;
    definition text;
    owner_only text := format('current_user = %L', current_user);
    either text := format('(current_user = %L OR prefs_sync_applying())', current_user);
BEGIN
    FOR fn IN
        SELECT p.oid FROM pg_catalog.pg_proc AS p
        WHERE p.pronamespace = pg_catalog.current_schema()::regnamespace
            AND p.proname IN ('prefs_sync_stamping', 'prefs_sync_stamp_preference',
                'prefs_sync_stamp_bookmark', 'prefs_sync_stamp_tag',
                'prefs_sync_stamp_bookmark_tags')
    LOOP
        definition := pg_catalog.pg_get_functiondef(fn);
        IF position(either IN definition) = 0 THEN
            RAISE EXCEPTION 'prefs: % does not read "applying" as expected',
                fn::regprocedure;
        END IF;
        EXECUTE replace(definition, either, owner_only);
    END LOOP;

    definition := pg_catalog.pg_get_functiondef(
        'prefs_sync_stamp(text, text, text, text, boolean, text, text, text, text)'::regprocedure);
    IF position(E'    number := prefs_sync_take_number(owner);\n' IN definition) = 0 THEN
        RAISE EXCEPTION 'prefs: prefs_sync_stamp is not as expected';
    END IF;
    EXECUTE replace(definition, E'    number := prefs_sync_take_number(owner);\n',
        E'    -- The rebuild after a push (the token on, outside the hub''s functions) writes\n'
        || E'    -- what the merged fields say: that is no change. Anything else is one.\n'
        || E'    IF prefs_sync_applying() AND (stamp_field = ''position'' OR EXISTS (\n'
        || E'        SELECT 1 FROM sync_change AS s WHERE s.account = owner\n'
        || E'            AND s.entity = stamp_entity AND s.ident = stamp_ident\n'
        || E'            AND s.field = stamp_field AND s.present = stamp_present\n'
        || E'            AND s.type IS NOT DISTINCT FROM stamp_type\n'
        || E'            AND s.value IS NOT DISTINCT FROM stamp_value)) THEN\n'
        || E'        RETURN;\n'
        || E'    END IF;\n'
        || E'    number := prefs_sync_take_number(owner);\n');
END
$rewrite$;
