-- What a push of updates costs the hub.
--
-- 1. A push that updates keys the hub has took 13 s for 10,000 on a connection that had
--    pushed before (a device's `sync --watch`, every pooled server connection), against
--    0.7 s on a new one. The history of a push's updates joins the statement's old and new
--    rows (transition tables); PL/pgSQL keeps the plan of that join for the session, and the
--    plan made at the session's first push, when the statement updated no row, was a nested
--    loop: 10,000 x 10,000 comparisons. Planned without nested loops, it is a hash join
--    whatever the first push held.
ALTER FUNCTION prefs_record_updated() SET enable_nestloop = off;

-- 2. Row triggers called for nothing, 10,000 times a push: sync_change's trigger checks a
--    clock only when it is past now (an upsert called it twice a row, 113 ms of a push of
--    10,000); the preference table's history and stamping triggers, which return at once
--    inside the hub's functions (statements that run as the owner while a push applies),
--    are not called there.
DROP TRIGGER sync_change_numbered ON sync_change;
CREATE TRIGGER sync_change_numbered BEFORE INSERT OR UPDATE ON sync_change
    FOR EACH ROW WHEN (CASE WHEN NEW.clock ~ '^[0-9]{15}-'
        THEN left(NEW.clock, 15)::bigint > (extract(epoch FROM clock_timestamp()) * 1000)::bigint
        ELSE false END)
    EXECUTE FUNCTION prefs_sync_numbered();

DO $owner$
DECLARE
    outside text := format('coalesce(pg_catalog.current_setting(''prefs.sync_applying'', true), '''')'
        || ' = '''' OR current_user <> %L', current_user);
BEGIN
    DROP TRIGGER preference_history_record ON preference;
    EXECUTE format('CREATE TRIGGER preference_history_record'
        || ' AFTER INSERT OR DELETE OR UPDATE ON preference FOR EACH ROW WHEN (%s)'
        || ' EXECUTE FUNCTION prefs_record_row()', outside);
    DROP TRIGGER preference_sync_stamp ON preference;
    EXECUTE format('CREATE TRIGGER preference_sync_stamp'
        || ' AFTER INSERT OR DELETE OR UPDATE ON preference FOR EACH ROW WHEN (%s)'
        || ' EXECUTE FUNCTION prefs_sync_stamp_preference()', outside);
END
$owner$;
