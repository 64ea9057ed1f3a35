-- migrate:up

-- ---------------------------------------------------------------------------------------------------------------
-- Every web process keeps the sessions it has read (src/auth/session.store.ts) instead of reading the session and
-- its user again on each request: a logged-in page view cost a database round trip for a row that changes at
-- login, logout and little else. A process must then hear, before its next request, that another process (or the
-- CLI) changed or ended a session or changed its user. These triggers NOTIFY `kurate_sessions` in the writer's
-- transaction (delivered when it commits): `s:<sid>` for a session updated or deleted, `u:<user id>` for a user whose
-- name, role or disabled state changed or who was deleted, `*` when one statement ended more than 20 sessions (the
-- hourly sweep of expired ones, or a user with many): forget every kept session.
-- ---------------------------------------------------------------------------------------------------------------
CREATE FUNCTION kurate_sessions_notify() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
DECLARE
  ended integer;
BEGIN
  SELECT count(*) INTO ended FROM gone;
  IF ended > 20 THEN
    PERFORM pg_notify('kurate_sessions', '*');
  ELSE
    PERFORM pg_notify('kurate_sessions', 's:' || g.sid) FROM gone g;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER user_sessions_notify_update AFTER UPDATE ON user_sessions
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION kurate_sessions_notify();
CREATE TRIGGER user_sessions_notify_delete AFTER DELETE ON user_sessions
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION kurate_sessions_notify();

CREATE FUNCTION kurate_session_users_notify() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM pg_notify('kurate_sessions', 'u:' || OLD.id::text);
  RETURN NULL;
END
$$;
CREATE TRIGGER users_sessions_notify AFTER UPDATE OF display_name, role, disabled_at OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION kurate_session_users_notify();

-- migrate:down
DROP TRIGGER users_sessions_notify ON users;
DROP FUNCTION kurate_session_users_notify();
DROP TRIGGER user_sessions_notify_delete ON user_sessions;
DROP TRIGGER user_sessions_notify_update ON user_sessions;
DROP FUNCTION kurate_sessions_notify();
