-- A device's push as prefs-server sends it, for pgbench: the opening call, then the push of
-- five preferences (keys drawn from 200, clocks from the server's clock, so every change
-- is taken) for the account :account (a parameter: run it with -M prepared), acting
-- through the service role's prelude.
\set seed random(0, 199)
BEGIN;
SELECT set_config('prefs.account', :account, true);
SELECT b.number, b.rebuild FROM prefs_sync_begin(:account) AS b;
SELECT count(*) FROM prefs_sync_push(:account, (SELECT jsonb_agg(jsonb_build_object('n', i, 'entity', 'preference', 'ident', upper(encode(convert_to('standard', 'UTF8'), 'hex')) || '.' || upper(encode(convert_to('s' || ((:seed + i) % 200), 'UTF8'), 'hex')), 'field', 'value', 'clock', lpad((extract(epoch FROM clock_timestamp()) * 1000)::bigint::text, 15, '0') || '-' || lpad(i::text, 6, '0') || '-bench', 'device', 'bench', 'present', true, 'type', 'int', 'value', ((:seed * 7919 + i) % 1000000)::text)) FROM generate_series(1, 5) AS i), 0, 'bench');
COMMIT;
