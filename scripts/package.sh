#!/usr/bin/env bash
# Builds Folio's Debian package, dist/folio_VERSION_ARCH.deb: the desktop app, the `folio` CLI, the
# converter worker, PDFium, both embedding models and every third-party licence, laid out as
#
#   /usr/bin/folio-desktop, /usr/bin/folio
#   /usr/lib/folio/folio-convert-worker
#   /usr/lib/folio/assets/{minilm,potion-base-2M,pdfium}/…   (found from /usr/bin without variables)
#   /usr/share/applications/folio.desktop, /usr/share/icons/hicolor/*/apps/folio.png
#   /usr/share/doc/folio/{copyright,changelog.gz,licences/…}
#
# The binaries are built with the `dist` profile (Cargo.toml) into $FOLIO_PACKAGE_TARGET (default
# ~/.cache/folio-package-target, apart from the development build). `Depends:` is worked out from
# the libraries the ELF files load (ldd, then the Debian packages that own them; with dpkg-dev,
# dpkg-shlibdeps adds the least versions). Needs dpkg-deb. Where rpmbuild is installed, the same
# tree is also packed as dist/folio-VERSION-1.ARCH.rpm. No AppImage (see README, "Packages").
#
# Usage: scripts/package.sh            (prints the package's path and its dpkg-deb -I summary)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$FOLIO_ROOT"
require_cargo
command -v dpkg-deb >/dev/null || die "dpkg-deb is needed (Debian or Ubuntu)"
# What the build needs, and dpkg-dev for dpkg-shlibdeps (the versioned Depends:). rpmbuild stays
# optional: without it there is no .rpm.
ensure_apt_packages "${FOLIO_BUILD_PACKAGES[@]}" dpkg-dev
export CARGO_TARGET_DIR=${FOLIO_PACKAGE_TARGET:-$HOME/.cache/folio-package-target}

VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
ARCH=$(dpkg --print-architecture)
[ -n "$VERSION" ] || die "no version in Cargo.toml"

bash scripts/setup-assets.sh
build_ui
say "building the binaries (profile dist, into $CARGO_TARGET_DIR)"
cargo build --profile dist --workspace
BIN=$CARGO_TARGET_DIR/dist
ASSETS=$(folio_assets_dir)

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
ROOT=$STAGE/folio_${VERSION}_${ARCH}
LIB=$ROOT/usr/lib/folio
DOC=$ROOT/usr/share/doc/folio

install -Dm755 "$BIN/folio-desktop" "$ROOT/usr/bin/folio-desktop"
install -Dm755 "$BIN/folio" "$ROOT/usr/bin/folio"
install -Dm755 "$BIN/folio-convert-worker" "$LIB/folio-convert-worker"
# The profile keeps symbols (changing it rebuilds everything); the package does not need them.
if command -v strip >/dev/null; then
  strip --strip-unneeded "$ROOT/usr/bin/folio-desktop" "$ROOT/usr/bin/folio" "$LIB/folio-convert-worker"
fi
for f in minilm/model.safetensors minilm/config.json minilm/vocab.txt minilm/tokenizer.json \
  potion-base-2M/model.safetensors potion-base-2M/config.json potion-base-2M/tokenizer.json; do
  install -Dm644 "$ASSETS/$f" "$LIB/assets/$f"
done
install -Dm755 "$ASSETS/pdfium/libpdfium.so" "$LIB/assets/pdfium/libpdfium.so"
# The licences the About panel shows, beside the assets they cover.
for f in minilm/LICENSE minilm/NOTICE licences/pdfium/LICENSES/BSD-3-Clause.txt; do
  install -Dm644 "$ASSETS/$f" "$LIB/assets/$f"
done

# Licences: Folio's own, the models', PDFium's and what its build compiles in.
install -Dm644 "$ASSETS/minilm/LICENSE" "$DOC/licences/all-MiniLM-L6-v2/LICENSE"
install -Dm644 "$ASSETS/minilm/NOTICE" "$DOC/licences/all-MiniLM-L6-v2/NOTICE"
(cd "$ASSETS/licences/pdfium" && find . -type f -print0) | while IFS= read -r -d '' f; do
  install -Dm644 "$ASSETS/licences/pdfium/$f" "$DOC/licences/pdfium/$f"
done
install -Dm644 /dev/stdin "$DOC/licences/potion-base-2M/README" <<'EOT'
potion-base-2M (Minish Lab, model2vec static embeddings) is shipped as the crates.io package
yantrikdb 0.23.4 redistributes it (assets/potion-base-2M), under that package's declared licence,
Apache-2.0; the Apache-2.0 text is in ../all-MiniLM-L6-v2/LICENSE.
EOT
install -Dm644 /dev/stdin "$DOC/copyright" <<EOT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: Folio

Files: usr/bin/* usr/lib/folio/folio-convert-worker
License: Apache-2.0
Comment: Folio and the Rust crates it links; the crates' licences are permissive (MIT, Apache-2.0,
 BSD, Zlib, Unicode) and listed by \`cargo metadata\` in the source.

Files: usr/lib/folio/assets/minilm/*
Copyright: sentence-transformers/all-MiniLM-L6-v2
License: Apache-2.0
Comment: licences/all-MiniLM-L6-v2/{LICENSE,NOTICE}

Files: usr/lib/folio/assets/potion-base-2M/*
License: Apache-2.0
Comment: licences/potion-base-2M/README

Files: usr/lib/folio/assets/pdfium/libpdfium.so
License: BSD-3-Clause and Apache-2.0, with the licences of its compiled-in libraries
Comment: licences/pdfium/ (from the pypdfium2 5.15.2 wheel)

License: Apache-2.0
 On Debian systems the full text is in /usr/share/common-licenses/Apache-2.0.
EOT
gzip -9n <CHANGELOG.md >"$STAGE/changelog.gz"
install -Dm644 "$STAGE/changelog.gz" "$DOC/changelog.gz"

# Menu entry, "Open with" for the formats Folio reads, and the icon.
install -Dm644 /dev/stdin "$ROOT/usr/share/applications/folio.desktop" <<'EOT'
[Desktop Entry]
Type=Application
Name=Folio
GenericName=Document research
Comment=Search PDFs, Word files, HTML, EPUB, Markdown and text offline, with their structure
Exec=folio-desktop %F
Icon=folio
Terminal=false
Categories=Office;Viewer;Education;
Keywords=search;pdf;regulation;rulebook;definitions;cross-reference;
MimeType=application/pdf;application/vnd.openxmlformats-officedocument.wordprocessingml.document;application/epub+zip;text/html;application/xhtml+xml;text/markdown;text/plain;
StartupWMClass=folio-desktop
EOT
install -Dm644 icons/32x32.png "$ROOT/usr/share/icons/hicolor/32x32/apps/folio.png"
install -Dm644 icons/128x128.png "$ROOT/usr/share/icons/hicolor/128x128/apps/folio.png"
install -Dm644 icons/128x128@2x.png "$ROOT/usr/share/icons/hicolor/256x256/apps/folio.png"

# Depends: the Debian packages owning every library the ELF files load.
owner() {
  local p=$1 q
  for q in "$p" "$(readlink -f "$p")" "${p#/usr}" "/usr$p"; do
    dpkg -S "$q" 2>/dev/null | head -n1 | cut -d: -f1 && return 0
  done
  return 1
}
# Only the libraries each file names itself (DT_NEEDED), found where the loader would find them;
# what those load in turn is their packages' business.
needed_paths() {
  local elf=$1 so
  for so in $(objdump -p "$elf" 2>/dev/null | awk '$1 == "NEEDED" {print $2}'); do
    ldd "$elf" 2>/dev/null | awk -v so="$so" '$1 == so && $3 ~ /^\// {print $3}'
  done
}
DEPS=$(
  find "$ROOT/usr/bin" "$LIB" -type f \( -perm -u+x -o -name '*.so' \) -print0 |
    while IFS= read -r -d '' f; do needed_paths "$f"; done | sort -u |
    while read -r lib; do owner "$lib" || warn "no Debian package owns $lib"; done | sort -u | paste -sd, - | sed 's/,/, /g'
)
[ -n "$DEPS" ] || die "could not work out the package's dependencies"
# With dpkg-dev, the same packages with the least versions the binaries need (from the symbols
# they use), as Debian's own packages declare them.
if command -v dpkg-shlibdeps >/dev/null; then
  mkdir -p "$STAGE/shlibs/debian"
  printf 'Source: folio\n\nPackage: folio\nArchitecture: %s\n' "$ARCH" >"$STAGE/shlibs/debian/control"
  mapfile -d '' elves < <(find "$ROOT/usr/bin" "$LIB" -type f \( -perm -u+x -o -name '*.so' \) -print0)
  versioned=$(cd "$STAGE/shlibs" && dpkg-shlibdeps -O "${elves[@]/#/-e}" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
  if [ -n "$versioned" ]; then
    DEPS=$versioned
  else
    warn "dpkg-shlibdeps gave nothing; Depends without versions"
  fi
fi
SIZE=$(du -sk "$ROOT/usr" | cut -f1)
install -Dm644 /dev/stdin "$ROOT/DEBIAN/control" <<EOT
Package: folio
Version: $VERSION
Architecture: $ARCH
Maintainer: Folio developers <folio@localhost>
Installed-Size: $SIZE
Depends: $DEPS
Section: utils
Priority: optional
Homepage: https://localhost/folio
Description: offline document research with structure
 Folio reads PDFs, Word files, HTML, EPUB, Markdown and text, recovers their structure (parts,
 chapters, sections, numbered rules, tables), and searches them offline: hybrid search with the
 section and page of every hit, defined terms, and cross-references followed across documents.
EOT

mkdir -p dist
OUT=dist/folio_${VERSION}_${ARCH}.deb
dpkg-deb --root-owner-group -Zxz --build "$ROOT" "$OUT" >/dev/null
say "built $OUT ($(du -h "$OUT" | cut -f1))"
dpkg-deb -I "$OUT"

# The same tree as an .rpm (Fedora, openSUSE) where rpmbuild is installed (Debian's `rpm`
# package); its Requires are worked out by rpm from the libraries' sonames, as any RPM distribution
# resolves them.
RPM_OUT=
if command -v rpmbuild >/dev/null; then
  RPM_TOP=$STAGE/rpm
  mkdir -p "$RPM_TOP"/{BUILD,RPMS,SOURCES,SPECS,SRPMS}
  RPM_VERSION=${VERSION//-/_}
  {
    cat <<EOT
Name: folio
Version: $RPM_VERSION
Release: 1
Summary: Offline document research with structure
License: Apache-2.0 AND BSD-3-Clause
URL: https://localhost/folio
AutoReqProv: yes
%global debug_package %{nil}
%global __strip /bin/true
%global _build_id_links none
%global __provides_exclude_from ^/usr/lib/folio/.*\$
%global _binary_payload w6T.xzdio

%description
Folio reads PDFs, Word files, HTML, EPUB, Markdown and text, recovers their structure (parts,
chapters, sections, numbered rules, tables), and searches them offline: hybrid search with the
section and page of every hit, defined terms, and cross-references followed across documents.

%install
mkdir -p %{buildroot}
cp -a "$ROOT/usr" %{buildroot}/

%files
EOT
    (cd "$ROOT" && find usr -type f -o -type l) | sort | sed 's|^|/|'
  } >"$RPM_TOP/SPECS/folio.spec"
  if rpmbuild --quiet -bb --define "_topdir $RPM_TOP" --define "_rpmdir $FOLIO_ROOT/dist" \
    --define "_build_name_fmt %%{NAME}-%%{VERSION}-%%{RELEASE}.%%{ARCH}.rpm" \
    "$RPM_TOP/SPECS/folio.spec" >"$STAGE/rpmbuild.log" 2>&1; then
    RPM_OUT=$(ls -t dist/folio-"$RPM_VERSION"-1.*.rpm | head -n1)
    say "built $RPM_OUT ($(du -h "$RPM_OUT" | cut -f1)); Requires: $(rpm -qp --requires "$RPM_OUT" 2>/dev/null | grep -v "^rpmlib\|GLIBC\|GCC_\|LIBDBUS\|rtld" | paste -sd" " -)"
  else
    tail -20 "$STAGE/rpmbuild.log" >&2
    die "rpmbuild failed"
  fi
else
  say "no .rpm: rpmbuild is not installed (apt-get install rpm)"
fi
echo "$OUT"
[ -z "$RPM_OUT" ] || echo "$RPM_OUT"
