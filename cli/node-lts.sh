# Sourced (bash) by ./runnel and test/run-all.sh: makes `node`, `npm` and `npx`
# on PATH the Node.js line Runnel supports and tests, the Active LTS 26.x
# (Active LTS from 2026-10-28, maintenance from 2027-10-20, end of life
# 2029-04-30; Node 20 reached end of life on 2026-04-30).
#
#   runnel_use_node_lts ROOT
#
# A `node` on PATH of major 26 or newer is used as it is. Otherwise a pinned
# Node 26 (the npm registry's node-linux-<arch> package: the official binary)
# and a pinned npm (the one Node 20.20 ships, so `npm ci` behaves as before)
# are fetched once into ROOT/.cache/node/, checked against the sha512 below,
# and put first on PATH, with node-gyp's nodedir at its headers (should an
# addon ever need building, node-gyp uses them instead of downloading
# headers; today every native dependency installs prebuilt). Needs curl or
# wget, tar and sha512sum; Linux x64 or arm64. Bump a version together with
# its sums.
RUNNEL_NODE_MAJOR=26
RUNNEL_NODE_VERSION=26.12.1
RUNNEL_NPM_VERSION=11.19.1
# sha512 of the registry tarballs (the `dist.integrity` npm prints, in hex).
RUNNEL_NODE_SHA512_x64=8e4e4b3009a01e53e53cc5a9b14ad23aa35a1191bed7550d777e61590fa9e7f5c669e956b93a89ebd21c032ff9c6d3cf37877965104d38607a80b30287690bf4
RUNNEL_NODE_SHA512_arm64=f0ec6ce98eeb0dc2ae7d520cff36114b0cad8f8e963ab664ef21422d328372cd7b6c18c0783f47300aa8f7b84c7cccb1a3322e7744b8bd90ace5607fde26af35
RUNNEL_NPM_SHA512=cedb312b1b7f92421a02cfb68b4194e88f8346651dacd6acc5364a25ef5309d4a32b19616a1ff8aff865e7280c0fa5c0835a99f5cd93368991e2a80ec9da75d2
RUNNEL_NPM_REGISTRY="${RUNNEL_NPM_REGISTRY:-https://registry.npmjs.org}"

_runnel_node_log() { printf '[runnel] %s\n' "$*" >&2; }

# _runnel_fetch URL SHA512 FILE: downloads URL to FILE and checks its sha512.
_runnel_fetch() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 3 -o "$3" "$1" || return 1
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$3" "$1" || return 1
  else
    _runnel_node_log "need curl or wget to fetch $1"; return 1
  fi
  echo "$2  $3" | sha512sum -c --status - || { _runnel_node_log "sha512 mismatch for $1"; return 1; }
}

runnel_use_node_lts() {
  local root="$1" have
  have="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if [ "$have" -ge "$RUNNEL_NODE_MAJOR" ] 2>/dev/null; then return 0; fi
  local dir="$root/.cache/node/node-v$RUNNEL_NODE_VERSION-npm-v$RUNNEL_NPM_VERSION"
  if [ ! -x "$dir/bin/node" ] || [ ! -e "$dir/bin/npm" ] || [ ! -f "$dir/include/node/node_api.h" ]; then
    local arch sum
    case "$(uname -s)-$(uname -m)" in
      Linux-x86_64) arch=x64; sum="$RUNNEL_NODE_SHA512_x64" ;;
      Linux-aarch64|Linux-arm64) arch=arm64; sum="$RUNNEL_NODE_SHA512_arm64" ;;
      *) _runnel_node_log "Node.js $RUNNEL_NODE_MAJOR or newer is needed (found: ${have/#0/none}); install it and rerun"; return 1 ;;
    esac
    _runnel_node_log "node on PATH: $(node --version 2>/dev/null || echo none), older than $RUNNEL_NODE_MAJOR (the Active LTS): fetching Node $RUNNEL_NODE_VERSION and npm $RUNNEL_NPM_VERSION into ${dir#"$root"/} (once)"
    local tmp="$dir.tmp.$$"
    rm -rf "$tmp" && mkdir -p "$tmp/bin" "$tmp/lib/node_modules/npm" || return 1
    if ! _runnel_fetch "$RUNNEL_NPM_REGISTRY/node-linux-$arch/-/node-linux-$arch-$RUNNEL_NODE_VERSION.tgz" "$sum" "$tmp/node.tgz" \
       || ! _runnel_fetch "$RUNNEL_NPM_REGISTRY/npm/-/npm-$RUNNEL_NPM_VERSION.tgz" "$RUNNEL_NPM_SHA512" "$tmp/npm.tgz" \
       || ! tar -xzf "$tmp/node.tgz" -C "$tmp" --strip-components=1 package/bin/node package/LICENSE package/include \
       || ! tar -xzf "$tmp/npm.tgz" -C "$tmp/lib/node_modules/npm" --strip-components=1 \
       || ! "$tmp/bin/node" --version >/dev/null; then
      rm -rf "$tmp"; _runnel_node_log "could not install Node $RUNNEL_NODE_VERSION"; return 1
    fi
    # The layout of Node's own release tarballs: npm and npx beside node.
    ln -s ../lib/node_modules/npm/bin/npm-cli.js "$tmp/bin/npm"
    ln -s ../lib/node_modules/npm/bin/npx-cli.js "$tmp/bin/npx"
    rm -f "$tmp/node.tgz" "$tmp/npm.tgz"
    rm -rf "$dir" && mv "$tmp" "$dir" || return 1
  fi
  export PATH="$dir/bin:$PATH"
  export npm_package_config_node_gyp_nodedir="$dir"
}
