-- A push that updates keys the hub has took 13 s for 10,000 on a connection that had pushed
-- before (a device's `sync --watch`, every pooled server connection), against 0.7 s on a new
-- one. The history of a push's updates joins the statement's old and new rows (transition
-- tables); PL/pgSQL keeps the plan of that join for the session, and the plan made at the
-- session's first push, when the statement updated no row, was a nested loop:
-- 10,000 x 10,000 comparisons. Planned without nested loops, it is a hash join whatever the
-- first push held.
ALTER FUNCTION prefs_record_updated() SET enable_nestloop = off;
