"""Benchmark the solver: speed, duplicate strength, regret. Prints; never asserts.

    .venv/bin/python bench/arrange.py                      # everything, issue sizes
    .venv/bin/python bench/arrange.py --deals 200 --regret-hands 50 --regret-samples 2000
    .venv/bin/python bench/arrange.py --only speed
    .venv/bin/python bench/arrange.py --only regret --regret-players 4
    .venv/bin/python bench/arrange.py --only regret --regret-hands 200 \
        --regret-samples 20000 --regret-cache /tmp/regret.jsonl        # ~50 min, 2 cores
    git show a299dc6:capsa/row_tables.npz > /tmp/old.npz
    .venv/bin/python bench/arrange.py --only strength --old-tables /tmp/old.npz \
        --pairings hard:normal,normal:normal-old,hard:normal-old     # ~8 min, 2 cores

Speed: one process, with capsa.solver.keep_memory() as the bot's workers have it
(--no-keep-memory: glibc's defaults). Printed with the load average at the start and the
median CPU time of a solve beside the wall time (a loaded machine stretches the wall time
more). hard's p90 is above its median by design: the hands where its choice is at risk
(a quarter to a third at four players) set three times the opponent hands, those still
at risk then nine times, and the few left fifteen times (HARD_STAGES in
capsa.solver.monte_carlo). Then the CPU time of setting one opponent hand by normal
(normal_splits), which is most of a hard solve.

Strength: duplicate 4-handed play on fixed deals, standard preset. For a pairing X vs Y,
X sits in each seat in turn against three Y; X's points are compared with what Y scored
in that seat when all four seats were Y (same cards), so the luck of the deal cancels.
Reported: X's mean gain per hand over Y and its standard error (over deals). A level
"normal-old" is normal with other row tables (--old-tables), e.g. an earlier commit's.

Regret, for 2, 3 and 4 players: on fixed hands, every Pareto-undominated split (by the
rows' showdown keys: a dominated split never scores more), the splits normal and hard
chose and declaring the special are all scored on the same deals of the unseen cards to
opponents set by normal (--regret-samples opponent hands a hand). Regret = best
candidate's mean - the level's choice's mean, in points a hand, with its standard error
over hands. The best of many noisy means is biased up, so that regret is an upper bound
of the true one (a chooser that always takes the true best still shows a positive
regret, the larger the fewer the deals); a held-out figure is printed beside it, a lower
bound: the deals are cut in REGRET_BLOCKS blocks, the best candidate is picked on all
blocks but one and valued on that one, each block in turn (biased down: the pick may not
be the best). The true regret lies between the two; more deals narrow the gap.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from capsa.cards import DECK, deal
from capsa.presets import Preset, get_preset
from capsa.scoring import Seat, score_round
from capsa.solver import arrange, keep_memory
from capsa.solver import model as solver_model
from capsa.solver.evaluator import C3, C5, MASK5, HandTables, find_specials
from capsa.solver.model import (
    RowModel,
    best_special,
    normal_splits,
    preset_key,
    table_models,
    table_name,
    value_table,
)
from capsa.solver.monte_carlo import (
    SET_CHUNK,
    after_fee,
    candidate_rows,
    score_with,
    set_hands,
    split_keys,
    subset_keys,
    surrender_points,
)

PRESET = get_preset("standard")
SEED = 424242
LOADAVG = Path("/proc/loadavg")
LEVELS_MEASURED = ("normal", "hard")
SPECIAL, SURRENDER = "special", "surrender"  # a level's choice that is not a split
REGRET_BLOCKS = 8  # blocks of a regret hand's deals, for the held-out regret
# Every preset with every option that changes what a hand is worth: the regret and speed
# tables have a row for each of these at each table size.
TABLES: dict[str, Preset] = {
    "standard": get_preset("standard"),
    "sayapoker": get_preset("sayapoker"),
    "sayapoker room_fee": get_preset("sayapoker", {"room_fee": True}),
    "indocapsa": get_preset("indocapsa"),
    "chinese-poker 1-6": get_preset("chinese-poker"),
    "chinese-poker 2-4": get_preset("chinese-poker", {"method": "2-4"}),
    "chinese-poker 1-6 surrender": get_preset("chinese-poker", {"surrender": True}),
    "chinese-poker 2-4 surrender": get_preset(
        "chinese-poker", {"method": "2-4", "surrender": True}
    ),
}


def greedy(hand):
    """Best back, then best middle, the rest in front."""
    idx = np.array([c.index for c in hand])
    tables = HandTables(idx)
    back = int(np.argmax(tables.cls5))
    mids = np.flatnonzero((MASK5 & MASK5[back]) == 0)
    middle = int(mids[np.argmax(tables.cls5[mids])])
    order = np.argsort(idx, kind="stable")
    cards = [hand[i] for i in order]
    used = set(C5[back].tolist()) | set(C5[middle].tolist())
    front = [p for p in range(13) if p not in used]
    assert len(front) == 3 and len(C3) == 286

    def row(ps):
        return tuple(cards[p] for p in ps)

    return Seat("", row(C5[back]), row(C5[middle]), row(front))


OLD_TABLES: dict[str, tuple[RowModel, ...]] = {}  # --old-tables: "normal-old"'s models


def setting(hand, level, seed):
    if level == "greedy":
        return greedy(hand)
    if level == "normal-old":
        # normal as it is, with the row tables of --old-tables
        key = (preset_key(PRESET), 3)
        current = solver_model._MODELS.get(key)
        solver_model._MODELS[key] = OLD_TABLES["models"]
        try:
            a = arrange(hand, PRESET, "normal", 3, seed=seed)
        finally:
            if current is None:
                solver_model._MODELS.pop(key)
            else:
                solver_model._MODELS[key] = current
    else:
        a = arrange(hand, PRESET, level, 3, seed=seed)
    return Seat("", a.back, a.middle, a.front, declare=a.declare)


def _use_old_tables(path: str | None) -> None:
    keep_memory()
    if path:
        data = np.load(path)
        if "names" in data:  # a table per preset and size: the standard preset's, 4 players
            table = solver_model.load_tables(path)[table_name(PRESET, 4)]
            OLD_TABLES["models"] = table_models(PRESET, 3, table)
        else:  # one table, before there were several
            counts = data["counts"].astype(np.float64)
            OLD_TABLES["models"] = (RowModel(PRESET, 3, counts, float(data["sweep"])),)


def named(seat: Seat, i: int) -> Seat:
    return Seat(f"P{i}", seat.back, seat.middle, seat.front, declare=seat.declare)


def _speed(level: str, hands: int, preset: Preset = PRESET, opponents: int = 3):
    """(median, p90, median of the process's CPU time) milliseconds of ``arrange`` at
    ``level`` over ``hands`` hands. The CPU time is what the solve itself costs, which a
    loaded machine stretches less than the wall time."""
    times, cpu = [], []
    for n in range(hands):
        hand = deal(4, seed=SEED + n)[0]
        start, start_cpu = time.perf_counter(), time.process_time()
        arrange(hand, preset, level, opponents, seed=n)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return (
        statistics.median(times) * 1e3,
        float(np.percentile(times, 90)) * 1e3,
        statistics.median(cpu) * 1e3,
    )


def speed(normal_hands: int, hard_hands: int, tables, sizes, memory: str) -> None:
    load = " ".join(LOADAVG.read_text().split()[:3]) if LOADAVG.exists() else "?"
    print(f"Speed per hand (one process, {memory}); targets: normal median <= 1 ms, hard <= 100 ms")
    print(f"load average at the start: {load}")
    print(
        f"{'table':<28} {'players':>7} {'level':<7} {'median ms':>9} {'p90 ms':>8} "
        f"{'cpu median':>10} {'hands':>6}"
    )
    for name in tables:
        preset = TABLES[name]
        for players in sizes:
            arrange(deal(4, seed=1)[0], preset, "normal", players - 1)  # load the tables
            for level, n in (("normal", normal_hands), ("hard", hard_hands)):
                med, p90, cpu = _speed(level, n, preset, players - 1)
                print(
                    f"{name:<28} {players:>7} {level:<7} {med:>9.2f} {p90:>8.2f} {cpu:>10.2f} "
                    f"{n:>6}"
                )


def opponent_speed(tables, sizes, batches: int = 10) -> None:
    """CPU time of setting one opponent hand by normal (normal_splits, SET_CHUNK hands at
    once, as hard's Monte Carlo sets them): hard pays it for each of its 240 to 3,600
    opponent hands, and it is most of a hard solve."""
    rng = np.random.default_rng(SEED)
    hands = np.sort(np.stack([rng.permutation(52)[:13] for _ in range(SET_CHUNK * batches)]), 1)
    print(f"\nOpponent hands set by normal_splits, {SET_CHUNK} at once (ms a hand, best of 3)")
    print(f"{'table':<28} " + " ".join(f"{p:>2} players" for p in sizes))
    for name in tables:
        preset = TABLES[name]
        row = []
        for players in sizes:
            normal_splits(hands[:SET_CHUNK], preset, players - 1)  # load the tables
            times = []
            for _ in range(3):
                start = time.process_time()
                for at in range(0, len(hands), SET_CHUNK):
                    normal_splits(hands[at : at + SET_CHUNK], preset, players - 1)
                times.append((time.process_time() - start) / len(hands) * 1e3)
            row.append(min(times))
        print(f"{name:<28} " + " ".join(f"{t:>10.3f}" for t in row))


def _strength_chunk(args):
    deals, pairings = args
    levels = sorted({lv for p in pairings for lv in p})
    out = {p: [] for p in pairings}
    for d in deals:
        hands = deal(4, seed=SEED + 100000 + d)
        seats = {lv: [setting(h, lv, d * 4 + i) for i, h in enumerate(hands)] for lv in levels}
        for x, y in pairings:
            base = score_round([named(s, i) for i, s in enumerate(seats[y])], PRESET)
            diffs = []
            for i in range(4):
                table = [named(seats[x][j] if j == i else seats[y][j], j) for j in range(4)]
                result = score_round(table, PRESET)
                diffs.append(result.players[i].points - base.players[i].points)
            out[(x, y)].append(float(np.mean(diffs)))
    return out


def strength(n_deals: int, workers: int, pairings, old_tables: str | None = None) -> None:
    chunks = [(list(range(w, n_deals, workers)), pairings) for w in range(workers)]
    start = time.perf_counter()
    with ProcessPoolExecutor(workers, initializer=_use_old_tables, initargs=(old_tables,)) as pool:
        parts = list(pool.map(_strength_chunk, chunks))
    print(
        f"\nDuplicate strength, standard, 4 players, {n_deals} deals "
        f"({time.perf_counter() - start:.0f}s)"
    )
    print(f"{'pairing':<20} {'gain/hand':>10} {'s.e.':>7}")
    for p in pairings:
        values = np.array([v for part in parts for v in part[p]])
        se = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
        print(f"{p[0] + ' vs ' + p[1]:<20} {values.mean():>+10.3f} {se:>7.3f}")


# --- regret ---------------------------------------------------------------------------------


def pareto_keys(back: np.ndarray, middle: np.ndarray, front: np.ndarray) -> np.ndarray:
    """Indices of the splits no other split dominates (>= in every row's showdown key, >
    in one); of equal key triples, the first. Points are monotone in each row's key, so
    the best setting against any opponents is among these."""
    n = len(back)
    mu, mi = np.unique(middle, return_inverse=True)
    fu, fi = np.unique(front, return_inverse=True)
    grid = np.full((len(mu) + 1, len(fu) + 1), np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(grid, (mi, fi), back)
    suffix = grid[::-1, ::-1]
    suffix = np.maximum.accumulate(np.maximum.accumulate(suffix, axis=0), axis=1)[::-1, ::-1]
    better_other = np.maximum(suffix[mi + 1, fi], suffix[mi, fi + 1])
    undominated = (better_other < back) & (grid[mi, fi] <= back)
    _, first = np.unique(np.stack([back, middle, front], axis=1), axis=0, return_index=True)
    keep = np.zeros(n, dtype=bool)
    keep[first] = True
    return np.flatnonzero(undominated & keep)


def _split_of(tables: HandTables, a) -> int:
    """The valid split holding the Arrangement's ordinary rows."""
    pos = {int(card.index): p for p, card in enumerate(DECK[i] for i in tables.indices)}
    back, middle = (sum(1 << pos[c.index] for c in row) for row in a.ordinary[:2])
    k = np.arange(len(tables.valid))
    hit = (MASK5[tables.back_subset(k)] == back) & (MASK5[tables.middle_subset(k)] == middle)
    return int(np.flatnonzero(hit)[0])


def _choices(n: int, players: int, tables: HandTables, preset: Preset) -> dict:
    """Each measured level's choice for the test hand: a valid split, SPECIAL or SURRENDER."""
    hand = [DECK[i] for i in tables.indices]
    out = {}
    for level in LEVELS_MEASURED:
        a = arrange(hand, preset, level, players - 1, seed=n)
        out[level] = SURRENDER if a.surrender else SPECIAL if a.declare else _split_of(tables, a)
    return out


def _test_hand(n: int) -> HandTables:
    return HandTables(np.array([c.index for c in deal(4, seed=SEED + 200000 + n)[0]]))


def measure_hand(
    n: int, preset: Preset, players: int, samples: int, extra=(), block: int = 600
) -> dict:
    """One test hand at one table: every Pareto-undominated split (by the preset's showdown
    keys), the splits in ``extra``, declaring the special and surrendering (where the
    table allows them) are scored on the same deals of the unseen cards to normal-set
    opponents (``samples`` opponent hands), as round totals after any room fee. The record
    keeps each one's mean points on each of REGRET_BLOCKS blocks of the deals."""
    tables = _test_hand(n)
    opponents = players - 1
    keys = split_keys(
        tables, subset_keys(tables, preset.suit_tiebreak), np.arange(len(tables.valid))
    )
    cands = pareto_keys(keys[:, 0], keys[:, 1], keys[:, 2])
    cands = np.concatenate([cands, [c for c in extra if c not in cands]]).astype(np.intp)
    found = find_specials(tables, preset)
    special = best_special(found, preset)
    special_rows = found.get(special) if special else None
    values = value_table(preset)
    my_keys, my_vals, my_special = candidate_rows(tables, preset, cands, special, values)
    unseen = np.setdiff1d(np.arange(52), tables.indices)
    rng = np.random.default_rng([SEED, n, players])
    deals = -(-samples // opponents)
    parts = []
    for start in range(0, deals, block):
        size = min(block, deals - start)
        hands = np.stack(
            [rng.permutation(unseen)[: opponents * 13].reshape(opponents, 13) for _ in range(size)]
        )
        seated = set_hands(hands.reshape(-1, 13), preset, opponents, values)
        points = score_with(
            preset, my_keys, my_vals, my_special, seated, opponents, tables, special_rows, special
        )
        if preset.surrender:
            gave_up = surrender_points(preset, seated.surrender.reshape(-1, opponents))
            points = np.vstack([points, gave_up[None]])
        parts.append(after_fee(preset, points))
    points = np.concatenate(parts, axis=1)  # (candidates [+ special] [+ surrender], deals)
    blocks = np.array_split(np.arange(deals), REGRET_BLOCKS)
    return {
        "n": n,
        "players": players,
        "samples": samples,
        "deals": deals,
        "cands": cands.tolist(),
        "special": special,
        "surrender": preset.surrender,
        "blocks": np.stack([points[:, b].mean(axis=1) for b in blocks], axis=1).tolist(),
        "block_deals": [len(b) for b in blocks],
    }


def level_regret(record: dict, chosen) -> tuple[float, float, bool]:
    """(regret, held-out regret, chose the best) of a choice, from a measured record."""
    blocks = np.array(record["blocks"])  # (options, REGRET_BLOCKS)
    sizes = np.array(record["block_deals"], dtype=np.float64)
    n_cands = len(record["cands"])
    if chosen == SURRENDER:
        row = len(blocks) - 1
    elif chosen == SPECIAL:
        row = n_cands
    else:
        row = record["cands"].index(chosen)
    totals = blocks * sizes
    mean = totals.sum(axis=1) / sizes.sum()
    # held out: the best on all blocks but one, valued on that one, each block in turn
    held = 0.0
    for k, size in enumerate(sizes):
        pick = int(np.argmax(totals.sum(axis=1) - totals[:, k]))
        held += size * (blocks[pick, k] - blocks[row, k])
    return float(mean.max() - mean[row]), float(held / sizes.sum()), bool(mean[row] == mean.max())


def _regret_task(args):
    table, n, players, samples, record = args
    preset = TABLES[table]
    choices = _choices(n, players, _test_hand(n), preset)
    splits = [c for c in choices.values() if c not in (SPECIAL, SURRENDER)]
    if record is None or any(c not in record["cands"] for c in splits):
        record = measure_hand(n, preset, players, samples, extra=splits)
    record["table"] = table
    return record, {level: level_regret(record, c) for level, c in choices.items()}


def opponent_model(preset: Preset) -> str:
    """A fingerprint of normal (the opponents) on a table: its splits of 300 fixed hands,
    1-3 opponents. A cached measurement is reused only while it is unchanged."""
    hands = np.sort(np.array([_test_hand(10**6 + i).indices for i in range(300)]), axis=1)
    digest = hashlib.sha1()
    for opponents in (1, 2, 3):
        choice, value = normal_splits(hands, preset, opponents)[:2]
        digest.update(choice.tobytes())
        if preset.surrender:
            digest.update((value < -preset.surrender_cost).tobytes())
    return digest.hexdigest()[:16]


def regret(n_hands: int, samples: int, workers: int, tables, sizes=(2, 3, 4), cache=None) -> None:
    models = {table: opponent_model(TABLES[table]) for table in tables}
    stored: dict[tuple, dict] = {}
    kept: list[dict] = []  # other tables' records, written back as they were
    if cache and Path(cache).exists():
        for line in Path(cache).read_text().splitlines():
            record = json.loads(line)
            if record.get("table") not in models:
                kept.append(record)
            elif record.get("model") == models[record["table"]] and "blocks" in record:
                key = (record["table"], record["n"], record["players"], record["samples"])
                stored[key] = record
    tasks = [
        (table, n, players, samples, stored.get((table, n, players, samples)))
        for table in tables
        for players in sizes
        for n in range(n_hands)
    ]
    reused = sum(t[4] is not None for t in tasks)
    start = time.perf_counter()
    results: dict[tuple[str, int], list[dict]] = {(t, p): [] for t in tables for p in sizes}
    if workers == 1:
        done = map(_regret_task, tasks)
    else:
        pool = ProcessPoolExecutor(workers, initializer=keep_memory)
        done = pool.map(_regret_task, tasks, chunksize=1)
    for record, row in done:
        results[(record["table"], record["players"])].append(row)
        record["model"] = models[record["table"]]
        stored[(record["table"], record["n"], record["players"], record["samples"])] = record
    if workers != 1:
        pool.shutdown()
    took = time.perf_counter() - start
    if cache:
        records = [*kept, *stored.values()]
        Path(cache).write_text("".join(json.dumps(r) + "\n" for r in records))
    print(
        f"\nRegret, {n_hands} hands a table, {samples} normal-set opponent hands a hand "
        f"({took:.0f}s, {workers} workers"
        + (f"; {reused} of {len(tasks)} measurements reused from {cache}" if reused else "")
        + ")"
    )
    print(
        "every Pareto-undominated setting (by the preset's showdown keys), the levels' "
        "choices, the special and surrender scored on the same deals (totals after any fee);"
    )
    print(
        "regret = best candidate's mean - the level's choice's mean (points a hand; the max "
        "of noisy means is biased up); targets: normal <= 0.02, hard <= 0.01"
    )
    print(
        f"held out = best on {REGRET_BLOCKS - 1} of {REGRET_BLOCKS} blocks of the deals, valued "
        "on the last, each in turn (biased down); the true regret lies between the two"
    )
    print(
        f"{'table':<28} {'players':>7} {'level':<7} {'regret':>7} {'s.e.':>6} {'held out':>9}"
        f" {'s.e.':>6} {'not best':>8}"
    )
    for table in tables:
        for players in sizes:
            rows = results[(table, players)]
            for level in LEVELS_MEASURED:
                values = np.array([r[level][0] for r in rows])
                held = np.array([r[level][1] for r in rows])
                worse = np.mean([not r[level][2] for r in rows])
                print(
                    f"{table:<28} {players:>7} {level:<7} {values.mean():>7.3f} "
                    f"{_se(values):>6.3f} {held.mean():>9.3f} {_se(held):>6.3f} {worse:>8.0%}"
                )


def _se(values: np.ndarray) -> float:
    return float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("nan")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--speed-hands", type=int, default=200)
    parser.add_argument("--hard-speed-hands", type=int, default=50)
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--regret-hands", type=int, default=200)
    parser.add_argument(
        "--regret-samples",
        type=int,
        default=20000,
        help="opponent hands per regret hand (dealt 3 at a time)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--regret-players", default="2,3,4", help="table sizes for the regret (comma separated)"
    )
    parser.add_argument(
        "--regret-cache",
        help="JSON-lines file of measured hands: reused while normal (the opponents) is "
        "unchanged, so a new hard is measured on the same deals without the long run",
    )
    parser.add_argument("--only", choices=("speed", "strength", "regret"))
    parser.add_argument(
        "--tables",
        default=",".join(TABLES),
        help=f"tables for speed and regret (comma separated): {', '.join(TABLES)}",
    )
    parser.add_argument(
        "--speed-players", default="2,3,4", help="table sizes for the speed (comma separated)"
    )
    parser.add_argument("--pairings", default="hard:normal,normal:greedy,easy:normal,easy:greedy")
    parser.add_argument(
        "--old-tables",
        help="row tables (.npz) for a 'normal-old' level in --pairings, e.g. the tables of "
        "an earlier commit: git show REV:capsa/solver/row_tables.npz > old.npz"
        " (capsa/row_tables.npz before the solver was a package)",
    )
    parser.add_argument(
        "--no-keep-memory",
        action="store_true",
        help="leave glibc's allocator thresholds alone (the bot's workers raise them)",
    )
    args = parser.parse_args(argv)
    if not args.no_keep_memory:
        keep_memory()
    pairings = [tuple(p.split(":")) for p in args.pairings.split(",")]
    tables = [t.strip() for t in args.tables.split(",")]
    unknown = [t for t in tables if t not in TABLES]
    if unknown:
        parser.error(f"unknown table {unknown[0]!r}: choose from {', '.join(TABLES)}")
    arrange(deal(4, seed=1)[0], PRESET)  # load tables
    if args.only in (None, "speed"):
        memory = "default allocator" if args.no_keep_memory else "keep_memory() as in the workers"
        sizes = tuple(int(p) for p in args.speed_players.split(","))
        speed(args.speed_hands, args.hard_speed_hands, tables, sizes, memory)
        opponent_speed(tables, sizes)
    if args.only in (None, "strength"):
        strength(args.deals, args.workers, pairings, args.old_tables)
    if args.only in (None, "regret"):
        sizes = tuple(int(p) for p in args.regret_players.split(","))
        regret(
            args.regret_hands, args.regret_samples, args.workers, tables, sizes, args.regret_cache
        )
    assert DECK
    return 0


if __name__ == "__main__":
    sys.exit(main())
