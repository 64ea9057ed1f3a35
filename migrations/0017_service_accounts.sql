-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Service accounts (issue 20): users that never log in with a password and act only through the API tokens an
-- admin makes for them (CI jobs, scrapers, agents). `kind` tells them from people; a service account has no password
-- hash, a person always has one. A service account's handle (e.g. `ci-bot`, never containing '@') stands in the
-- email column, which keeps it unique among every account.
-- ---------------------------------------------------------------------------------------------------------------
ALTER TABLE users ADD COLUMN kind text NOT NULL DEFAULT 'person';
ALTER TABLE users ADD CONSTRAINT users_kind_check CHECK (kind IN ('person', 'service'));
ALTER TABLE users ALTER COLUMN password_hash DROP NOT NULL;
ALTER TABLE users ADD CONSTRAINT users_password_kind_check CHECK ((kind = 'service') = (password_hash IS NULL));

-- migrate:down
-- A service account cannot exist without `kind`: it goes, with its tokens (ON DELETE CASCADE).
DELETE FROM users WHERE kind = 'service';
ALTER TABLE users DROP CONSTRAINT users_password_kind_check;
ALTER TABLE users ALTER COLUMN password_hash SET NOT NULL;
ALTER TABLE users DROP CONSTRAINT users_kind_check;
ALTER TABLE users DROP COLUMN kind;
