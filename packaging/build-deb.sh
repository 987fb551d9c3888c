#!/bin/sh
# SPDX-License-Identifier: MIT
# Assembles the Debian source package of this tree and builds it:
#   packaging/build-deb.sh [OUTDIR]      (default build-deb/ beside it)
# The source is the tree's tracked files (git ls-files; every file when
# it is no git checkout) with packaging/debian as debian/, the package
# version the project's (meson.build). Then dpkg-buildpackage -us -uc
# (source and binary packages, unsigned) and lintian on the result.
# DEB_BUILD_OPTIONS defaults to nocheck: the full suite needs the
# generated fixtures and Python producers; set DEB_BUILD_OPTIONS= to run
# the unit suite during the build.
# Needs: dpkg-dev, debhelper (>= 13), lintian and the Build-Depends of
# packaging/debian/control.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=${1:-$top/build-deb}
version=$(sed -n "s/^  version: '\([^']*\)'.*/\1/p" "$top/meson.build" | head -n 1)
[ -n "$version" ] || { echo "build-deb: no version in meson.build" >&2; exit 1; }
src=$out/quantaudit-$version

rm -rf "$out"
mkdir -p "$src"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard) |
		(cd "$top" && xargs -0 cp --parents -t "$src")
else
	(cd "$top" && tar --exclude='./build*' -cf - .) | (cd "$src" && tar -xf -)
fi
rm -rf "$src/debian"
cp -r "$here/debian" "$src/debian"
rm -rf "$src/packaging"

# The changelog: this version, dated now (dch is not needed).
cat >"$src/debian/changelog" <<CHANGELOG
quantaudit ($version) unstable; urgency=medium

  * Release $version.

 -- quantaudit developers <quantaudit@users.noreply.github.com>  $(date -R)
CHANGELOG

cd "$src"
DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS-nocheck} dpkg-buildpackage -us -uc
cd "$out"
changes=$(ls quantaudit_"$version"_*.changes)
echo "build-deb: $out/$changes"
if command -v lintian >/dev/null; then
	# errors fail the script; warnings are printed
	lintian --fail-on error "$changes"
fi
