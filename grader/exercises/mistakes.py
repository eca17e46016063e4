"""The catalogue of known numeric mistakes and the message each one gets.

Exercise files name a mistake (``optimizer-forgotten``) with an expression giving the wrong
number; the grader recognises an answer close to that number and answers with the message below
(unless the file gives its own). The three *unit slips* are checked on every bytes answer, as
ratios to the key, without the file having to list them.
"""

from __future__ import annotations

from dataclasses import dataclass

GIB_PER_GB = 2**30 / 10**9  # 1.0737...


@dataclass(frozen=True)
class UnitSlip:
    """A wrong answer that is the key times ``ratio`` (for any key)."""

    name: str
    ratio: float
    message: str


#: Checked for every numeric answer measured in bytes (``common_mistakes`` narrows the list).
UNIT_SLIPS: tuple[UnitSlip, ...] = (
    UnitSlip(
        "gib-for-gb",
        1 / GIB_PER_GB,
        "This is the right size counted in GiB (2^30 bytes) but labelled as GB (10^9 bytes): "
        "1 GiB = 1.074 GB, so the number came out 7% too small. Keep GB for 10^9 bytes.",
    ),
    UnitSlip(
        "gib-for-gb",
        GIB_PER_GB,
        "This is 1.074× the right size: GB (10^9 bytes) and GiB (2^30 bytes) were mixed up "
        "(e.g. the answer was given in GiB where the number was computed in GB).",
    ),
    UnitSlip(
        "bits-for-bytes",
        8.0,
        "This is 8× the right size: it looks like bits were counted instead of bytes "
        "(1 byte = 8 bits; fp16 is 2 bytes, fp32 is 4 bytes).",
    ),
    UnitSlip(
        "bits-for-bytes",
        1 / 8,
        "This is 1/8 of the right size: it looks like bytes were divided by 8 or a bit unit "
        "was used (1 byte = 8 bits).",
    ),
    UnitSlip(
        "fp32-for-fp16",
        2.0,
        "This is 2× the right size: it looks like 4 bytes (fp32) were counted where mixed "
        "precision keeps 2 bytes (fp16) for the parameters and gradients.",
    ),
    UnitSlip(
        "fp32-for-fp16",
        0.5,
        "This is half the right size: it looks like 2 bytes (fp16) were counted for values that "
        "are kept in 4 bytes (fp32), such as Adam's master weights, momentum and variance.",
    ),
)

UNIT_SLIP_NAMES = frozenset(slip.name for slip in UNIT_SLIPS)

#: Named mistakes an exercise may list with ``value: <expression>``; the message is the default.
NAMED_MISTAKES: dict[str, str] = {
    "optimizer-forgotten": (
        "This counts only the fp16 parameters and gradients (4 bytes per parameter, 4Ψ): Adam's "
        "optimizer state is missing. Mixed-precision Adam also keeps an fp32 copy of the "
        "parameters, the momentum and the variance (12 bytes), 16Ψ in all."
    ),
    "wrong-zero-part": (
        "The sharding is applied to the wrong part for this ZeRO stage. Stage 1 shards only the "
        "optimizer state, stage 2 adds the gradients, stage 3 adds the parameters."
    ),
    "off-by-dp": (
        "This is off by a factor of N_d (the number of data-parallel devices): check which parts "
        "are divided by N_d and whether the question asks per device or in total."
    ),
    "total-not-per-device": (
        "This is the total over all devices; the question asks for what one device holds."
    ),
}
