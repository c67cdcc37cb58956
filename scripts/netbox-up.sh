#!/usr/bin/env bash
# A local NetBox for the integration tests (tests/netbox, marker `netbox`).
#
#   scripts/netbox-up.sh up      install (first time) and start; prints the env file
#   scripts/netbox-up.sh down    stop NetBox, PostgreSQL and Redis (state kept)
#   scripts/netbox-up.sh status  what runs, and the env file
#   scripts/netbox-up.sh purge   stop and delete the whole state folder
#
# NetBox $NETBOX_VERSION from PyPI in a venv of a Python >= 3.12 it finds
# (CLUSTER_DESIGNER_NETBOX_PYTHON, python3.13/python3.12 on PATH, pyenv's
# versions; else `pyenv install` when pyenv is there), PostgreSQL and Redis from
# the system's packages (Debian: postgresql redis-server; installed with apt-get
# when missing and run as root). Everything lives in the state folder
# CLUSTER_DESIGNER_NETBOX_STATE (default ~/.cache/cluster-designer/netbox):
# a private PostgreSQL cluster on a Unix socket there, Redis on 127.0.0.1 and
# NetBox's development server on 127.0.0.1:$CLUSTER_DESIGNER_NETBOX_PORT (8790).
#
# `up` writes $STATE/netbox.env, which the tests read (or source it):
#   CLUSTER_DESIGNER_NETBOX_URL, _TOKEN (API, "Token <t>"), _USER, _PASSWORD.
# First start: pip install, migrations and static files, 5-15 minutes on a
# busy machine; later starts take seconds. Run it under `nice`.
set -euo pipefail

NETBOX_VERSION=${CLUSTER_DESIGNER_NETBOX_VERSION:-4.7.3}
STATE=${CLUSTER_DESIGNER_NETBOX_STATE:-${XDG_CACHE_HOME:-$HOME/.cache}/cluster-designer/netbox}
PORT=${CLUSTER_DESIGNER_NETBOX_PORT:-8790}
REDIS_PORT=${CLUSTER_DESIGNER_NETBOX_REDIS_PORT:-6390}
PG_PORT=${CLUSTER_DESIGNER_NETBOX_PG_PORT:-5439}
USER_NAME=admin
ENV_FILE=$STATE/netbox.env

say() { echo "netbox-up: $*" >&2; }
die() {
  say "$*"
  exit 1
}

pg_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && echo "$d" && return 0
  done
  return 1
}

need_system_packages() {
  local missing=()
  pg_bin >/dev/null || missing+=(postgresql)
  command -v redis-server >/dev/null || missing+=(redis-server)
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null
  else
    die "need ${missing[*]} (Debian: apt-get install postgresql redis-server)"
  fi
}

find_python() {
  local c v
  for c in "${CLUSTER_DESIGNER_NETBOX_PYTHON:-}" python3.13 python3.12 \
    "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3; do
    [ -n "$c" ] || continue
    command -v "$c" >/dev/null 2>&1 || [ -x "$c" ] || continue
    v=$("$c" -c 'import sys; print(int(sys.version_info >= (3, 12)))' 2>/dev/null) || continue
    [ "$v" = 1 ] && echo "$c" && return 0
  done
  if command -v pyenv >/dev/null; then
    say "no Python >= 3.12 found; building 3.12 with pyenv (slow)"
    pyenv install -s 3.12 >&2
    c=$(pyenv prefix 3.12)/bin/python3
    [ -x "$c" ] && echo "$c" && return 0
  fi
  return 1
}

as_pg() {
  # PostgreSQL refuses to run as root: run its tools as the postgres user then
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

install_netbox() {
  mkdir -p "$STATE"
  if [ ! -x "$STATE/venv/bin/netbox" ]; then
    local py
    py=$(find_python) || die "no Python >= 3.12 (set CLUSTER_DESIGNER_NETBOX_PYTHON)"
    say "NetBox $NETBOX_VERSION into $STATE/venv ($py)"
    "$py" -m venv "$STATE/venv"
    "$STATE/venv/bin/pip" install -q "netbox==$NETBOX_VERSION"
  fi
}

configure() {
  local root=$STATE/root
  mkdir -p "$root/conf" "$STATE/run" "$STATE/log"
  if [ ! -f "$root/conf/configuration.py" ]; then
    local secret
    secret=$("$STATE/venv/bin/python" -c 'import secrets; print(secrets.token_urlsafe(50))')
    : >"$root/conf/__init__.py"
    cat >"$root/conf/configuration.py" <<EOF
# Written by scripts/netbox-up.sh: a throwaway NetBox for tests.
ALLOWED_HOSTS = ['127.0.0.1', 'localhost']
DATABASES = {
    'default': {
        'NAME': 'netbox',
        'USER': 'netbox',
        'PASSWORD': '',
        'HOST': '$STATE/run',
        'PORT': '$PG_PORT',
        'CONN_MAX_AGE': 300,
    }
}
REDIS = {
    'tasks': {'HOST': '127.0.0.1', 'PORT': $REDIS_PORT, 'DATABASE': 0, 'SSL': False},
    'caching': {'HOST': '127.0.0.1', 'PORT': $REDIS_PORT, 'DATABASE': 1, 'SSL': False},
}
SECRET_KEY = '$secret'
DEBUG = False
CHANGELOG_RETENTION = 0
EOF
  fi
}

start_postgres() {
  local bin data=$STATE/pg
  bin=$(pg_bin) || die "PostgreSQL not installed"
  if [ ! -f "$data/PG_VERSION" ]; then
    mkdir -p "$data"
    [ "$(id -u)" = 0 ] && chown postgres "$data" "$STATE/run"
    as_pg "$bin/initdb" -D "$data" -U postgres -A trust >"$STATE/log/initdb.log"
  fi
  [ "$(id -u)" = 0 ] && chown postgres "$STATE/run"
  if ! as_pg "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    as_pg "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w start \
      -o "-k $STATE/run -p $PG_PORT -c listen_addresses='' -c fsync=off \
          -c synchronous_commit=off -c full_page_writes=off" >/dev/null
  fi
  local psql=("$bin/psql" -h "$STATE/run" -p "$PG_PORT" -U postgres -qtA)
  if [ "$("${psql[@]}" -c "select 1 from pg_roles where rolname='netbox'")" != 1 ]; then
    "${psql[@]}" -c "create user netbox" >/dev/null
    "${psql[@]}" -c "create database netbox owner netbox" >/dev/null
  fi
}

start_redis() {
  if ! redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$STATE" \
      --daemonize yes --pidfile "$STATE/run/redis.pid" \
      --logfile "$STATE/log/redis.log" --save "" --appendonly no
  fi
}

nb() { NETBOX_ROOT=$STATE/root "$STATE/venv/bin/netbox" "$@"; }

migrate() {
  local stamp=$STATE/root/.migrated-$NETBOX_VERSION
  if [ ! -f "$stamp" ]; then
    say "migrations and static files (first start: several minutes)"
    nb migrate --no-input >"$STATE/log/migrate.log"
    nb collectstatic --no-input >"$STATE/log/collectstatic.log"
    nb remove_stale_contenttypes --no-input >/dev/null 2>&1 || true
    touch "$stamp"
  fi
}

make_user() {
  # an admin with a password, and a v1 API token (NetBox makes its value)
  local password_file=$STATE/admin-password
  [ -f "$password_file" ] || "$STATE/venv/bin/python" -c \
    'import secrets; print(secrets.token_urlsafe(16))' >"$password_file"
  NB_USER=$USER_NAME NB_PASSWORD=$(cat "$password_file") \
    nb shell --no-imports -c '
import os
from users.models import Token, User
u, _ = User.objects.get_or_create(username=os.environ["NB_USER"])
u.is_superuser = u.is_staff = u.is_active = True
u.set_password(os.environ["NB_PASSWORD"])
u.save()
t = Token.objects.filter(user=u, version=1, description="cluster-designer tests").first()
if t is None:
    t = Token(user=u, version=1, description="cluster-designer tests")
    t.save()
print("TOKEN=" + t.plaintext)
' 2>/dev/null | sed -n 's/^TOKEN=//p' >"$STATE/api-token"
  [ -s "$STATE/api-token" ] || die "could not make the API token"
}

start_netbox() {
  if ! curl -fsS -o /dev/null "http://127.0.0.1:$PORT/login/" 2>/dev/null; then
    NETBOX_ROOT=$STATE/root nohup "$STATE/venv/bin/netbox" runserver --noreload \
      --insecure "127.0.0.1:$PORT" >"$STATE/log/netbox.log" 2>&1 &
    echo $! >"$STATE/run/netbox.pid"
    local i
    for i in $(seq 1 120); do
      curl -fsS -o /dev/null "http://127.0.0.1:$PORT/login/" 2>/dev/null && break
      sleep 1
    done
    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/login/" ||
      die "NetBox did not answer on port $PORT (see $STATE/log/netbox.log)"
  fi
  cat >"$ENV_FILE" <<EOF
export CLUSTER_DESIGNER_NETBOX_URL=http://127.0.0.1:$PORT
export CLUSTER_DESIGNER_NETBOX_TOKEN=$(cat "$STATE/api-token")
export CLUSTER_DESIGNER_NETBOX_USER=$USER_NAME
export CLUSTER_DESIGNER_NETBOX_PASSWORD=$(cat "$STATE/admin-password")
export CLUSTER_DESIGNER_NETBOX_VERSION=$NETBOX_VERSION
EOF
}

stop_all() {
  local pid bin
  if [ -f "$STATE/run/netbox.pid" ]; then
    pid=$(cat "$STATE/run/netbox.pid")
    kill "$pid" 2>/dev/null || true
    rm -f "$STATE/run/netbox.pid"
  fi
  if [ -f "$STATE/run/redis.pid" ]; then
    kill "$(cat "$STATE/run/redis.pid")" 2>/dev/null || true
  fi
  if bin=$(pg_bin) && [ -f "$STATE/pg/PG_VERSION" ]; then
    as_pg "$bin/pg_ctl" -D "$STATE/pg" -m fast stop >/dev/null 2>&1 || true
  fi
  rm -f "$ENV_FILE"
}

case "${1:-up}" in
up)
  need_system_packages
  install_netbox
  configure
  start_postgres
  start_redis
  migrate
  make_user
  start_netbox
  say "NetBox $NETBOX_VERSION at http://127.0.0.1:$PORT; env file $ENV_FILE"
  cat "$ENV_FILE"
  ;;
down) stop_all ;;
status)
  if [ -f "$ENV_FILE" ] && curl -fsS -o /dev/null "http://127.0.0.1:$PORT/login/" 2>/dev/null; then
    say "up at http://127.0.0.1:$PORT ($ENV_FILE)"
    cat "$ENV_FILE"
  else
    say "not running (state: $STATE)"
    exit 1
  fi
  ;;
purge)
  stop_all
  rm -rf "$STATE"
  ;;
*) die "usage: $0 up|down|status|purge" ;;
esac
