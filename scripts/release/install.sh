#!/bin/sh
# Installs one of the toolkit's binaries from a release:
#
#   curl -fsSL <release-url>/install.sh | sh -s -- memsvc [--version X.Y.Z] [--dir DIR] [--base-url URL]
#
# It picks the archive for this OS and CPU, downloads it with SHA256SUMS, checks the archive's checksum and,
# when ssh-keygen is present, SHA256SUMS's signature against the release key below, then installs the binary
# into ~/.local/bin (or --dir). Anything that does not match is refused and nothing is installed.
# POSIX sh: runs under dash, busybox sh and bash alike.
set -eu

# Stamped by the release (scripts/release/main.ts); left as they are when run from the source tree.
RELEASE_VERSION='@RELEASE_VERSION@'
RELEASE_BASE_URL='@RELEASE_BASE_URL@'
ALLOWED_SIGNERS='@ALLOWED_SIGNERS@'

TOOLS="memsvc gitsync-manager gitsync edgectl vault vault-init vault-mcp"
PLATFORMS="linux_x64 linux_arm64 darwin_x64 darwin_arm64"

usage() {
  cat <<EOF
usage: install.sh <tool> [--version X.Y.Z] [--dir DIR] [--base-url URL]

  <tool>            one of: $TOOLS
  --version X.Y.Z   the release to install (default: $RELEASE_VERSION)
  --dir DIR         where to put the binary (default: \$HOME/.local/bin)
  --base-url URL    where the release's files are (default: that release's download URL)

examples:
  curl -fsSL <release-url>/install.sh | sh -s -- memsvc
  sh install.sh vault --version 1.2.0 --dir /usr/local/bin
EOF
}

say() { printf '%s\n' "install.sh: $*" >&2; }
fail() {
  say "error: $*"
  exit 1
}
usage_error() {
  say "error: $*"
  usage >&2
  exit 2
}

tool=""
version=""
dir=""
base_url=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help)
      usage
      exit 0
      ;;
    --version | --dir | --base-url)
      [ $# -ge 2 ] || usage_error "$1 needs a value"
      case "$1" in
        --version) version=$2 ;;
        --dir) dir=$2 ;;
        --base-url) base_url=$2 ;;
      esac
      shift 2
      ;;
    --version=*) version=${1#*=} && shift ;;
    --dir=*) dir=${1#*=} && shift ;;
    --base-url=*) base_url=${1#*=} && shift ;;
    -*) usage_error "unknown flag $1" ;;
    *)
      [ -z "$tool" ] || usage_error "one tool at a time (got $tool and $1)"
      tool=$1
      shift
      ;;
  esac
done

[ -n "$tool" ] || usage_error "name the tool to install"
case " $TOOLS " in
  *" $tool "*) ;;
  *) usage_error "unknown tool '$tool' (tools: $TOOLS)" ;;
esac

case "$RELEASE_VERSION" in @*) RELEASE_VERSION="" ;; esac
case "$RELEASE_BASE_URL" in @*) RELEASE_BASE_URL="" ;; esac
case "$ALLOWED_SIGNERS" in @*) ALLOWED_SIGNERS="" ;; esac
version=${version#v}
[ -n "$version" ] || version=$RELEASE_VERSION
[ -n "$version" ] || usage_error "--version is required (this install.sh is not from a release)"
case "$version" in
  *[!0-9A-Za-z.+-]* | "") usage_error "--version '$version' is not a version like 1.2.3" ;;
esac
if [ -z "$base_url" ]; then
  [ -n "$RELEASE_BASE_URL" ] || usage_error "--base-url is required (this install.sh is not from a release)"
  base_url="$RELEASE_BASE_URL/v$version"
fi
base_url=${base_url%/}
[ -n "$dir" ] || dir="${HOME:?HOME is not set; pass --dir}/.local/bin"

os=$(uname -s)
cpu=$(uname -m)
case "$os" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) os=unsupported ;;
esac
case "$cpu" in
  x86_64 | amd64) cpu=x64 ;;
  aarch64 | arm64) cpu=arm64 ;;
  *) cpu=unsupported ;;
esac
platform="${os}_$cpu"
case " $PLATFORMS " in
  *" $platform "*) ;;
  *) fail "no $tool build for $(uname -s) $(uname -m); releases exist for: $PLATFORMS (os_cpu)" ;;
esac

archive="${tool}_${version}_${platform}.tar.gz"

download() { # url file
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --proto '=https,http' -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    fail "neither curl nor wget is installed"
  fi
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 "$1" | sed 's/^.*= *//'
  else
    fail "no sha256sum, shasum or openssl to check the download with"
  fi
}

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t toolkit-install)
trap 'rm -rf "$tmp"' EXIT INT TERM HUP

say "downloading $archive from $base_url"
download "$base_url/$archive" "$tmp/$archive" || fail "could not download $base_url/$archive"
download "$base_url/SHA256SUMS" "$tmp/SHA256SUMS" || fail "could not download $base_url/SHA256SUMS"

if [ -n "$ALLOWED_SIGNERS" ] && command -v ssh-keygen >/dev/null 2>&1; then
  download "$base_url/SHA256SUMS.sig" "$tmp/SHA256SUMS.sig" || fail "could not download $base_url/SHA256SUMS.sig"
  printf '%s\n' "$ALLOWED_SIGNERS" >"$tmp/allowed_signers"
  if ! ssh-keygen -Y verify -f "$tmp/allowed_signers" -I toolkit-release -n file \
    -s "$tmp/SHA256SUMS.sig" <"$tmp/SHA256SUMS" >/dev/null 2>&1; then
    fail "SHA256SUMS is not signed by the release key: refusing to install (nothing was installed)"
  fi
  say "SHA256SUMS signature verified"
elif [ -n "$ALLOWED_SIGNERS" ]; then
  say "ssh-keygen not found: checking the checksum only, not the signature"
fi

want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS")
[ -n "$want" ] || fail "SHA256SUMS lists no $archive"
got=$(sha256_of "$tmp/$archive")
if [ "$got" != "$want" ]; then
  fail "checksum mismatch for $archive (expected $want, got $got): refusing to install (nothing was installed)"
fi

mkdir "$tmp/x"
(cd "$tmp/x" && gzip -dc "../$archive" | tar -xf -) || fail "could not unpack $archive"
[ -f "$tmp/x/$tool" ] || fail "$archive holds no $tool"
chmod 755 "$tmp/x/$tool"

mkdir -p "$dir" || fail "cannot create $dir"
# Copy next to the target, then rename: a running binary is never overwritten in place.
cp "$tmp/x/$tool" "$dir/.$tool.new" || fail "cannot write to $dir"
mv -f "$dir/.$tool.new" "$dir/$tool" || fail "cannot write $dir/$tool"
say "installed $tool $version to $dir/$tool"

case ":${PATH:-}:" in
  *":$dir:"*) ;;
  *)
    say "$dir is not on your PATH; add it with:"
    say "  export PATH=\"$dir:\$PATH\"   # e.g. in ~/.profile"
    ;;
esac
