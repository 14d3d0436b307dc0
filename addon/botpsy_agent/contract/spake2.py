"""SPAKE2 over a 3072-bit safe-prime group: a shared key from a short one-time code.

Pairing the Home Assistant integration with the app must give both a secret that nobody
else on the MQTT broker learns. SPAKE2 (Abdalla and Pointcheval; RFC 9382 describes it on
elliptic curves) does that with nothing but a short code the user copies from the app's log:

* a passive eavesdropper sees two group elements and two confirmation tags: it learns
  neither the key nor anything to test guesses of the code against;
* an active attacker gets one guess of the code per pairing session, no more (the app limits
  the sessions per code, so guessing fails).

The group is the 3072-bit MODP group of RFC 3526 (a safe prime p = 2q + 1; g = 2 generates
the subgroup of prime order q). M and N, the blinding elements, are hashed into that subgroup
(squared), so nobody knows their discrete logarithms. Only the standard library is used: the
app's image carries no cryptography package (nor has the integration one to rely on).

A is the integration (it starts), B is the app:

    A: T = g^x * M^w          ->  B
    B: S = g^y * N^w, cB      ->  A      K = (T / M^w)^y
    A: checks cB, sends cA    ->  B      K = (S / N^w)^x
    both: secret from the transcript (T, S, K, w)
"""

from __future__ import annotations

from dataclasses import dataclass
import hashlib
import hmac
import secrets

P = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B2251"
    "4A08798E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C"
    "42E9A637ED6B0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007C"
    "B8A163BF0598DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB9ED52907"
    "7096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3BE39E772C180E86039B2783A2EC"
    "07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA051015728E5A8AAA"
    "C42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4"
    "C7ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64"
    "521F2B18177B200CBBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B"
    "82D120A93AD2CAFFFFFFFFFFFFFFFF",
    16,
)
"""RFC 3526, group 15 (3072-bit MODP)."""
Q = (P - 1) // 2
G = 2
ELEMENT_BYTES = (P.bit_length() + 7) // 8
EXPONENT_BITS = 384
"""Random exponents are short: for a safe-prime group three times the security level (128
bits) is ample, and a 384-bit exponent is eight times faster than a full one."""
PROTOCOL = b"botpsy-spake2-rfc3526-3072-v1"


def _hash_to_subgroup(label: bytes) -> int:
    digest = hashlib.shake_256(PROTOCOL + b" element " + label).digest(ELEMENT_BYTES + 32)
    return pow(int.from_bytes(digest) % P, 2, P)


M = _hash_to_subgroup(b"M")
N = _hash_to_subgroup(b"N")
CLIENT = "homeassistant"
"""A's identity in the transcript; B's is the app's instance name."""


class Spake2Error(ValueError):
    """A peer's message is not a valid group element or hex string."""


def password_scalar(code: str, instance: str) -> int:
    """w: the normalised pairing code, bound to the instance it pairs with."""
    material = b"\x00".join((PROTOCOL, b"w", instance.encode(), code.encode()))
    return int.from_bytes(hashlib.sha512(material).digest()) % Q


def random_exponent() -> int:
    return secrets.randbits(EXPONENT_BITS) | 1


def element_to_hex(value: int) -> str:
    return value.to_bytes(ELEMENT_BYTES).hex()


def element_from_hex(text: object) -> int:
    """A peer's group element, checked: in range and in the prime-order subgroup."""
    if not isinstance(text, str) or len(text) != 2 * ELEMENT_BYTES:
        raise Spake2Error(f"a group element is {2 * ELEMENT_BYTES} hex digits")
    try:
        value = int(text, 16)
    except ValueError:
        raise Spake2Error("a group element is hex digits") from None
    if not 1 < value < P - 1 or pow(value, Q, P) != 1:
        raise Spake2Error("not an element of the group")
    return value


def share(exponent: int, w: int, blind: int) -> int:
    """g^exponent * blind^w: A's T (blind M) or B's S (blind N)."""
    return pow(G, exponent, P) * pow(blind, w, P) % P


def shared_element(peer_share: int, w: int, peer_blind: int, exponent: int) -> int:
    """K = (peer_share / peer_blind^w)^exponent (peer_share checked already)."""
    return pow(peer_share * pow(peer_blind, -w, P) % P, exponent, P)


@dataclass(frozen=True)
class SessionKeys:
    """What one successful exchange yields."""

    secret: str
    """The shared signing secret: 64 lowercase hex digits."""
    confirm_a: str
    """A's confirmation tag (hex); B checks it."""
    confirm_b: str
    """B's confirmation tag (hex); A checks it."""


def session_keys(instance: str, t: int, s: int, k: int, w: int) -> SessionKeys:
    """Keys and confirmation tags from the transcript, the same on both sides."""
    transcript = b"".join(
        _length_prefixed(part)
        for part in (
            CLIENT.encode(),
            instance.encode(),
            t.to_bytes(ELEMENT_BYTES),
            s.to_bytes(ELEMENT_BYTES),
            k.to_bytes(ELEMENT_BYTES),
            w.to_bytes(ELEMENT_BYTES),
        )
    )
    digest = hashlib.sha512(transcript).digest()
    key_e, key_a = digest[:32], digest[32:]
    confirm_keys = _hkdf(key_a, b"ConfirmationKeys", 64)
    return SessionKeys(
        secret=_hkdf(key_e, PROTOCOL + b" signing secret", 32).hex(),
        confirm_a=hmac.new(confirm_keys[:32], transcript, hashlib.sha256).hexdigest(),
        confirm_b=hmac.new(confirm_keys[32:], transcript, hashlib.sha256).hexdigest(),
    )


def tags_match(expected: str, received: object) -> bool:
    return isinstance(received, str) and hmac.compare_digest(expected, received)


def _length_prefixed(data: bytes) -> bytes:
    return len(data).to_bytes(8, "little") + data


def _hkdf(key: bytes, info: bytes, length: int) -> bytes:
    """HKDF-SHA256 (RFC 5869) with an empty salt."""
    prk = hmac.new(b"\x00" * 32, key, hashlib.sha256).digest()
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]
