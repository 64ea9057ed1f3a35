#!/usr/bin/env bash
# Installs pgvector into the local Debian PostgreSQL (bookworm ships no binary package): builds Debian trixie's
# pgvector source package against postgresql-server-dev, with a private apt configuration so /etc/apt stays untouched.
# Safe to run again: it does nothing when the extension is already installed. Run as root.
set -euo pipefail

PG_MAJOR="${PG_MAJOR:-$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -n1)}"
SUITE="${PGVECTOR_SOURCE_SUITE:-trixie}"

if [ "$(id -u)" -ne 0 ]; then
  echo "install-pgvector: run as root (sudo bash bin/install-pgvector.sh)" >&2
  exit 1
fi

if [ -z "$PG_MAJOR" ]; then
  echo "install-pgvector: installing PostgreSQL (none found)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  PG_MAJOR="$(ls /usr/lib/postgresql | sort -n | tail -n1)"
fi

if [ -f "/usr/share/postgresql/$PG_MAJOR/extension/vector.control" ]; then
  echo "install-pgvector: pgvector is already installed for PostgreSQL $PG_MAJOR"
  exit 0
fi

echo "install-pgvector: building pgvector for PostgreSQL $PG_MAJOR from Debian $SUITE sources"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  "postgresql-server-dev-$PG_MAJOR" build-essential dpkg-dev ca-certificates >/dev/null

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $SUITE main" > "$work/src.list"
apt_private=(-o "Dir::Etc::SourceList=$work/src.list" -o Dir::Etc::SourceParts=/nonexistent
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache")
apt-get "${apt_private[@]}" update -qq
(cd "$work/src" && apt-get "${apt_private[@]}" source -qq pgvector >/dev/null)

src_dir="$(echo "$work"/src/pgvector-*/)"
pg_config="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
make -s -C "$src_dir" PG_CONFIG="$pg_config" >/dev/null
make -s -C "$src_dir" install PG_CONFIG="$pg_config" >/dev/null
echo "install-pgvector: installed pgvector $(basename "$src_dir" | sed 's/pgvector-//') for PostgreSQL $PG_MAJOR"

# Installing server-dev can upgrade the server package in place and stop the cluster.
if command -v pg_ctlcluster >/dev/null && ! pg_lsclusters -h 2>/dev/null | grep -q online; then
  for cluster in $(pg_lsclusters -h | awk '{print $1"/"$2}'); do
    pg_ctlcluster --skip-systemctl-redirect "${cluster%/*}" "${cluster#*/}" start || true
  done
fi
