-- Sync over HTTPS (docs/sync-protocol.md): a device holds a token, not a PostgreSQL role.
-- prefs-server, one service role, finds the account a token opens by the token's SHA-256
-- (the token itself is never stored), and keeps the answer of every push under the
-- idempotency key the device sent with it, so that a push sent again after a lost answer
-- is answered again and never applied twice. Account roles can read neither table.
CREATE TABLE prefs_device_token (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account text NOT NULL CHECK (length(account) BETWEEN 1 AND 56),
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 64 AND name !~ '[[:cntrl:]]'),
    hash bytea NOT NULL UNIQUE CHECK (length(hash) = 32),
    issued_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX prefs_device_token_account ON prefs_device_token (account);

CREATE TABLE prefs_push_receipt (
    account text NOT NULL,
    key text NOT NULL CHECK (length(key) BETWEEN 1 AND 128),
    device text NOT NULL,
    -- NULL while the push that claimed the key has not committed.
    response text,
    made_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account, key)
);
CREATE INDEX prefs_push_receipt_made_at ON prefs_push_receipt (made_at);

REVOKE ALL ON prefs_device_token, prefs_push_receipt FROM PUBLIC;
GRANT SELECT, INSERT ON prefs_device_token TO prefs_service;
GRANT UPDATE (revoked_at) ON prefs_device_token TO prefs_service;
GRANT SELECT, INSERT, UPDATE, DELETE ON prefs_push_receipt TO prefs_service;
