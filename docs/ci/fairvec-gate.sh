#!/bin/sh
# fairvec-gate.sh: gate a port's CI on a pinned, signed fairvec vector release.
#
# Copy this file into your repository (e.g. as ci/fairvec-gate.sh); docs/ci.md explains it.
#
#   sh fairvec-gate.sh install            pip install fairvec (with its release extra)
#   sh fairvec-gate.sh fetch              download the pinned release's files
#   sh fairvec-gate.sh verify             check them with ssh-keygen or minisign (not fairvec)
#   sh fairvec-gate.sh run -- ADAPTER...  fairvec run --suite ... against your adapter
#   sh fairvec-gate.sh all -- ADAPTER...  the four steps in order
#
# Settings, from the environment:
#   FAIRVEC_VERSION      the release pinned, e.g. 1.3.0 (required)
#   FAIRVEC_RELEASE_URL  where its files are: https://..., file:///... or a local folder (required)
#   FAIRVEC_TRUSTED_KEY  an allowed_signers file (ssh-keygen) or a minisign public key (required)
#   FAIRVEC_SIGNER       the principal to verify as, for an allowed_signers file
#                        (default: the first principal of its first line)
#   FAIRVEC_PIP          what `install` asks pip for (default: fairvec[release]); empty: skip
#   FAIRVEC_WORK         where the release is fetched to (default: .fairvec)
#   FAIRVEC_REPORTS      where the JUnit and JSON reports go (default: fairvec-reports)
#   FAIRVEC_RUN_OPTIONS  more `fairvec run` options, e.g. "--exclude-tag slow
#                        --known-failures ci/known-failures.txt" (split on spaces)
#   FAIRVEC              the fairvec command (default: fairvec); PYTHON (default: python3)
#
# Exit status: that of `fairvec run` (0 all passed, 1 a vector failed, 2 a usage or
# infrastructure problem), or 2 when a setting is missing or the release does not verify.
set -eu

NAMESPACE=fairvec-release  # the SSH signature namespace fairvec releases are signed in

fail() {
    echo "fairvec-gate: $*" >&2
    exit 2
}

need() {
    eval "value=\${$1:-}"
    [ -n "$value" ] || fail "set $1 ($2)"
}

settings() {
    need FAIRVEC_VERSION "the release to pin, e.g. 1.3.0"
    need FAIRVEC_RELEASE_URL "where the release's files are published"
    need FAIRVEC_TRUSTED_KEY "an allowed_signers file or a minisign public key"
    WORK=${FAIRVEC_WORK:-.fairvec}
    REPORTS=${FAIRVEC_REPORTS:-fairvec-reports}
    NAME=fairvec-vectors-$FAIRVEC_VERSION
    ARCHIVE=$WORK/$NAME.tar.gz
    MANIFEST=$WORK/$NAME.MANIFEST.json
    [ -f "$FAIRVEC_TRUSTED_KEY" ] || fail "FAIRVEC_TRUSTED_KEY=$FAIRVEC_TRUSTED_KEY: no such file"
}

# A minisign public key is "untrusted comment: ..." then a base64 line starting RW, or that
# line alone; anything else is taken for an allowed_signers file.
key_kind() {
    if grep -q '^RW[A-Za-z0-9+/=]*$' "$FAIRVEC_TRUSTED_KEY"; then
        echo minisign
    else
        echo ssh
    fi
}

signature_name() {
    if [ "$(key_kind)" = minisign ]; then
        echo "$NAME.MANIFEST.json.minisig"
    else
        echo "$NAME.MANIFEST.json.sig"
    fi
}

step_install() {
    spec=${FAIRVEC_PIP-fairvec[release]}
    if [ -n "$spec" ]; then
        "${PYTHON:-python3}" -m pip install --quiet "$spec"
    fi
    "${FAIRVEC:-fairvec}" --version
}

# One file of the release into $WORK: over HTTPS or from file:// with curl (never plain
# HTTP), or copied from a local folder.
fetch_one() {
    case $FAIRVEC_RELEASE_URL in
        https://* | file://*)
            curl --fail --silent --show-error --location --proto '=https,file' \
                --output "$WORK/$1" "${FAIRVEC_RELEASE_URL%/}/$1" ||
                fail "cannot fetch $1 from $FAIRVEC_RELEASE_URL"
            ;;
        *://*)
            fail "FAIRVEC_RELEASE_URL=$FAIRVEC_RELEASE_URL: use https://, file:// or a folder"
            ;;
        *)
            cp "$FAIRVEC_RELEASE_URL/$1" "$WORK/$1" || fail "cannot copy $1 from $FAIRVEC_RELEASE_URL"
            ;;
    esac
}

step_fetch() {
    settings
    rm -rf "$WORK"
    mkdir -p "$WORK"
    for file in "$NAME.tar.gz" "$NAME.MANIFEST.json" "$(signature_name)" SHA256SUMS; do
        fetch_one "$file"
    done
    echo "fetched $NAME into $WORK"
}

# With the tools already on the machine, independently of fairvec: the download against
# SHA256SUMS, then the signature over the manifest. `fairvec run --suite` checks again, and
# checks every member of the archive against the signed manifest.
step_verify() {
    settings
    (cd "$WORK" && sha256sum --strict --check --quiet SHA256SUMS) ||
        fail "$WORK: the files do not match SHA256SUMS (a corrupt download?)"
    if [ "$(key_kind)" = minisign ]; then
        command -v minisign >/dev/null || fail "minisign is not installed (Debian package minisign)"
        minisign -V -q -m "$MANIFEST" -p "$FAIRVEC_TRUSTED_KEY" -x "$MANIFEST.minisig" ||
            fail "$MANIFEST: minisign does not accept its signature by $FAIRVEC_TRUSTED_KEY"
    else
        command -v ssh-keygen >/dev/null ||
            fail "ssh-keygen is not installed (Debian package openssh-client)"
        signer=${FAIRVEC_SIGNER:-$(sed -n '1s/[ ,].*//p' "$FAIRVEC_TRUSTED_KEY")}
        ssh-keygen -Y verify -f "$FAIRVEC_TRUSTED_KEY" -I "$signer" -n "$NAMESPACE" \
            -s "$MANIFEST.sig" <"$MANIFEST" ||
            fail "$MANIFEST: ssh-keygen does not accept its signature by $signer"
    fi
    echo "verified $NAME"
}

step_run() {
    settings
    [ "$#" -gt 0 ] || fail "run: give the adapter command after --"
    [ -f "$ARCHIVE" ] || fail "$ARCHIVE: not fetched (run the fetch step first)"
    mkdir -p "$REPORTS"
    status=0
    # shellcheck disable=SC2086  # FAIRVEC_RUN_OPTIONS is a list of words on purpose
    "${FAIRVEC:-fairvec}" run --suite "$ARCHIVE" --trusted-key "$FAIRVEC_TRUSTED_KEY" \
        --min-version "$FAIRVEC_VERSION" --no-progress \
        --junit "$REPORTS/fairvec.xml" --json "$REPORTS/fairvec.json" \
        ${FAIRVEC_RUN_OPTIONS:-} -- "$@" || status=$?
    echo "reports: $REPORTS/fairvec.xml $REPORTS/fairvec.json (fairvec run exit status $status)"
    return "$status"
}

[ "$#" -gt 0 ] || fail "give a step: install, fetch, verify, run -- ADAPTER..., or all -- ADAPTER..."
step=$1
shift
if [ "${1:-}" = "--" ]; then
    shift
fi
case $step in
    install) step_install ;;
    fetch) step_fetch ;;
    verify) step_verify ;;
    run) step_run "$@" ;;
    all)
        step_install
        step_fetch
        step_verify
        step_run "$@"
        ;;
    *) fail "unknown step '$step': give install, fetch, verify, run or all" ;;
esac
