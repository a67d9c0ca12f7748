"""bustabit's chain check by game number (bustabit.chain_position) and its Vx era
(bustabit.vx_signature, vx_crash, vx_verify, vx_game): the real games of the research files,
the off-by-one numbers, the signature checks, the vx extra's refusal, and the Python
reference against the Node adapter's independent BLS12-381 (@noble/curves) on every vector.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import FAIRVEC_COMMAND, HANG, REPO, fairvec

from fairvec.extras import ALGORITHMS_NEEDING, EXTRAS
from fairvec.reference import InvalidInput, bustabit, compute

RESEARCH = REPO.parent / "shared" / "research" / "bustabit-vx.md"
VENDOR = REPO / "adapters" / "node" / "vendor"
GAME_12424169 = "4488d92d89d0ed7fbb2ea23b219d569f63207e32fc44b957858838835c1719f1"
# The Vx games the specs carry, by number (their hashes are pinned by chain_position vectors)
VX_GAMES = {12_279_450: "last-vx-game", 11_000_000: "vx-game-11000000", 10_000_001: "first-vx-game"}
NODE = shutil.which("node")


def vectors(name: str) -> list[dict[str, Any]]:
    path = REPO / "vectors" / "bustabit" / f"{name}.json"
    found: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["vectors"]
    return found


def by_id(name: str) -> dict[str, dict[str, Any]]:
    return {v["id"].split("/", 1)[1]: v for v in vectors(name)}


def output(vector: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = vector["expected"]["output"]
    return found


def walk_down(game_hash: str, games: int) -> str:
    value = bytes.fromhex(game_hash)
    for _ in range(games):
        value = hashlib.sha256(value).digest()
    return value.hex()


# --- the real games -------------------------------------------------------------------------


@pytest.mark.heavy
def test_the_vx_hashes_are_game_12424169_walked_down() -> None:
    """The hashes the vx specs type are the real chain's: walked down from game 12,424,169
    (the suite's real game) here, and each pinned to its number by chain_position."""
    positions = by_id("chain_position")
    for number, case in VX_GAMES.items():
        game_hash = walk_down(GAME_12424169, 12_424_169 - number)
        assert positions[case]["input"] == {"game_hash": game_hash, "game_number": number}
        assert output(positions[case])["genuine"] is True
        for name in ("vx_signature", "vx_game"):
            assert by_id(name)[case]["input"] == {"game_hash": game_hash}


def test_the_research_files_check_values_are_the_vectors() -> None:
    if not RESEARCH.is_file():
        pytest.skip(f"the research file is not at {RESEARCH}")
    text = RESEARCH.read_text(encoding="utf-8")
    games = by_id("vx_game")
    stated = {  # number: (hash, signature prefix or None, bust), as the research file words them
        12_279_450: ("d80862011cc416cf", "873eaa3b92d1c5ac", 3.51),
        11_000_000: ("87bcd406d9c7f1f3", None, 1),
        10_000_001: ("0983b27539508f34", "afb932681d2b21a1", 2.4),
    }
    for number, (prefix, signature, bust) in stated.items():
        assert f"game {number:,}" in text and prefix in text and f"bust **{bust}**" in text
        found = games[VX_GAMES[number]]
        assert found["input"]["game_hash"].startswith(prefix)
        assert output(found)["crash"] == bust and found["document_states"] == {"crash": bust}
        if signature is not None:
            assert signature in text and output(found)["signature"].startswith(signature)
    for constant in (
        bustabit.VX_SALT,
        bustabit.VX_PUBLIC_KEY.hex(),
        f"{bustabit.VX_PRIVATE_KEY:064x}",
    ):
        assert constant in text


def test_the_given_signatures_are_vx_signatures() -> None:
    """vx_crash's and vx_verify's cases type each real game's signature as an input: it is
    the one bustabit.vx_signature (and vx_game) computes for that game."""
    signed = by_id("vx_signature")
    for name in ("vx_crash", "vx_verify"):
        cases = by_id(name)
        for case in VX_GAMES.values():
            assert cases[case]["input"]["signature"] == output(signed[case])["signature"]
            assert cases[case]["input"]["game_hash"] == signed[case]["input"]["game_hash"]
    games, crashes = by_id("vx_game"), by_id("vx_crash")
    for case in VX_GAMES.values():
        assert output(games[case]) == {
            "signature": output(signed[case])["signature"],
            **output(crashes[case]),
        }


# --- chain_position -----------------------------------------------------------------------------


def test_the_game_number_picks_the_chain_at_ten_million() -> None:
    assert bustabit.chain_of(10_000_000) == "first" and bustabit.chain_of(10_000_001) == "current"
    assert bustabit.chain_of(1) == "first"


def test_off_by_one_numbers_are_not_genuine() -> None:
    cases = by_id("chain_position")
    for game, claims in {
        "12424169": ("12424168", "12424170"),
        "1394728": ("1394727", "1394729"),
    }.items():
        assert output(cases[f"real-game-{game}"])["genuine"] is True
        for claimed in claims:
            found = output(cases[f"real-game-{game}-claimed-{claimed}"])
            assert found["genuine"] is False
            assert found["steps"] == output(cases[f"real-game-{game}"])["steps"] + int(
                claimed
            ) - int(game)
    # one step short of game 12,424,169's walk ends on game 10,000,001's hash
    assert (
        output(cases["real-game-12424169-claimed-12424168"])["end_hash"]
        == (cases["first-vx-game"]["input"]["game_hash"])
    )


def test_the_cheap_off_by_one_cases_are_recomputed() -> None:
    first = "0983b27539508f34d90bf11d084e118d65bbc32798e059e53d2a95464b8bb7d6"
    genuine = compute("bustabit.chain_position", {"game_hash": first, "game_number": 10_000_001})
    assert genuine == {
        "chain": "current",
        "steps": 1,
        "end_hash": "567a98370fb7545137ddb53687723cf0b8a1f5e93b1f76f4a1da29416930fa59",
        "genuine": True,
    }
    later = compute("bustabit.chain_position", {"game_hash": first, "game_number": 10_000_002})
    assert later["genuine"] is False and later["end_hash"] == walk_down(first, 2)


def test_game_numbers_out_of_range_are_one_line_errors() -> None:
    # 20,000,000 is the current chain's last game (issue 34: 110,000,000 was accepted, a
    # walk of 10^8 hashes no port answered in 120 s)
    for number in (0, 20_000_001, 110_000_000):
        with pytest.raises(InvalidInput) as refused:
            compute("bustabit.chain_position", {"game_hash": GAME_12424169, "game_number": number})
        assert refused.value.code == "game-number-out-of-range"
        assert "game_number" in refused.value.message and "\n" not in refused.value.message


def test_a_chain_walk_is_bounded_by_one_chain() -> None:
    """bustabit.chain_check's max_steps stops at a chain's 10,000,000 hashes (issue 34: 10^8
    were accepted, minutes a vector, hours for a pinned run's fresh vectors)."""
    for steps in (10_000_001, 100_000_000):
        inputs = {"game_hash": GAME_12424169, "terminating_hash": GAME_12424169,
                  "terminating_game": 0, "max_steps": steps}  # fmt: skip
        with pytest.raises(InvalidInput) as refused:
            compute("bustabit.chain_check", inputs, "raw-bytes")
        assert refused.value.code == "max-steps-out-of-range"


def _early_stop(game_hash: str, game_number: int) -> dict[str, Any]:
    """A wrong port: stops as soon as it meets the terminating hash."""
    chain = bustabit.chain_of(game_number)
    rule, terminating, origin = bustabit.CHAINS[chain]
    value = bytes.fromhex(game_hash)
    for steps in range(game_number - origin + 1):
        if value == terminating:
            return {"genuine": True, "steps": steps}
        value = bustabit.previous_hash(value, rule)
    return {"genuine": False}


def _origin_one_off(game_hash: str, game_number: int) -> dict[str, Any]:
    """A wrong port: counts the current chain's terminating hash as game 10,000,001."""
    chain = bustabit.chain_of(game_number)
    rule, terminating, origin = bustabit.CHAINS[chain]
    origin += 1 if chain == "current" else 0
    end = bustabit.walk_exactly(bytes.fromhex(game_hash), game_number - origin, rule)
    return {"genuine": end == terminating}


@pytest.mark.parametrize("port", [_early_stop, _origin_one_off])
def test_a_wrong_chain_position_port_is_caught(
    port: Callable[[str, int], dict[str, Any]],
) -> None:
    quick = [
        v
        for v in vectors("chain_position")
        if "output" in v["expected"] and "slow" not in v["tags"]
    ]
    caught = [v["id"] for v in quick if port(**v["input"])["genuine"] != output(v)["genuine"]]
    assert caught, f"no quick vector catches {port.__name__}"


# --- the Vx era ---------------------------------------------------------------------------------


def test_the_hmac_is_keyed_by_the_signature_bytes_not_its_text() -> None:
    case = by_id("vx_crash")["last-vx-game"]["input"]
    signature, game = bytes.fromhex(case["signature"]), bytes.fromhex(case["game_hash"])
    keyed = hmac.new(signature, game, hashlib.sha256).hexdigest()
    assert output(by_id("vx_crash")["last-vx-game"])["hmac"] == keyed
    text_keyed = hmac.new(case["signature"].encode(), game, hashlib.sha256).hexdigest()
    assert bustabit.v2_output(text_keyed, "bustabit")["crash"] != 3.51


def test_the_message_is_the_hash_of_the_game_hash_then_the_salt_text() -> None:
    case = by_id("vx_signature")["first-vx-game"]
    message = bytes.fromhex(output(case)["message"])
    # game 10,000,001's SHA-256 is the current chain's terminating hash
    assert message[:32].hex() == bustabit.CHAINS["current"][1].hex()
    assert message[32:] == bustabit.VX_SALT.encode("ascii") and len(message) == 96


def test_the_private_key_gives_the_published_public_key() -> None:
    pytest.importorskip("py_ecc", reason="the fairvec[vx] extra")
    from py_ecc.bls.ciphersuites import G2Basic

    assert G2Basic.SkToPk(bustabit.VX_PRIVATE_KEY) == bustabit.VX_PUBLIC_KEY


def test_verification_rejects_a_wrong_signature() -> None:
    pytest.importorskip("py_ecc", reason="the fairvec[vx] extra")
    cases = by_id("vx_verify")
    right = cases["last-vx-game"]["input"]
    assert compute("bustabit.vx_verify", right) == {"valid": True}
    other = cases["signature-of-another-game"]["input"]  # a valid point, another game's
    assert other["game_hash"] == right["game_hash"] and other["signature"] != right["signature"]
    assert compute("bustabit.vx_verify", other) == {"valid": False}
    for bad in ("sign-flag-flipped", "last-digit-changed", "point-at-infinity", "all-zero"):
        assert output(cases[bad]) == {"valid": False}, bad
    flipped = dict(right, signature="a7" + right["signature"][2:])  # the negated point
    assert compute("bustabit.vx_verify", flipped) == {"valid": False}


# --- the canonical signature encoding (vx_verify's decision canonical-encoding) ----------------

COORDINATE_BITS = (1 << 381) - 1  # a first 48 bytes' value under the three flag bits
COMPRESSED, INFINITY, SORT = 0x80, 0x40, 0x20
TORSION_ORDER = 2713  # a prime factor of G2's cofactor


def split(signature: str) -> tuple[int, int, int]:
    """The flags, x.c1 and x.c0 of a 96-byte compressed G2 encoding."""
    raw = bytes.fromhex(signature)
    c1 = int.from_bytes(raw[:48], "big") & COORDINATE_BITS
    return raw[0] & 0xE0, c1, int.from_bytes(raw[48:], "big")


def join(flags: int, c1: int, c0: int) -> str:
    raw = bytearray(c1.to_bytes(48, "big") + c0.to_bytes(48, "big"))
    assert raw[0] & 0xE0 == 0, "x.c1 reaches into the flag bits"
    raw[0] |= flags
    return raw.hex()


def field_prime() -> int:
    pytest.importorskip("py_ecc", reason="the fairvec[vx] extra")
    from py_ecc.optimized_bls12_381.optimized_curve import field_modulus

    p: int = field_modulus
    return p


def decode(signature: str) -> Any:
    """py_ecc's point for a compressed G2 signature (ValueError when it is no encoding)."""
    from eth_typing import BLSSignature
    from py_ecc.bls.g2_primitives import signature_to_G2

    return signature_to_G2(BLSSignature(bytes.fromhex(signature)))


def test_the_non_canonical_vectors_are_real_signatures_written_otherwise() -> None:
    """Each non-canonical vx_verify case is a genuine Vx signature whose only fault is the
    encoding, built here from the real signature the way its comment says; vx_crash's
    non-canonical-signature is the same bytes."""
    p = field_prime()
    assert f"{p:x}" in (REPO / "spec" / "bustabit" / "vx_verify.yaml").read_text(encoding="utf-8")
    cases = by_id("vx_verify")
    last = cases["last-vx-game"]["input"]["signature"]
    flags, c1, c0 = split(last)
    g11_flags, g11_c1, g11_c0 = split(cases["vx-game-11000000"]["input"]["signature"])
    built = {
        "x-c0-plus-p": join(flags, c1, c0 + p),
        "x-c1-plus-p": join(g11_flags, g11_c1 + p, g11_c0),
        "uncompressed-flag-cleared": join(flags & ~COMPRESSED, c1, c0),
        "infinity-flag-on-signature": join(flags | INFINITY, c1, c0),
        "sign-flag-flipped": join(flags ^ SORT, c1, c0),
        "infinity-and-sort-flags": join(COMPRESSED | INFINITY | SORT, 0, 0),
        "not-on-curve": last[:-1] + "f",
    }
    for name, signature in built.items():
        assert cases[name]["input"]["signature"] == signature, name
    for name in ("x-c1-plus-p", "vx-game-11000000"):
        assert cases[name]["input"]["game_hash"] == cases["vx-game-11000000"]["input"]["game_hash"]
    crash = by_id("vx_crash")["non-canonical-signature"]["input"]
    assert crash == cases["x-c0-plus-p"]["input"]
    assert output(by_id("vx_crash")["non-canonical-signature"])["crash"] != 3.51


def test_py_ecc_refuses_each_non_canonical_form_itself() -> None:
    """The reference relies on py_ecc's decoder for the canonical check (vx_verify's decision
    canonical-encoding): this pins that it refuses each form, for its own reason, so a
    py_ecc that relaxed one fails here instead of quietly turning a vector true."""
    field_prime()
    refusals = {
        "x-c0-plus-p": "z2 point value should be less than field modulus",
        "x-c1-plus-p": "x1 value should be less than field modulus",
        "uncompressed-flag-cleared": "c_flag should be 1",
        "infinity-flag-on-signature": "b_flag should be 0",
        "infinity-and-sort-flags": "a point at infinity should have a_flag == 0",
        "not-on-curve": "Failed to find a modular squareroot",
    }
    cases = by_id("vx_verify")
    for name, reason in refusals.items():
        with pytest.raises(ValueError, match=re.escape(reason)):
            decode(cases[name]["input"]["signature"])
        assert output(cases[name]) == {"valid": False}, name


def test_the_torsion_vector_is_the_signature_plus_a_point_outside_g2() -> None:
    field_prime()
    from py_ecc.bls.g2_primitives import subgroup_check
    from py_ecc.optimized_bls12_381.optimized_curve import (
        add,
        b2,
        is_inf,
        is_on_curve,
        multiply,
        neg,
    )

    cases = by_id("vx_verify")

    genuine = decode(cases["last-vx-game"]["input"]["signature"])
    moved = decode(cases["signature-plus-torsion-point"]["input"]["signature"])
    torsion = add(moved, neg(genuine))
    assert is_on_curve(moved, b2) and not subgroup_check(moved)
    assert not is_inf(torsion) and is_inf(multiply(torsion, TORSION_ORDER))
    assert output(cases["signature-plus-torsion-point"]) == {"valid": False}


def test_the_uncompressed_vector_is_the_signature_uncompressed() -> None:
    field_prime()
    from py_ecc.optimized_bls12_381.optimized_curve import normalize

    cases = by_id("vx_verify")
    x, y = normalize(decode(cases["last-vx-game"]["input"]["signature"]))
    coordinates = (x.coeffs[1], x.coeffs[0], y.coeffs[1], y.coeffs[0])
    uncompressed = b"".join(int(c).to_bytes(48, "big") for c in coordinates).hex()
    assert cases["uncompressed-signature"]["input"]["signature"] == uncompressed
    assert cases["uncompressed-signature"]["expected"] == {"error": "bad-signature"}


@pytest.mark.heavy  # an outside BLS library over every vector
def test_an_independent_bls_library_gives_every_vx_signature_and_verdict() -> None:
    """The reference signs and verifies with arkworks (Rust, through py-arkworks-bls12381);
    py_ecc (pure Python, the library the research file checked its values with) recomputes
    every vx_signature and vx_game signature and every vx_verify verdict here, on its own
    code: its G2Basic scheme, decoder and pairing (27 s at load 26 on 2 cores; the Vx
    vectors in `generate --check` went from about 46 s to 0.3 s meanwhile)."""
    pytest.importorskip("py_ecc", reason="py_ecc is not installed (the fairvec[test] extra)")
    from py_ecc.bls.ciphersuites import G2Basic

    signed = {}
    for name in ("vx_signature", "vx_game"):
        for vector in vectors(name):
            if "output" in vector["expected"]:
                signed[vector["input"]["game_hash"]] = output(vector)["signature"]
    for game_hash, signature in signed.items():
        message = bustabit.vx_message(bytes.fromhex(game_hash))
        assert G2Basic.Sign(bustabit.VX_PRIVATE_KEY, message).hex() == signature, game_hash
    checked = 0
    for vector in vectors("vx_verify"):
        if "output" in vector["expected"]:
            given = vector["input"]
            message = bustabit.vx_message(bytes.fromhex(given["game_hash"]))
            signature = bytes.fromhex(given["signature"])
            found = G2Basic.Verify(bustabit.VX_PUBLIC_KEY, message, signature)
            assert found == output(vector)["valid"], vector["id"]
            checked += 1
    assert len(signed) >= 10 and checked >= 25


def test_the_reference_decoder_refuses_each_non_canonical_form() -> None:
    """The reference decodes with arkworks, which refuses a coordinate plus p but reads any
    value with the infinity flag as the identity; the reference's own re-encoding check
    refuses those (vx_verify's decision canonical-encoding), so a decoder more lenient
    than the decision fails here rather than turning a vector true."""
    pytest.importorskip("py_arkworks_bls12381", reason="the fairvec[vx] extra")
    cases = by_id("vx_verify")
    for name in (
        "x-c0-plus-p", "x-c1-plus-p", "uncompressed-flag-cleared", "infinity-flag-on-signature",
        "infinity-and-sort-flags", "not-on-curve", "signature-plus-torsion-point", "all-zero",
    ):  # fmt: skip
        signature = bytes.fromhex(cases[name]["input"]["signature"])
        assert bustabit.decode_signature(signature) is None, name
    identity = bytes.fromhex(cases["point-at-infinity"]["input"]["signature"])
    assert identity == bytes([0xC0]) + bytes(95)  # the identity's one encoding decodes...
    assert bustabit.decode_signature(identity) is not None
    assert output(cases["point-at-infinity"]) == {"valid": False}  # ...and never verifies


def test_a_bad_signature_text_is_a_one_line_error() -> None:
    game = by_id("vx_crash")["last-vx-game"]["input"]
    with pytest.raises(InvalidInput) as refused:
        compute("bustabit.vx_crash", dict(game, signature=game["signature"][:96]))
    assert refused.value.code == "bad-signature"
    assert "signature" in refused.value.message and "192" in refused.value.message


def test_the_vx_algorithms_needing_the_extra_are_listed() -> None:
    assert EXTRAS["vx"] == ("py_arkworks_bls12381",)
    needing = {name for name, (extra, _) in ALGORITHMS_NEEDING.items() if extra == "vx"}
    assert needing == {"bustabit.vx_signature", "bustabit.vx_verify", "bustabit.vx_game"}
    # vx_crash is HMAC only: usable without the extra
    assert "bustabit.vx_crash" not in ALGORITHMS_NEEDING


@pytest.fixture
def without_the_vx_extra(tmp_path: Path) -> dict[str, str]:
    hidden = tmp_path / "hidden" / "py_arkworks_bls12381"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError('py_arkworks_bls12381 is hidden')\n")
    return {**os.environ, "PYTHONPATH": str(tmp_path / "hidden")}


def test_without_the_extra_generate_names_it_before_any_work(
    without_the_vx_extra: dict[str, str], tmp_path: Path
) -> None:
    done = subprocess.run(
        [*FAIRVEC_COMMAND, "generate", "--check", "--root", str(REPO), "--algorithm",
         "bustabit.vx_*"],
        capture_output=True, text=True, env=without_the_vx_extra, timeout=HANG, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "pip install 'fairvec[vx]'" in done.stderr
    assert done.stdout == ""
    crash_only = subprocess.run(
        [*FAIRVEC_COMMAND, "generate", "--check", "--root", str(REPO), "--algorithm",
         "bustabit.vx_crash"],
        capture_output=True, text=True, env=without_the_vx_extra, timeout=HANG, cwd=tmp_path,
    )  # fmt: skip
    assert crash_only.returncode == 0, crash_only.stderr


def test_without_the_extra_the_python_adapter_names_it(
    without_the_vx_extra: dict[str, str], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    done = subprocess.run(
        [*FAIRVEC_COMMAND, "run", "--bundled", "python", "--algorithm", "bustabit.vx_signature",
         "-k", "last-vx-game", "--json", str(report)],
        capture_output=True, text=True, env=without_the_vx_extra, timeout=HANG, cwd=tmp_path,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    text = report.read_text(encoding="utf-8")
    assert "fairvec[vx]" in text and "fairvec[analysis]" not in text


# --- the Node adapter: an independent BLS12-381 ---------------------------------------------


@pytest.mark.heavy
@pytest.mark.skipif(NODE is None, reason="Node.js is not installed (no 'node')")
def test_node_agrees_with_the_reference_on_every_vx_and_position_vector() -> None:
    done = fairvec(
        "run", "--bundled", "node", "--algorithm", "bustabit.vx*",
        "--algorithm", "bustabit.chain_position", "--exclude-tag", "slow", timeout=HANG,
    )  # fmt: skip
    assert done.status == 0, done.stdout[-3000:] + done.stderr
    counts = re.search(r"(\d+) passed, 0 failed, 0 errors, 0 skipped", done.stdout)
    total = (
        sum(len(vectors(name)) for name in ("vx_signature", "vx_crash", "vx_verify", "vx_game"))
        + 2  # vx_game's accumulated stream, and the fresh one drawn beside it at run time
        + sum("slow" not in v["tags"] for v in vectors("chain_position"))
    )
    assert counts and int(counts.group(1)) == total, done.stdout[-2000:]


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed (no 'node')")
def test_node_loads_bls_only_when_asked() -> None:
    assert NODE is not None
    script = (
        "const a = require('./adapters/node/lib.js').loadAlgorithms();"
        "const noble = () => Object.keys(require.cache).some((k) => k.includes('@noble'));"
        "const before = noble();"
        # the point at infinity's encoding: canonical, so it reaches noble (all zeros would not)
        "a['bustabit.vx_verify'].run({game_hash: '00'.repeat(32),"
        " signature: 'c0'.padEnd(192, '0')});"
        "console.log(JSON.stringify([before, noble()]));"
    )
    done = subprocess.run([NODE, "-e", script], capture_output=True, text=True, cwd=REPO,
                          timeout=HANG)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [False, True]


def test_the_vendored_files_are_the_ones_recorded() -> None:
    text = (VENDOR / "PROVENANCE.md").read_text(encoding="utf-8")
    recorded = dict(
        (path, digest)
        for digest, path in re.findall(r"^([0-9a-f]{64})  (node_modules/\S+)$", text, re.M)
    )
    present = {
        path.relative_to(VENDOR).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in (VENDOR / "node_modules").rglob("*")
        if path.is_file()
    }
    assert present == recorded
    assert "MIT License" in (VENDOR / "node_modules/@noble/curves/LICENSE").read_text()


# --- fuzzing stays cheap ------------------------------------------------------------------------


def test_fuzzed_game_numbers_keep_to_the_cost_bound() -> None:
    from fairvec.fuzz.plan import AlgorithmPlan
    from fairvec.fuzz.space import load_space
    from fairvec.specs import load_spec

    spec_root = REPO / "spec"
    spec = load_spec(spec_root / "bustabit" / "chain_position.yaml", spec_root)
    plan = AlgorithmPlan(spec, load_space().for_algorithm(spec.id), spec.variants)
    drawn = [plan.draw("7", index) for index in range(400)]
    numbers = [d.input.get("game_number") for d in drawn]
    valid = [n for n in numbers if type(n) is int and 1 <= n <= 20_000_000]
    assert valid and all(10_000_001 <= n <= 10_004_096 for n in valid)
    assert any(any("game_number: clamped" in how for how in d.how) for d in drawn)
    # a fraction is wrong-type and stays as drawn: clamped, it became 10000001.0 by accident.
    # The invalid kind `integral` draws that value on purpose (wrong-type, issue 34 section 6),
    # so only a clamped draw may not hold it.
    clamped = [d.input.get("game_number") for d in drawn if any("clamped" in h for h in d.how)]
    assert not [n for n in clamped if isinstance(n, float) and n.is_integer()]
