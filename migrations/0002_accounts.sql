-- migrate:up
CREATE TABLE users (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Stored lower-cased, so that the unique index makes emails unique case-insensitively.
  email          text NOT NULL,
  display_name   text NOT NULL,
  password_hash  text NOT NULL,
  role           text NOT NULL,
  disabled_at    timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  last_login_at  timestamptz,
  CONSTRAINT users_role_check CHECK (role IN ('reader', 'author', 'admin')),
  CONSTRAINT users_email_lower_check CHECK (email = lower(email))
);
CREATE UNIQUE INDEX users_email_key ON users (email);
CREATE INDEX users_role_idx ON users (role);

-- Failed logins per email (known or not, so that a lockout does not reveal which accounts exist).
CREATE TABLE login_attempts (
  email            text PRIMARY KEY,
  failures         integer NOT NULL DEFAULT 0,
  locked_until     timestamptz,
  last_failure_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE user_sessions (
  sid         text PRIMARY KEY,
  user_id     uuid REFERENCES users (id) ON DELETE CASCADE,
  data        jsonb NOT NULL,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX user_sessions_user_idx ON user_sessions (user_id);
CREATE INDEX user_sessions_expires_at_idx ON user_sessions (expires_at);

CREATE TABLE api_tokens (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name          text NOT NULL,
  -- The first characters of the token, shown in lists so that people can tell their tokens apart.
  prefix        text NOT NULL,
  -- SHA-256 (hex) of the whole token; the token itself is shown once and never stored.
  token_hash    text NOT NULL,
  scopes        text[] NOT NULL,
  expires_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
CREATE UNIQUE INDEX api_tokens_token_hash_key ON api_tokens (token_hash);
CREATE INDEX api_tokens_user_idx ON api_tokens (user_id);

-- Generated once and shared by every app process: the session secret (when KURATE_SESSION_SECRET is unset)
-- and the one-time setup code (while no admin exists).
CREATE TABLE server_secrets (
  name        text PRIMARY KEY,
  value       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Who did what, when and from where. Append-only: the trigger below refuses UPDATE, DELETE and TRUNCATE.
CREATE TABLE audit_log (
  id             bigserial PRIMARY KEY,
  at             timestamptz NOT NULL DEFAULT now(),
  -- No foreign key: an audit row outlives anything it names.
  actor_user_id  uuid,
  actor_name     text NOT NULL,
  action         text NOT NULL,
  target         text,
  details        jsonb NOT NULL DEFAULT '{}'::jsonb,
  ip             text
);
CREATE INDEX audit_log_at_idx ON audit_log (at);
CREATE INDEX audit_log_action_idx ON audit_log (action);
CREATE INDEX audit_log_actor_name_idx ON audit_log (actor_name);

CREATE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();

-- migrate:down
DROP TABLE audit_log;
DROP FUNCTION audit_log_refuse_change();
DROP TABLE server_secrets;
DROP TABLE api_tokens;
DROP TABLE user_sessions;
DROP TABLE login_attempts;
DROP TABLE users;
