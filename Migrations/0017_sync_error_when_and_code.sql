-- When the last failed round failed, and the exit code the command line gave it, beside its
-- message: `prefs sync status` shows all three until a round completes.
ALTER TABLE sync_state ADD COLUMN last_error_at REAL;
ALTER TABLE sync_state ADD COLUMN last_error_exit INTEGER;
