"""BLS12-381 signing and verifying for bustabit's Vx era, library by library, side by side in
one run (issue 35); prints, never asserts.

    python benchmarks/bls_signing.py [--signatures 20]

Each row signs the first Vx games' messages (reference/bustabit.py vx_message) with Vx's
private key under the basic scheme (tag ..._SSWU_RO_NUL_), checks the signature is the one
the vector files commit, and verifies it: CPU seconds per signature and per verification.
A library that cannot sign under that tag (milagro-bls-binding: the proof-of-possession tag
..._POP_ only) prints why instead of figures. Libraries that are not installed are listed
as such: pip install py-arkworks-bls12381 py_ecc milagro-bls-binding.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from collections.abc import Callable
from pathlib import Path

from fairvec.reference import bustabit

VECTORS = Path(__file__).resolve().parent.parent / "vectors" / "bustabit" / "vx_game.json"
Signer = Callable[[bytes], bytes]
Verifier = Callable[[bytes, bytes], bool]


def committed(count: int) -> list[tuple[bytes, bytes]]:
    """(message, signature) of the vx_game vectors that sign, repeated to ``count``."""
    data = json.loads(VECTORS.read_text(encoding="utf-8"))
    pairs = [
        (bustabit.vx_message(bytes.fromhex(v["input"]["game_hash"])),
         bytes.fromhex(v["expected"]["output"]["signature"]))
        for v in data["vectors"] if "output" in v["expected"]
    ]  # fmt: skip
    return (pairs * (count // len(pairs) + 1))[:count]


def arkworks() -> tuple[Signer, Verifier]:
    """The reference's own functions (reference/bustabit.py)."""
    return bustabit.vx_sign, bustabit.vx_verify_signature


def py_ecc() -> tuple[Signer, Verifier]:
    from eth_typing import BLSPubkey, BLSSignature
    from py_ecc.bls.ciphersuites import G2Basic

    def sign(message: bytes) -> bytes:
        return bytes(G2Basic.Sign(bustabit.VX_PRIVATE_KEY, message))

    def verify(message: bytes, signature: bytes) -> bool:
        return bool(
            G2Basic.Verify(BLSPubkey(bustabit.VX_PUBLIC_KEY), message, BLSSignature(signature))
        )

    return sign, verify


def milagro() -> tuple[Signer, Verifier]:
    import milagro_bls_binding as milagro_bls  # type: ignore[import-untyped,import-not-found,unused-ignore]

    key = bustabit.VX_PRIVATE_KEY.to_bytes(32, "big")

    def sign(message: bytes) -> bytes:
        return bytes(milagro_bls.Sign(key, message))

    def verify(message: bytes, signature: bytes) -> bool:
        return bool(milagro_bls.Verify(bustabit.VX_PUBLIC_KEY, message, signature))

    return sign, verify


LIBRARIES: list[tuple[str, str, Callable[[], tuple[Signer, Verifier]]]] = [
    ("py-arkworks-bls12381 (the reference)", "py_arkworks_bls12381", arkworks),
    ("py_ecc (the tests' cross-check)", "py_ecc", py_ecc),
    ("milagro-bls-binding", "milagro_bls_binding", milagro),
]


def cpu_seconds_each(work: Callable[[], object], times: int) -> float:
    started = time.process_time()
    for _ in range(times):
        work()
    return (time.process_time() - started) / times


def row(name: str, make: Callable[[], tuple[Signer, Verifier]], count: int) -> str:
    sign, verify = make()
    pairs = committed(count)
    first_message, first_signature = pairs[0]
    signs = iter(pairs)
    sign_each = cpu_seconds_each(lambda: sign(next(signs)[0]), len(pairs))
    verifies = iter(pairs)
    verify_each = cpu_seconds_each(lambda: verify(*next(verifies)), len(pairs))
    figures = f"{name:38} {sign_each * 1000:10.2f} ms {verify_each * 1000:12.2f} ms"
    if sign(first_message) != first_signature:  # timed all the same, for comparison
        return figures + "   another scheme's signatures: not Vx's, unusable here"
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--signatures", type=int, default=20, help="signatures each (20)")
    count = parser.parse_args().signatures
    print(f"{'library':38} {'sign (CPU)':>13} {'verify (CPU)':>15}   ({count} each)")
    for name, module, make in LIBRARIES:
        if importlib.util.find_spec(module) is None:
            print(f"{name:38} not installed")
            continue
        print(row(name, make, count), flush=True)


if __name__ == "__main__":
    main()
