#!/usr/bin/env bash
# Installs what the archiver tests and benchmark need (idempotent, quick when present):
#   - redis-server (Debian package)
#   - Python venv .cache/venv with deltalake + pyarrow (delta-rs reader) and
#     moto[server] + boto3 (the S3-compatible server; test/archiver/integration/s3_server.py
#     runs it with mutating requests serialised so If-None-Match is atomic)
#   - a check that the S3 server ENFORCES `If-None-Match: *` (412 on the second PUT)
# test/setup/install.sh (another engineer's) creates the same venv with deltalake and
# pyarrow; this script only adds what is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
VENV="$ROOT/.cache/venv"
PY_REQS=(deltalake==1.6.6 pyarrow==26.0.1 'moto[server]==5.2.5' boto3==1.44.8)

log() { printf '[install-archiver] %s\n' "$*" >&2; }
die() { printf '[install-archiver] ERROR: %s\n' "$*" >&2; exit 1; }

if ! command -v redis-server >/dev/null 2>&1; then
  log "apt-get install redis-server"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || true
  apt-get install -y -qq redis-server >/dev/null || die "cannot install redis-server"
fi

if [ ! -x "$VENV/bin/python" ]; then
  log "creating $VENV"
  python3 -m venv "$VENV" || die "python3 -m venv failed"
fi
if ! "$VENV/bin/python" -c 'import deltalake, pyarrow, moto, boto3, werkzeug' 2>/dev/null; then
  log "pip install ${PY_REQS[*]}"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${PY_REQS[@]}" || die "pip install failed"
fi

# verify If-None-Match enforcement on the S3 server the tests use
PORT=$("$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$VENV/bin/python" "$ROOT/test/archiver/integration/s3_server.py" "$PORT" >/dev/null 2>&1 &
SPID=$!
trap 'kill $SPID 2>/dev/null || true' EXIT
"$VENV/bin/python" - "$PORT" <<'PY' || die "S3 server does not enforce If-None-Match"
import sys, time
import boto3
from botocore.exceptions import ClientError
port = sys.argv[1]
s3 = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", aws_access_key_id="a",
                  aws_secret_access_key="b", region_name="us-east-1")
for _ in range(100):
    try:
        s3.create_bucket(Bucket="inm-check"); break
    except Exception:
        time.sleep(0.2)
s3.put_object(Bucket="inm-check", Key="k", Body=b"1", IfNoneMatch="*")
try:
    s3.put_object(Bucket="inm-check", Key="k", Body=b"2", IfNoneMatch="*")
    sys.exit("second conditional PUT succeeded")
except ClientError as e:
    code = e.response["ResponseMetadata"]["HTTPStatusCode"]
    if code != 412:
        sys.exit(f"expected 412, got {code}")
assert s3.get_object(Bucket="inm-check", Key="k")["Body"].read() == b"1"
PY
log "ok: redis-server, deltalake, pyarrow, moto (If-None-Match enforced)"
