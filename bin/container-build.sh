#!/usr/bin/env bash
# The container image's steps, in one place: the Dockerfile runs them to build and start the image, and CI (.ci/run)
# runs them on its own machine, which has no container engine, against a fresh PostgreSQL database (docs/operations.md).
#
#   bin/container-build.sh install   npm ci: the exact dependencies of package-lock.json
#   bin/container-build.sh build     compile to dist/, then drop the dev dependencies (production deps only)
#   bin/container-build.sh migrate   apply pending migrations to DATABASE_URL (or the embedded database) and exit
#   bin/container-build.sh start     the server (KURATE_ROLE=web|worker|all says which part)
#   bin/container-build.sh health    exit 0 when /health on PORT (default 3000) answers 200: the image's HEALTHCHECK
#   bin/container-build.sh check     CI: every step above in order, the server started in the background until healthy
set -euo pipefail
cd "$(dirname "$0")/.."

health() {
  node -e '
    const port = process.env.PORT || "3000";
    fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(4000) })
      .then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1));'
}

case "${1:-}" in
  install)
    npm ci --no-audit --no-fund --loglevel=error
    ;;
  build)
    npm run build
    npm prune --omit=dev --no-audit --no-fund --loglevel=error
    ;;
  migrate)
    node dist/migrate.js
    ;;
  start)
    exec node --max-semi-space-size=64 dist/main.js
    ;;
  health)
    health
    ;;
  check)
    : "${DATABASE_URL:?check needs DATABASE_URL: the database the started server uses}"
    started=$(date +%s)
    "$0" install
    "$0" build
    "$0" migrate
    export PORT="${PORT:-3999}" KURATE_ROLE="${KURATE_ROLE:-all}"
    log="$(mktemp)"
    node --max-semi-space-size=64 dist/main.js >"$log" 2>&1 &
    server=$!
    trap 'kill "$server" 2>/dev/null || true; rm -f "$log"' EXIT
    for _ in $(seq 1 240); do
      if health; then
        echo "container-build: install, build, migrate, start and /health on port $PORT in $(( $(date +%s) - started )) s"
        exit 0
      fi
      if ! kill -0 "$server" 2>/dev/null; then break; fi
      sleep 0.5
    done
    echo "container-build: the server did not become healthy; its output:" >&2
    cat "$log" >&2
    exit 1
    ;;
  *)
    echo "usage: bin/container-build.sh install|build|migrate|start|health|check" >&2
    exit 2
    ;;
esac
