"""Fast-path recognition alone on the coverage bench's house, without HA: the home the app's
entity index would hold (bench/coverage/home.py: 238 entities, 16 rooms, 3 floors, plus
the few HA adds of its own), every sentence of one pass, several rounds.

Prints one JSON line: the first sentence's time (the language's intents and the home's
name lists are built then), the first sentence after the home is renamed (the name lists
only), and per-sentence wall and CPU time (p50, p95, max) after that. A whole process, so
it can be timed from outside, A against B.

Usage: python -m bench.coverage.recognition [--pass en] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import time

from bench.coverage import home as house
from bench.coverage.sentences import sentences
from bench.stats import percentile
from botpsy_agent.home.model import Area, Entity, EntityState, Floor, Home
from botpsy_agent.words.recognizer import FastPath


def house_home(pass_name: str) -> Home:
    """The house as the app's index holds it, named for `pass_name`."""
    index = house.PASSES.index(pass_name)
    entities = [
        Entity(
            t.entity_id,
            t.name(pass_name),
            t.area_id,
            t.floor_id,
            device_class=t.device_class,
        )
        for t in house.things()
    ]
    areas = [Area(a, room.names[index], room.floor_id) for a, room in house.ROOMS.items()]
    floors = [Floor(f, names[index], level) for f, (level, names) in house.FLOORS.items()]
    states = [EntityState(t.entity_id, "off") for t in house.things()]
    return Home.of(entities, areas, floors, states)


def measure(pass_name: str, rounds: int) -> dict[str, object]:
    language = pass_name.split("-", 1)[0]
    renamed = f"{language}-renamed" if not pass_name.endswith("renamed") else language
    said = [s.text for s in sentences(pass_name)]
    fast = FastPath()
    started = time.perf_counter()
    fast.recognize(said[0], language, house_home(renamed))
    cold_ms = (time.perf_counter() - started) * 1000
    home = house_home(pass_name)
    started = time.perf_counter()
    fast.recognize(said[0], language, home)
    renamed_ms = (time.perf_counter() - started) * 1000
    wall, cpu = [], []
    for _ in range(rounds):
        for text in said:
            started, thread = time.perf_counter(), time.thread_time()
            fast.recognize(text, language, home)
            cpu.append((time.thread_time() - thread) * 1000)
            wall.append((time.perf_counter() - started) * 1000)
    wall.sort()
    cpu.sort()
    return {
        "pass": pass_name,
        "entities": len(home.entities),
        "sentences": len(said),
        "first_ms": round(cold_ms, 1),
        "first_after_rename_ms": round(renamed_ms, 1),
        "wall_ms": {q: round(percentile(wall, p), 2) for q, p in (("p50", 0.5), ("p95", 0.95))}
        | {"max": round(wall[-1], 2)},
        "cpu_ms": {q: round(percentile(cpu, p), 2) for q, p in (("p50", 0.5), ("p95", 0.95))}
        | {"max": round(cpu[-1], 2)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pass", dest="pass_name", default="en", choices=house.PASSES)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(measure(args.pass_name, args.rounds)))


if __name__ == "__main__":
    main()
