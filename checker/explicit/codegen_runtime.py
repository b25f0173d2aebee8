"""What the generated successors call at run time, and the namespace they are executed in.

The source checker.explicit.codegen writes is plain expressions over the packed state's locals;
whatever needs more (raising an evaluation error with the spec's words and place, the seats of
a window, the k-th player still in the game, packing and unpacking) is a helper here, called by
a made-up name (`_ix`, `_ring`...). `namespace` gives those names to the generated code of one
compiled machine: the helpers that read the instance (its size, its teams, the messages and
spans the generator recorded) are closures made for it, the others plain functions.

These run inside the search, so the watchdog may stop them (checker.limits lists this module
with the closures as safe to interrupt).
"""
from __future__ import annotations

from .machine import Step
from .values import EvalError, Overflow, after_in, best_of, dist_in_game, lost_mask, mask_of, result_mask

# what the generated code may call of Python's own: nothing that reaches a module, a file or
# an attribute by name
BUILTINS = {"range": range, "list": list, "sorted": sorted, "frozenset": frozenset, "len": len,
            "sum": sum, "min": min, "max": max, "abs": abs, "all": all, "any": any, "bool": bool,
            "tuple": tuple, "str": str}


def namespace(inst, gen, resolved: dict, resolve) -> dict:
    """The globals of a compiled machine's generated code: `gen` is the machine's `Generator`
    (its `spans` and `names` give the errors' places and words, its `fields` the layout),
    `resolved` and `resolve` the machine's cache of outcome resolutions and what fills it."""
    members = tuple(inst.members_mask(t) for t in range(inst.nteams))
    return {
        "__builtins__": dict(BUILTINS),
        "EvalError": EvalError, "Overflow": Overflow, "Step": Step,
        "TEAM_OF": tuple(inst.team_of), "MEMBERS": members,
        **_error_helpers(inst, gen.spans, gen.names),
        **_seat_helpers(inst, members),
        "_ring": _ring, "_dist_in_game": dist_in_game,
        "_member": lambda x, s: x >= 0 and (s >> x) & 1 == 1,
        "_mask_of": mask_of, "_bits": _bits, "_count": _count, "_covers": lambda v, m: v & m == m,
        "_unbits": _unbits, "_unfields": _unfields, "_packbits": _packbits, "_packfields": _packfields,
        "RESOLVED": resolved, "resolve": resolve,
        "_lost": lost_mask, "_result": result_mask,
        "FIELDS": gen.fields,
    }


def _error_helpers(inst, spans: list, names: list) -> dict:
    """The helpers that may fail: each raises with the message and span the generator recorded
    under the id the source passes (`sid`; `site` for an assignment)."""

    def _ix(i, base, count, sid):
        if not 0 <= i - base < count:
            raise EvalError(f"index {i} of {spans[sid][1]} is outside its range", spans[sid][0])
        return i - base

    def _narrow(v, sid):
        if v < 0:
            raise EvalError(spans[sid][1], spans[sid][0])
        return v

    def _div(a, d, sid):
        if d == 0:
            raise EvalError("division by zero", spans[sid][0])
        return a // d

    def _mod(a, d, sid):
        if d == 0:
            raise EvalError("division by zero", spans[sid][0])
        return a % d

    def _overflow(site, k, v):
        var, span = names[site]
        key = var.name if k < 0 or not var.indexed else f"{var.name}[{var.index_keys(inst)[k]}]"
        raise Overflow(key, v * var.step if var.step != 1 else v, span)  # the value the document would see (`in steps of`)

    def _after(x, vals, sid):
        return after_in(x, vals, spans[sid][0], spans[sid][1], inst.show)

    def _arg(pairs, sign, empty_ok, sid):
        best = best_of(pairs, sign)
        if best is None:
            if empty_ok:
                return -1
            raise EvalError(spans[sid][1], spans[sid][0])
        return best

    return {"_ix": _ix, "_narrow": _narrow, "_div": _div, "_mod": _mod, "_overflow": _overflow, "_arg": _arg,
            "_after": _after}


def _seat_helpers(inst, members: tuple) -> dict:
    """The helpers that compute on this instance's seats and teams."""
    n = inst.nplayers

    def _teammates(p):
        return members[inst.team_of[p]] & ~(1 << p)

    def _team_in_game(t, out, tout):
        return not (tout >> t) & 1 and (members[t] & ~out) != 0

    def _dist(p, q):
        return min((q - p) % n, (p - q) % n)

    every = (1 << n) - 1

    def _seats(lo, hi, s, direction):
        """The mask of the seats s + direction * k for k in lo..hi (codegen's seat windows)."""
        if hi < lo:
            return 0
        w = hi - lo + 1
        if w >= n:
            return every
        m = ((1 << w) - 1) << ((s + lo) % n if direction > 0 else (s - hi) % n)
        return (m | (m >> n)) & every

    def _nearest(lo, hi, s, direction, v, c):
        """min over k in lo..hi of (k if seat s + direction * k is marked in v else c); 0 for
        no k, as min(..., default=0) gives (codegen's nearest_seat)."""
        if hi < lo:
            return 0
        m = _seats(lo, hi, s, direction)
        if lo == 0:  # from s itself: the mask rotated so that the seats that way are its bits in order
            top = min(hi, n - 1)
            if direction > 0:  # bit k: seat s + k
                r = ((v >> s) | (v << (n - s))) & every & ((2 << top) - 1)
                k = (r & -r).bit_length() - 1
            else:  # bit n - 1 - k: seat s - k
                sh = (s + 1) % n
                r = ((v >> sh) | (v << (n - sh))) & every & ~((1 << (n - 1 - top)) - 1)
                k = n - r.bit_length()
            if not r:
                return c
            return k if v & m == m or k <= c else c
        for k in range(lo, min(hi, lo + n - 1) + 1):  # after n values of k the seats repeat
            if (v >> ((s + direction * k) % n)) & 1:
                return k if v & m == m or k <= c else c
        return c

    return {"_teammates": _teammates, "_team_in_game": _team_in_game, "_dist": _dist, "_seats": _seats,
            "_nearest": _nearest}


# ---------------------------------------------------------------- packed entries to slots and back

def _unbits(x, count):
    return [(x >> i) & 1 == 1 for i in range(count)]


def _unfields(x, count, width, mask, low):
    return [((x >> (i * width)) & mask) + low for i in range(count)]


def _packbits(vals):
    m = 0
    for i, v in enumerate(vals):
        if v:
            m |= 1 << i
    return m


def _packfields(vals, width, low):
    m = 0
    for i, v in enumerate(vals):
        m |= (v - low) << (i * width)
    return m


# ---------------------------------------------------------------- instance-independent helpers

def _ring(p: int, k: int, direction: int, out: int, n: int) -> int:
    """`ring_step`, with the common case first: nobody out, the k-th seat that way. Otherwise
    on the mask of the players in the game, rotated so that the seats from p that way are its
    bits in order: the k-th is found by clearing bits, not by walking seat after seat (the
    players in the game repeat round the table, p among them; p itself when nobody else is in)."""
    if k <= 0:
        return p
    if not out:
        return (p + direction * k) % n
    every = (1 << n) - 1
    ins = every & ~out
    if not ins & ~(1 << p):
        return p
    j = (k - 1) % ins.bit_count()
    if direction > 0:  # bit i: seat p + 1 + i
        sh = (p + 1) % n
        r = ((ins >> sh) | (ins << (n - sh))) & every
        for _ in range(j):
            r &= r - 1
        return (p + 1 + (r & -r).bit_length() - 1) % n
    r = ((ins >> p) | (ins << (n - p))) & every  # bit t: seat p + t; going right, the highest first
    for _ in range(j):
        r ^= 1 << (r.bit_length() - 1)
    return (p + r.bit_length() - 1) % n


def _bits(mask: int, width: int) -> list:
    return [i for i in range(width) if (mask >> i) & 1]


def _count(vals) -> int:
    return sum(1 for x in vals if x)
