#!/usr/bin/env bash
# Builds nod's container image without a container engine or a registry:
# the static binary is built here, staged with CA certificates and /data
# in a root file system, and copied into an image FROM scratch
# (Containerfile) by buildah, which writes it as an archive.
#
#   scripts/image.sh [--check] [--docker] [--tag NAME] [ARCHIVE]
#
# ARCHIVE        where to write the image (default: nod-image.tar in a new
#                temporary folder; the path is printed)
# --docker       write a docker-archive (`docker load -i ARCHIVE`), which
#                keeps the HEALTHCHECK; the default OCI archive (`podman
#                load -i ARCHIVE`, skopeo, Docker 25 and later) cannot
#                hold one, so a compose file or `docker run
#                --health-cmd` has to give it
# --tag NAME     the image's name (default localhost/nod:latest: a
#                localhost/ name is never pulled from Docker Hub by mistake)
# --check        unpack the image and, under chroot as the image's user,
#                run /nod version, /nod help and /nod migrate on /data;
#                fail if one fails, if the binary is not static or if the
#                image would run as root (root only: chroot)
#
# Needs go, buildah; --check also jq, readelf (binutils) and chroot.
# GOARCH picks another architecture (--check then cannot run it).
# buildah keeps its storage in a temporary folder that is removed at the
# end, so nothing accumulates and parallel runs do not meet.
set -euo pipefail

usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "image.sh: $*" >&2; exit 1; }

check=false format=oci tag=localhost/nod:latest out=
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=true ;;
    --docker) format=docker ;;
    --tag) [ $# -ge 2 ] || die "--tag needs a name"; tag=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown flag $1 (--help lists them)" ;;
    *) [ -z "$out" ] || die "one archive path only"; out=$1 ;;
  esac
  shift
done

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
for tool in go buildah; do
  command -v "$tool" >/dev/null || die "$tool is missing (apt-get install buildah; Go from go.dev)"
done
if $check; then
  [ "$(id -u)" = 0 ] || die "--check runs the image under chroot, which needs root"
  for tool in jq readelf chroot; do
    command -v "$tool" >/dev/null || die "--check needs $tool (apt-get install jq binutils)"
  done
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/nod-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -z "$out" ]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/nod-image-out.XXXXXX")/nod-image.tar
fi
case "$out" in /*) ;; *) out=$PWD/$out ;; esac
mkdir -p "$(dirname "$out")"
rm -f "$out" # buildah refuses to write into an existing archive

buildah=(buildah --root "$work/storage" --runroot "$work/run" --storage-driver vfs)
arch=$(go env GOARCH)

# The binary: static (modernc SQLite needs no cgo), the zones compiled in
# (cmd/nod imports time/tzdata), no symbol tables (the build information
# `nod version` reads stays). -buildvcs=auto records the commit where the
# go command sees a git checkout, whatever GOFLAGS says.
echo "== go build ($arch)"
ctx=$work/context
mkdir -p "$ctx/rootfs/etc/ssl/certs" "$ctx/rootfs/tmp" "$ctx/owned/data"
CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath -buildvcs=auto -ldflags='-s -w' -o "$ctx/rootfs/nod" ./cmd/nod
chmod 1777 "$ctx/rootfs/tmp"
chmod 0755 "$ctx/owned/data"
certs=/etc/ssl/certs/ca-certificates.crt
[ -s "$certs" ] || die "$certs is missing (apt-get install ca-certificates)"
cp "$certs" "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnod:x:65532:65532:nod:/data:/sbin/nologin\n' >"$ctx/rootfs/etc/passwd"
printf 'root:x:0:\nnod:x:65532:\n' >"$ctx/rootfs/etc/group"

# Labels say what `nod version` says: the module's version and commit
# from the binary's build information, else git's view of the checkout.
info=$(go version -m "$ctx/rootfs/nod")
version=$(awk '$1 == "mod" { print $3 }' <<<"$info")
revision=$(awk '$1 == "build" && $2 ~ /^vcs.revision=/ { sub(/^vcs.revision=/, "", $2); print $2 }' <<<"$info")
if [ -n "$revision" ]; then
  ! grep -q 'vcs.modified=true' <<<"$info" || revision+=+dirty
elif revision=$(git rev-parse HEAD 2>/dev/null); then
  [ -z "$(git status --porcelain 2>/dev/null)" ] || revision+=+dirty
else
  revision=unknown
fi
[ -n "$version" ] && [ "$version" != "(devel)" ] || version=dev
# Layer times from the commit, so that the same commit builds the same
# layer; SOURCE_DATE_EPOCH overrides, as elsewhere.
stamp=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

echo "== buildah bud $tag ($version, $revision)"
"${buildah[@]}" bud --quiet --format docker --arch "$arch" --os linux --timestamp "$stamp" \
  --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
  -f "$root/Containerfile" -t "$tag" "$ctx" >/dev/null
"${buildah[@]}" inspect --type image "$tag" >"$work/image.json"

if [ "$format" = docker ]; then
  "${buildah[@]}" push --quiet "$tag" "docker-archive:$out:$tag"
else
  "${buildah[@]}" push --quiet "$tag" "oci-archive:$out:$tag"
fi
size=$(du -k "$out" | cut -f1)
echo "wrote $out ($format, $((size / 1024)) MiB)"

$check || exit 0

echo "== check"
fail() { echo "image.sh --check: $*" >&2; exit 1; }
# The OCI archive is a tar of blobs: index.json names the manifest, the
# manifest the config and the layers (gzipped tars), all by digest.
oci=$out
if [ "$format" = docker ]; then
  oci=$work/check.tar
  "${buildah[@]}" push --quiet "$tag" "oci-archive:$oci:$tag"
fi
layout=$work/layout rootfs=$work/rootfs
mkdir -p "$layout" "$rootfs"
tar -xf "$oci" -C "$layout"
blob() { echo "$layout/blobs/${1/://}"; }
manifest=$(blob "$(jq -r '.manifests[0].digest' "$layout/index.json")")
config=$(blob "$(jq -r '.config.digest' "$manifest")")
for layer in $(jq -r '.layers[].digest' "$manifest"); do
  tar -xzf "$(blob "$layer")" -C "$rootfs" --same-owner --same-permissions
done
[ -z "$(find "$rootfs" -name '.wh.*' -print -quit)" ] || fail "a layer deletes files (whiteouts); this check does not apply them"

user=$(jq -r '.config.User // ""' "$config")
uid=${user%%:*}
case "$uid" in
  ''|0|root) fail "the image runs as root (User \"$user\")" ;;
  *[!0-9]*) fail "the image's user \"$user\" is not numeric: Kubernetes' runAsNonRoot cannot tell it is not root" ;;
esac
[ "$user" = 65532:65532 ] || fail "User is \"$user\", want 65532:65532"
[ "$(jq -c '.config.Entrypoint' "$config")" = '["/nod"]' ] || fail "Entrypoint is $(jq -c '.config.Entrypoint' "$config")"
[ "$(jq -c '.config.Cmd' "$config")" = '["serve"]' ] || fail "Cmd is $(jq -c '.config.Cmd' "$config")"
[ "$(jq -r '.config.WorkingDir' "$config")" = /data ] || fail "WorkingDir is not /data"
jq -e '.config.Volumes | has("/data")' "$config" >/dev/null || fail "/data is not a volume"
for env in NOD_DB=/data/nod.db NOD_HTTP_ADDR=0.0.0.0:9090; do
  jq -e --arg e "$env" '.config.Env | index($e)' "$config" >/dev/null || fail "the image does not set $env"
done
for label in version revision source; do
  [ -n "$(jq -r ".config.Labels[\"org.opencontainers.image.$label\"] // \"\"" "$config")" ] || fail "no org.opencontainers.image.$label label"
done
# The OCI config cannot hold HEALTHCHECK: it is in the image buildah
# built, and in a docker-archive.
[ "$(jq -c '.Docker.config.Healthcheck.Test' "$work/image.json")" = '["CMD","/nod","healthcheck"]' ] \
  || fail "the image has no HEALTHCHECK running /nod healthcheck"

bin=$rootfs/nod
[ -x "$bin" ] || fail "/nod is missing or not executable"
if readelf -lW "$bin" | grep -qw INTERP || readelf -dW "$bin" | grep -qw NEEDED; then
  fail "/nod is dynamically linked; build it with CGO_ENABLED=0"
fi
[ -s "$rootfs/etc/ssl/certs/ca-certificates.crt" ] || fail "no CA certificates at /etc/ssl/certs/ca-certificates.crt"
[ "$(stat -c %u:%g "$rootfs/data")" = "$user" ] || fail "/data is owned by $(stat -c %u:%g "$rootfs/data"), not $user"
[ "$(stat -c %a "$rootfs/tmp")" = 1777 ] || fail "/tmp is not 1777"

# Run it as the image would: its environment and user, nothing from here.
# The root file system has no libc and no shell, so a dynamic binary
# could not start either.
mapfile -t envs < <(jq -r '.config.Env[]' "$config")
run() { env -i "${envs[@]}" chroot --userspec="$user" "$rootfs" /nod "$@"; }
got=$(run version) || fail "/nod version failed"
echo "$got"
[[ "$got" == "nod $version "* ]] || fail "/nod version says \"$got\", the label $version"
run help >/dev/null || fail "/nod help failed"
run migrate -log-format json >"$work/migrate.log" 2>&1 || { cat "$work/migrate.log" >&2; fail "/nod migrate on /data failed"; }
[ "$(stat -c %u:%g "$rootfs/data/nod.db")" = "$user" ] || fail "/data/nod.db is not the image user's"
echo "ok: static, runs as $user, version, help and migrate on /data/nod.db"
