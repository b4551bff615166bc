-- When the last failed round failed, and the exit code the command line gave it, beside its
-- message: `prefs sync status` shows all three until a round completes. And the private CA
-- a sync server's certificate was verified with (`--ca-file`), kept beside the server's
-- address as the address is: the next `prefs sync` trusts the same CA without being told.
ALTER TABLE sync_state ADD COLUMN last_error_at REAL;
ALTER TABLE sync_state ADD COLUMN last_error_exit INTEGER;
ALTER TABLE sync_state ADD COLUMN ca_file TEXT;
