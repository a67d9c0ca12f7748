"""``fairvec release build | sign | verify | diff``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from fairvec.errors import FairvecError
from fairvec.release.refusals import require_release_extra

if TYPE_CHECKING:
    from fairvec.release.verify import Limits

EXIT_OK, EXIT_FAILED = 0, 1
Commands = argparse._SubParsersAction  # argparse keeps the type private


def add_release_command(commands: Commands[argparse.ArgumentParser]) -> None:
    release = commands.add_parser(
        "release",
        help="build, sign, verify and compare vector releases",
        description="Signed vector releases (docs/releases.md).",
    )
    actions = release.add_subparsers(title="actions", required=True, metavar="ACTION")
    _add_build(actions)
    _add_sign(actions)
    _add_verify(actions)
    _add_diff(actions)


def _signing_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ssh-key", type=Path, metavar="FILE", help="sign with this OpenSSH ed25519 private key"
    )
    parser.add_argument(
        "--minisign-key", type=Path, metavar="FILE", help="sign with this minisign secret key"
    )


def _add_build(actions: Commands[argparse.ArgumentParser]) -> None:
    build = actions.add_parser(
        "build",
        help="write fairvec-vectors-X.Y.Z.tar.gz, its manifest and SHA256SUMS",
        description="Build the deterministic release archive from the installed suite (or "
        "--source CHECKOUT) into DIR, and sign its manifest with the keys given.",
    )
    build.add_argument("--version", required=True, metavar="X.Y.Z", help="the release's version")
    build.add_argument("--out", required=True, type=Path, metavar="DIR", help="output folder")
    build.add_argument(
        "--source",
        type=Path,
        metavar="CHECKOUT",
        help="a checkout to build from (default: the installed package)",
    )
    build.add_argument(
        "--force",
        action="store_true",
        help="replace a release already in DIR (its old signatures are removed)",
    )
    _signing_options(build)
    build.set_defaults(handler=_run_build)


def _run_build(arguments: argparse.Namespace) -> int:
    # start-up: 70 ms (jsonschema, tarfile) that only these commands need, not building
    # the command line (`fairvec --help` builds every command's parser); so below
    from fairvec.release.build import build
    from fairvec.release.sign import sign_release

    if arguments.ssh_key or arguments.minisign_key:
        # before anything is written: never an unsigned release left where a signed one
        # was asked for. Without a key the build needs no extra (docs/releases.md).
        require_release_extra("fairvec release build --ssh-key/--minisign-key")
    built = build(arguments.version, arguments.out, arguments.source, replace=arguments.force)
    print(f"{built.archive}  ({len(built.manifest.files)} files, {built.manifest.vectors} vectors)")
    print(f"suite digest {built.manifest.suite_digest}")
    print(built.manifest_copy)
    print(built.sums)
    signed = sign_release(
        built.archive,
        built.manifest,
        built.manifest_bytes,
        arguments.ssh_key,
        arguments.minisign_key,
    )
    for path in signed:
        print(path)
    if not signed:
        print(
            "not signed: pass --ssh-key or --minisign-key, or sign the manifest by hand "
            "(docs/releases.md)"
        )
    return EXIT_OK


def _add_sign(actions: Commands[argparse.ArgumentParser]) -> None:
    sign = actions.add_parser(
        "sign",
        help="sign an existing release's manifest",
        description="Check ARCHIVE against its own manifest, then write detached signatures of "
        "that manifest beside it.",
    )
    sign.add_argument("archive", type=Path, metavar="ARCHIVE")
    _signing_options(sign)
    sign.set_defaults(handler=_run_sign)


def _run_sign(arguments: argparse.Namespace) -> int:
    # start-up: see _run_build
    from fairvec.release.sign import sign_release
    from fairvec.release.verify import open_suite

    require_release_extra("fairvec release sign")
    if arguments.ssh_key is None and arguments.minisign_key is None:
        raise FairvecError("release sign: give --ssh-key FILE and/or --minisign-key FILE")
    with open_suite(arguments.archive, None) as suite:
        signed = sign_release(
            arguments.archive,
            suite.manifest,
            suite.manifest_bytes,
            arguments.ssh_key,
            arguments.minisign_key,
        )
    for path in signed:
        print(path)
    return EXIT_OK


def _add_verify(actions: Commands[argparse.ArgumentParser]) -> None:
    verify = actions.add_parser(
        "verify",
        help="verify a release against a trusted key",
        description="Check the signature over the manifest, then every member against the "
        "manifest; refuse (exit 2) with the first problem found.",
    )
    verify.add_argument("archive", type=Path, metavar="ARCHIVE")
    _trusted_key_option(verify, required=True)
    verify.add_argument(
        "--signature",
        type=Path,
        metavar="FILE",
        help="the detached signature (default: beside the archive, "
        "fairvec-vectors-X.Y.Z.MANIFEST.json.sig or .minisig)",
    )
    verify.add_argument(
        "--min-version", metavar="X.Y.Z", help="refuse a release older than this (rollback)"
    )
    _limit_options(verify)
    verify.add_argument(
        "--extract", type=Path, metavar="DIR", help="keep the verified files in DIR (a new folder)"
    )
    verify.set_defaults(handler=_run_verify)


def _trusted_key_option(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument(
        "--trusted-key",
        type=Path,
        required=required,
        metavar="KEY",
        help="an allowed_signers file, an OpenSSH public key or a minisign public key",
    )


def _limit_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-member-size", type=_size, metavar="BYTES", help="largest file accepted (64 MiB)"
    )
    parser.add_argument(
        "--max-total-size", type=_size, metavar="BYTES", help="largest release accepted (512 MiB)"
    )


def _size(text: str) -> int:
    from fairvec.jsonio import TooManyDigits, int_of_text

    try:
        value = int_of_text(text)
    except TooManyDigits as error:
        raise argparse.ArgumentTypeError(f"a number of bytes, not of {error}") from None
    except ValueError:
        raise argparse.ArgumentTypeError("a number of bytes") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def _limits(arguments: argparse.Namespace) -> Limits:
    from fairvec.release.verify import Limits  # start-up: see _run_build

    defaults = Limits()
    return Limits(
        member=arguments.max_member_size or defaults.member,
        total=arguments.max_total_size or defaults.total,
    )


def _run_verify(arguments: argparse.Namespace) -> int:
    from fairvec.release.verify import open_verified_suite  # start-up: see _run_build

    require_release_extra("fairvec release verify")
    with open_verified_suite(
        arguments.archive,
        arguments.trusted_key,
        arguments.min_version,
        signature=arguments.signature,
        extract_to=arguments.extract,
        limits=_limits(arguments),
    ) as suite:
        print(
            f"verified {arguments.archive}: fairvec-vectors {suite.version}, "
            f"{len(suite.manifest.files)} files, {suite.manifest.vectors} vectors, "
            f"suite digest {suite.digest}, signed by {suite.signer}"
        )
        if not suite.temporary:
            print(f"extracted to {suite.root}")
    return EXIT_OK


def _add_diff(actions: Commands[argparse.ArgumentParser]) -> None:
    diff = actions.add_parser(
        "diff",
        help="what changed between two releases, and whether the version bump fits",
        description="List vectors added, removed and changed by id, algorithms and variants "
        "added or removed, and check the version bump against the rules (docs/releases.md). "
        "Exit 1 when the bump is too small.",
    )
    diff.add_argument("old", type=Path, metavar="OLD")
    diff.add_argument("new", type=Path, metavar="NEW")
    _trusted_key_option(diff, required=False)
    _limit_options(diff)
    diff.set_defaults(handler=_run_diff)


def _run_diff(arguments: argparse.Namespace) -> int:
    from fairvec.release.diff import diff_releases, write_diff  # start-up: see _run_build

    if arguments.trusted_key is not None:  # without one, no signature is checked
        require_release_extra("fairvec release diff --trusted-key")
    result = diff_releases(arguments.old, arguments.new, arguments.trusted_key, _limits(arguments))
    write_diff(sys.stdout, result)
    return EXIT_OK if result.bump_ok else EXIT_FAILED
