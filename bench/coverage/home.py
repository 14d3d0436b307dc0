"""The coverage bench's home: the demo home's devices plus a house of its own, about 250
entities on three floors, named in English, Korean and Indonesian, each twice (the second
set of names, `renamed`, is the same home with other device, room and floor names).

Names are made as people name things in HA: a room and a kind of thing ("Kitchen ceiling
light", "주방 천장등", "Lampu plafon dapur"). The demo's devices keep their entity ids and
get names of the same pattern in every pass; the rest is HA YAML (optimistic template
entities, template sensors and binary sensors with fixed values), placed in its rooms
through HA's registries as a person would in the UI.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
import re
from typing import Any

from botpsy_agent.ha.client import HaClient

PASSES = ("en", "en-renamed", "ko", "ko-renamed", "id", "id-renamed")
"""Every set of names: a language, then the same language with other names."""

type Names = tuple[str, str, str, str, str, str]
"""One name per pass, in the order of `PASSES`."""


@dataclass(frozen=True)
class Kind:
    domain: str
    device_class: str | None
    names: Names
    unit: str | None = None


@dataclass(frozen=True)
class Room:
    floor_id: str
    names: Names
    things: tuple[str, ...]
    """Kinds of thing in the room ("kind" or "kind=demo entity id" for a demo device)."""


@dataclass(frozen=True)
class Thing:
    """One entity of the home."""

    entity_id: str
    domain: str
    device_class: str | None
    area_id: str | None
    floor_id: str | None
    kind: str
    names: Names
    demo: bool
    """One of demo_home's devices (its entity exists without this bench's YAML)."""

    def name(self, pass_name: str) -> str:
        return self.names[PASSES.index(pass_name)]


FLOORS: Mapping[str, tuple[int, Names]] = {
    "ground_floor": (
        0,
        ("Ground floor", "Main floor", "1층", "아래층", "Lantai satu", "Lantai dasar"),
    ),
    "upstairs": (1, ("Upstairs", "Top floor", "2층", "위층", "Lantai dua", "Lantai atas")),
    "basement": (
        -1,
        ("Basement", "Lower level", "지하", "지하층", "Ruang bawah tanah", "Basemen"),
    ),
}

ROOMS: Mapping[str, Room] = {
    "kitchen": Room(
        "ground_floor",
        ("Kitchen", "Galley", "주방", "부엌", "Dapur", "Pantri"),
        (
            "ceiling=light.kitchen",
            "counter=light.kitchen_counter",
            "coffee=switch.coffee_machine",
            "spots",
            "pendant",
            "socket",
            "extractor",
            "blinds",
            "window_contact",
            "temperature",
            "humidity",
            "power",
            "leak",
            "smoke",
            "gas",
            "motion",
        ),
    ),
    "living_room": Room(
        "ground_floor",
        ("Living room", "Lounge", "거실", "응접실", "Ruang tamu", "Ruang santai"),
        (
            "lamp=light.living_room",
            "reading=light.reading_lamp",
            "socket=switch.tv_plug",
            "blinds=cover.living_room_blinds",
            "thermostat=climate.living_room",
            "tv=media_player.living_room_tv",
            "ceiling",
            "strip",
            "wall",
            "curtains",
            "window",
            "fan",
            "temperature",
            "humidity",
            "illuminance",
            "co2",
            "motion",
            "window_contact",
        ),
    ),
    "dining_room": Room(
        "ground_floor",
        ("Dining room", "Breakfast room", "식당", "다이닝룸", "Ruang makan", "Ruang sarapan"),
        ("pendant", "wall", "spots", "curtains", "socket", "window_contact", "temperature"),
    ),
    "hall": Room(
        "ground_floor",
        ("Hall", "Entrance", "현관", "입구", "Lorong", "Serambi"),
        ("ceiling=light.hall", "wall", "spots", "socket", "door_contact", "motion", "smoke"),
    ),
    "garage": Room(
        "ground_floor",
        ("Garage", "Carport", "차고", "주차장", "Garasi", "Carport"),
        (
            "ceiling=light.garage",
            "garage_door=cover.garage_door",
            "spots",
            "socket",
            "door_contact",
            "motion",
            "gas",
            "power",
        ),
    ),
    "garden": Room(
        "ground_floor",
        ("Garden", "Backyard", "정원", "마당", "Taman", "Halaman belakang"),
        ("path", "wall", "spots", "pump", "socket", "motion", "temperature", "illuminance"),
    ),
    "bathroom": Room(
        "upstairs",
        ("Bathroom", "Washroom", "욕실", "화장실", "Kamar mandi", "Toilet"),
        (
            "ceiling",
            "mirror",
            "spots",
            "towel",
            "socket",
            "extractor",
            "window",
            "humidity",
            "temperature",
            "leak",
            "motion",
        ),
    ),
    "bedroom": Room(
        "upstairs",
        ("Bedroom", "Master suite", "침실", "안방", "Kamar tidur", "Kamar utama"),
        (
            "ceiling=light.bedroom",
            "blinds=cover.bedroom_blinds",
            "fan=fan.bedroom",
            "bedside",
            "wall",
            "curtains",
            "heater",
            "socket",
            "temperature",
            "humidity",
            "window_contact",
            "motion",
            "smoke",
        ),
    ),
    "kids_room": Room(
        "upstairs",
        ("Kids room", "Nursery", "아이방", "놀이방", "Kamar anak", "Kamar bermain"),
        (
            "ceiling=light.kids_room",
            "fairy=switch.fairy_lights",
            "fan=fan.kids_room",
            "thermostat=climate.kids_room",
            "speaker=media_player.kids_speaker",
            "bedside",
            "lamp",
            "curtains",
            "socket",
            "temperature",
            "humidity",
            "window_contact",
            "motion",
            "smoke",
        ),
    ),
    "office": Room(
        "upstairs",
        ("Office", "Study", "서재", "작업실", "Ruang kerja", "Ruang belajar"),
        (
            "ceiling=light.office",
            "heater=switch.office_heater",
            "lamp",
            "strip",
            "spots",
            "blinds",
            "fan",
            "socket",
            "temperature",
            "humidity",
            "co2",
            "illuminance",
            "power",
            "window_contact",
            "motion",
        ),
    ),
    "guest_room": Room(
        "upstairs",
        ("Guest room", "Spare room", "손님방", "게스트룸", "Kamar tamu", "Kamar cadangan"),
        (
            "ceiling",
            "bedside",
            "wall",
            "curtains",
            "heater",
            "socket",
            "temperature",
            "window_contact",
            "motion",
            "smoke",
        ),
    ),
    "landing": Room(
        "upstairs",
        ("Landing", "Gallery", "복도", "통로", "Selasar", "Koridor"),
        ("ceiling", "wall", "spots", "socket", "window", "motion", "smoke", "temperature"),
    ),
    "laundry_room": Room(
        "basement",
        ("Laundry room", "Utility room", "세탁실", "다용도실", "Ruang cuci", "Ruang laundry"),
        (
            "ceiling",
            "spots",
            "washer",
            "dehumidifier",
            "socket",
            "extractor",
            "leak",
            "humidity",
            "temperature",
            "power",
            "door_contact",
        ),
    ),
    "gym": Room(
        "basement",
        ("Gym", "Workout room", "헬스장", "운동방", "Ruang olahraga", "Ruang gym"),
        (
            "ceiling",
            "spots",
            "strip",
            "treadmill",
            "socket",
            "fan",
            "temperature",
            "humidity",
            "motion",
            "power",
        ),
    ),
    "cellar": Room(
        "basement",
        ("Cellar", "Storage room", "창고", "저장실", "Gudang", "Ruang penyimpanan"),
        ("ceiling", "spots", "socket", "dehumidifier", "leak", "humidity", "temperature", "gas"),
    ),
    "cinema": Room(
        "basement",
        ("Cinema", "Media room", "홈시어터", "영화방", "Ruang bioskop", "Ruang media"),
        (
            "ceiling",
            "spots",
            "strip",
            "wall",
            "projector",
            "socket",
            "curtains",
            "temperature",
            "motion",
            "power",
        ),
    ),
}

KINDS: Mapping[str, Kind] = {
    # lights
    "ceiling": Kind(
        "light",
        None,
        ("ceiling light", "main light", "천장등", "메인등", "lampu plafon", "lampu utama"),
    ),
    "counter": Kind(
        "light",
        None,
        (
            "counter lights",
            "cabinet lights",
            "조리대 조명",
            "상부장 조명",
            "lampu meja dapur",
            "lampu kabinet",
        ),
    ),
    "lamp": Kind(
        "light",
        None,
        ("floor lamp", "standing lamp", "스탠드", "장스탠드", "lampu berdiri", "lampu lantai"),
    ),
    "reading": Kind(
        "light",
        None,
        ("reading lamp", "armchair lamp", "독서등", "소파 조명", "lampu baca", "lampu sofa"),
    ),
    "spots": Kind(
        "light",
        None,
        ("spotlights", "downlights", "스포트라이트", "매입등", "lampu sorot", "lampu tanam"),
    ),
    "strip": Kind(
        "light",
        None,
        ("LED strip", "light strip", "LED 스트립", "줄조명", "lampu strip", "lampu LED"),
    ),
    "wall": Kind(
        "light",
        None,
        ("wall light", "sconce", "벽등", "벽조명", "lampu dinding", "lampu tempel"),
    ),
    "bedside": Kind(
        "light",
        None,
        ("bedside lamp", "night light", "무드등", "수면등", "lampu tidur", "lampu malam"),
    ),
    "mirror": Kind(
        "light",
        None,
        ("mirror light", "vanity light", "거울 조명", "화장대 조명", "lampu cermin", "lampu rias"),
    ),
    "pendant": Kind(
        "light",
        None,
        ("pendant", "chandelier", "펜던트 조명", "샹들리에", "lampu gantung", "lampu kristal"),
    ),
    "path": Kind(
        "light",
        None,
        ("path lights", "lawn lights", "산책로 조명", "잔디 조명", "lampu jalan", "lampu rumput"),
    ),
    # switches
    "socket": Kind("switch", None, ("socket", "plug", "콘센트", "플러그", "stopkontak", "colokan")),
    "heater": Kind(
        "switch", None, ("heater", "radiator", "히터", "라디에이터", "pemanas", "radiator")
    ),
    "coffee": Kind(
        "switch",
        None,
        (
            "coffee machine",
            "espresso maker",
            "커피 머신",
            "커피메이커",
            "mesin kopi",
            "mesin espreso",
        ),
    ),
    "fairy": Kind(
        "switch",
        None,
        ("fairy lights", "string lights", "꼬마전구", "알전구", "lampu hias", "lampu tumblr"),
    ),
    "dehumidifier": Kind(
        "switch",
        None,
        (
            "dehumidifier",
            "air dryer",
            "제습기",
            "습기 제거기",
            "penyerap lembap",
            "pengering udara",
        ),
    ),
    "washer": Kind(
        "switch",
        None,
        ("washing machine", "washer", "세탁기", "빨래 기계", "mesin cuci", "pencuci"),
    ),
    "pump": Kind(
        "switch", None, ("pond pump", "fountain", "연못 펌프", "분수", "pompa kolam", "air mancur")
    ),
    "treadmill": Kind(
        "switch",
        None,
        ("treadmill", "running machine", "러닝머신", "트레드밀", "treadmill", "mesin lari"),
    ),
    "projector": Kind(
        "switch",
        None,
        ("projector", "beamer", "프로젝터", "빔프로젝터", "proyektor", "beamer"),
    ),
    "towel": Kind(
        "switch",
        None,
        (
            "towel rail",
            "towel warmer",
            "수건 건조대",
            "타월 워머",
            "pemanas handuk",
            "rak handuk",
        ),
    ),
    # covers
    "blinds": Kind(
        "cover",
        "blind",
        ("blinds", "roller blind", "블라인드", "롤스크린", "kerai", "tirai gulung"),
    ),
    "curtains": Kind(
        "cover", "curtain", ("curtains", "drapes", "커튼", "암막커튼", "gorden", "tirai")
    ),
    "window": Kind(
        "cover", "window", ("window", "skylight", "창문", "천창", "jendela", "jendela atap")
    ),
    "garage_door": Kind(
        "cover",
        "garage",
        ("door", "roller door", "문", "셔터", "pintu", "pintu gulung"),
    ),
    # fans, climate, media
    "fan": Kind(
        "fan", None, ("fan", "ceiling fan", "선풍기", "실링팬", "kipas angin", "kipas plafon")
    ),
    "extractor": Kind(
        "fan",
        None,
        ("extractor fan", "exhaust fan", "환풍기", "배기팬", "kipas exhaust", "kipas penghisap"),
    ),
    "thermostat": Kind(
        "climate",
        None,
        ("thermostat", "heating", "온도조절기", "보일러", "termostat", "pemanas ruangan"),
    ),
    "tv": Kind("media_player", None, ("TV", "television", "TV", "텔레비전", "TV", "televisi")),
    "speaker": Kind(
        "media_player",
        None,
        ("speaker", "sound box", "스피커", "블루투스 스피커", "speaker", "pengeras suara"),
    ),
    # sensors
    "temperature": Kind(
        "sensor",
        "temperature",
        ("temperature", "thermometer", "온도", "온도계", "suhu", "termometer"),
        "°C",
    ),
    "humidity": Kind(
        "sensor",
        "humidity",
        ("humidity", "hygrometer", "습도", "습도계", "kelembapan", "higrometer"),
        "%",
    ),
    "illuminance": Kind(
        "sensor",
        "illuminance",
        (
            "light level",
            "brightness sensor",
            "조도",
            "조도 센서",
            "tingkat cahaya",
            "sensor cahaya",
        ),
        "lx",
    ),
    "power": Kind(
        "sensor",
        "power",
        ("power", "power meter", "전력", "전력량계", "daya", "meteran listrik"),
        "W",
    ),
    "co2": Kind(
        "sensor",
        "carbon_dioxide",
        ("CO2", "air quality", "이산화탄소", "공기질", "CO2", "kualitas udara"),
        "ppm",
    ),
    # binary sensors
    "door_contact": Kind(
        "binary_sensor",
        "door",
        ("door sensor", "door contact", "문 센서", "문 열림 센서", "sensor pintu", "kontak pintu"),
    ),
    "window_contact": Kind(
        "binary_sensor",
        "window",
        (
            "window sensor",
            "window contact",
            "창문 센서",
            "창문 열림 센서",
            "sensor jendela",
            "kontak jendela",
        ),
    ),
    "motion": Kind(
        "binary_sensor",
        "motion",
        (
            "motion sensor",
            "motion detector",
            "동작 감지기",
            "모션 센서",
            "sensor gerak",
            "detektor gerak",
        ),
    ),
    "leak": Kind(
        "binary_sensor",
        "moisture",
        ("leak sensor", "water sensor", "누수 센서", "물 감지 센서", "sensor bocor", "sensor air"),
    ),
    "smoke": Kind(
        "binary_sensor",
        "smoke",
        (
            "smoke detector",
            "smoke alarm",
            "연기 감지기",
            "화재 경보기",
            "detektor asap",
            "alarm asap",
        ),
    ),
    "gas": Kind(
        "binary_sensor",
        "gas",
        ("gas detector", "gas alarm", "가스 감지기", "가스 경보기", "detektor gas", "alarm gas"),
    ),
}

ONE_OFFS: Mapping[str, tuple[str | None, str | None, Names]] = {
    # entity id: (area id, device class, names): things people name on their own
    "lock.front_door": (
        "hall",
        None,
        ("Front door", "Main entrance", "현관문", "대문", "Pintu depan", "Pintu utama"),
    ),
    "lock.back_door": (
        "kitchen",
        None,
        ("Back door", "Kitchen door", "뒷문", "후문", "Pintu belakang", "Pintu samping"),
    ),
    "lock.side_door": (
        "garage",
        None,
        ("Side door", "Workshop door", "옆문", "쪽문", "Pintu samping garasi", "Pintu bengkel"),
    ),
    "lock.patio_door": (
        "garden",
        None,
        ("Patio door", "Terrace door", "테라스 문", "베란다 문", "Pintu teras", "Pintu balkon"),
    ),
    "lock.cellar_door": (
        "cellar",
        None,
        ("Cellar door", "Storage door", "지하실 문", "저장실 문", "Pintu gudang", "Pintu bawah"),
    ),
    "scene.party_time": (
        "living_room",
        None,
        ("Party time", "Celebration", "파티 모드", "축하 모드", "Mode pesta", "Perayaan"),
    ),
    "scene.dinner_time": (
        "dining_room",
        None,
        ("Dinner time", "Supper", "저녁 식사", "디너 모드", "Makan malam", "Mode makan"),
    ),
    "scene.reading_time": (
        "living_room",
        None,
        ("Reading time", "Quiet evening", "독서 시간", "조용한 저녁", "Waktu baca", "Malam tenang"),
    ),
    "script.good_night": (
        None,
        None,
        ("Good night", "Bedtime", "취침 준비", "잘 시간", "Selamat tidur", "Waktu tidur"),
    ),
    "vacuum.robot_vacuum": (
        "living_room",
        None,
        ("Robot vacuum", "Robo cleaner", "로봇청소기", "청소 로봇", "Robot vakum", "Penyedot debu"),
    ),
    "weather.home_forecast": (
        None,
        None,
        (
            "Home forecast",
            "Local weather",
            "우리집 날씨",
            "동네 날씨",
            "Cuaca rumah",
            "Cuaca lokal",
        ),
    ),
    "todo.shopping_list": (
        None,
        None,
        ("Shopping list", "Groceries", "장보기 목록", "쇼핑 리스트", "Daftar belanja", "Belanjaan"),
    ),
}
DEMO_ONE_OFFS = frozenset({"lock.front_door", "lock.back_door", "script.good_night"})
"""One-offs the demo's own configuration makes (demo_home, script:); its scene `Movie night`
has no unique id, so it cannot be renamed: it stays, under its name, as one more entity."""
MADE_ELSEWHERE = DEMO_ONE_OFFS | {"todo.shopping_list"}

SENSOR_VALUES: Mapping[str, tuple[float, float]] = {
    # kind: (lowest, step): each room gets the next value, so rooms differ
    "temperature": (18.5, 0.5),
    "humidity": (38.0, 2.0),
    "illuminance": (120.0, 35.0),
    "power": (0.0, 95.0),
    "co2": (420.0, 60.0),
    "battery": (55.0, 3.0),
    "energy": (0.4, 0.7),
}
ON_BINARY: frozenset[str] = frozenset(
    {
        "binary_sensor.living_room_motion",
        "binary_sensor.kitchen_motion",
        "binary_sensor.bedroom_window_contact",
        "binary_sensor.garage_door_contact",
        "binary_sensor.cellar_leak",
    }
)
"""Binary sensors that report `on` (motion, an open window or door, a leak); the rest `off`."""


def _compose(room: Names, kind: Names) -> Names:
    """Room and kind, in each language's order: "Kitchen ceiling light", "주방 천장등",
    "Lampu plafon dapur"."""
    out = []
    for index, pass_name in enumerate(PASSES):
        r, k = room[index], kind[index]
        name = f"{k} {r.lower()}" if pass_name.startswith("id") else f"{r} {k}"
        out.append(name[0].upper() + name[1:])
    return tuple(out)  # type: ignore[return-value]


@cache
def things() -> tuple[Thing, ...]:
    """Every entity of the home, in a stable order."""
    out: list[Thing] = []
    for area_id, room in ROOMS.items():
        for entry in room.things:
            kind_key, _, demo_id = entry.partition("=")
            kind = KINDS[kind_key]
            entity_id = demo_id or f"{kind.domain}.{area_id}_{kind_key}"
            out.append(
                Thing(
                    entity_id,
                    kind.domain,
                    kind.device_class,
                    area_id,
                    room.floor_id,
                    kind_key,
                    _compose(room.names, kind.names),
                    bool(demo_id),
                )
            )
    out.extend(_derived(out))
    for one_off, (place, one_class, one_names) in ONE_OFFS.items():
        out.append(
            Thing(
                one_off,
                one_off.split(".", 1)[0],
                one_class,
                place,
                ROOMS[place].floor_id if place else None,
                one_off,
                one_names,
                one_off in MADE_ELSEWHERE,
            )
        )
    return tuple(out)


DERIVED: Mapping[str, tuple[str, str, str, Names]] = {
    # sensor kind: (what it belongs to: a domain or kind, its device class, unit, the words
    # added to the owner's name per pass, after it ("…battery") or, in Indonesian, before)
    "battery": (
        "binary_sensor",
        "battery",
        "%",
        ("battery", "battery", "배터리", "배터리", "Baterai", "Baterai"),
    ),
    "energy": (
        "socket",
        "energy",
        "kWh",
        ("energy", "energy use", "전력량", "사용량", "Energi", "Pemakaian"),
    ),
}
"""Sensors that come with another device, as HA's integrations add them: the battery of
every wireless sensor, the energy meter of every smart socket. Distractors that share
their owner's words."""


def _derived(made: list[Thing]) -> list[Thing]:
    out = []
    for kind, (owner, device_class, _unit, words) in DERIVED.items():
        for thing in made:
            if owner not in {thing.domain, thing.kind}:
                continue
            names = tuple(
                f"{w} {n[0].lower()}{n[1:]}" if p.startswith("id") else f"{n} {w}"
                for p, n, w in zip(PASSES, thing.names, words, strict=True)
            )
            object_id = thing.entity_id.split(".", 1)[1]
            out.append(
                Thing(
                    f"sensor.{object_id}_{kind}",
                    "sensor",
                    device_class,
                    thing.area_id,
                    thing.floor_id,
                    kind,
                    names,  # type: ignore[arg-type]
                    False,
                )
            )
    return out


def by_id() -> dict[str, Thing]:
    return {t.entity_id: t for t in things()}


def area_name(area_id: str, pass_name: str) -> str:
    return ROOMS[area_id].names[PASSES.index(pass_name)]


def floor_name(floor_id: str, pass_name: str) -> str:
    return FLOORS[floor_id][1][PASSES.index(pass_name)]


# --- HA configuration -------------------------------------------------------------------------


def ha_yaml() -> str:
    """The home's own entities as HA YAML, appended to the demo's configuration.yaml."""
    blocks: dict[str, list[str]] = {}
    values: dict[str, int] = {}
    for thing in things():
        if thing.demo or (thing.entity_id in ONE_OFFS and thing.domain != "lock"):
            continue
        object_id = thing.entity_id.split(".", 1)[1]
        head = f"      - name: {object_id}\n        unique_id: coverage_{object_id}\n"
        if thing.device_class and thing.domain != "lock":
            head += f"        device_class: {thing.device_class}\n"
        body = _entity_body(thing, values)
        blocks.setdefault(thing.domain, []).append(head + body)
    template = "".join(
        f"  - {domain}:\n" + "".join(entries) for domain, entries in sorted(blocks.items())
    )
    scenes = "".join(
        f"  - name: {scene}\n    id: coverage_{scene}\n    entities:\n      {light}: 'on'\n"
        for scene, light in (
            ("dinner_time", "light.dining_room_pendant"),
            ("reading_time", "light.reading_lamp"),
            ("party_time", "light.living_room_strip"),
        )
    )
    vacuum = (
        "  - vacuum:\n      - name: robot_vacuum\n        unique_id: coverage_robot_vacuum\n"
        "        optimistic: true\n        start: []\n        return_to_base: []\n"
        "        pause: []\n        stop: []\n"
    )
    weather = (
        "  - weather:\n      - name: home_forecast\n        unique_id: coverage_home_forecast\n"
        "        condition: sunny\n        temperature: '16'\n        humidity: '55'\n"
        "        temperature_unit: °C\n"
    )
    return (
        "# The fast-path coverage bench's house (bench/coverage/home.py).\n"
        f"template:\n{template}{vacuum}{weather}"
        f"scene coverage:\n{scenes}"
    )


ACTIONS: Mapping[str, tuple[str, ...]] = {
    "light": ("turn_on", "turn_off", "set_level"),
    "switch": ("turn_on", "turn_off"),
    "fan": ("turn_on", "turn_off", "set_percentage"),
    "cover": ("open_cover", "close_cover", "set_cover_position"),
    "lock": ("lock", "unlock"),
}
"""What an optimistic template entity of each domain can be told (each does nothing but
keep the new state)."""


def _entity_body(thing: Thing, values: dict[str, int]) -> str:
    pad = "        "
    if thing.domain in ACTIONS:
        actions = "".join(f"{pad}{action}: []\n" for action in ACTIONS[thing.domain])
        return f"{pad}optimistic: true\n{actions}"
    match thing.domain:
        case "sensor":
            lowest, step = SENSOR_VALUES[thing.kind]
            n = values[thing.kind] = (values.get(thing.kind, -1) + 1) % 15
            unit = KINDS[thing.kind].unit if thing.kind in KINDS else DERIVED[thing.kind][2]
            return (
                f"{pad}unit_of_measurement: '{unit}'\n{pad}state_class: measurement\n"
                f"{pad}state: '{lowest + n * step:g}'\n"
            )
        case "binary_sensor":
            on = "true" if thing.entity_id in ON_BINARY else "false"
            return f"{pad}state: '{{{{ {on} }}}}'\n"
    raise ValueError(thing.domain)


# --- setting it up in HA ------------------------------------------------------------------------


async def place(client: HaClient) -> None:
    """Floors, rooms and where everything is, in HA's registries; every entity of the home
    exposed to Assist (HA's agent sees what is exposed; BotPsy's admin sees everything)."""
    existing = {f["floor_id"] for f in await client.call({"type": "config/floor_registry/list"})}
    for floor_id, (level, names) in FLOORS.items():
        if floor_id not in existing:
            made = await client.call(
                {"type": "config/floor_registry/create", "name": names[0], "level": level}
            )
            assert made["floor_id"] == floor_id, made
    areas = {a["area_id"] for a in await client.call({"type": "config/area_registry/list"})}
    for area_id, room in ROOMS.items():
        if area_id not in areas:
            made = await client.call({"type": "config/area_registry/create", "name": room.names[0]})
            assert made["area_id"] == area_id, made
        await client.call(
            {"type": "config/area_registry/update", "area_id": area_id, "floor_id": room.floor_id}
        )
    await _wait_for(client, [t.entity_id for t in things()])
    for thing in things():
        await client.call(
            {
                "type": "config/entity_registry/update",
                "entity_id": thing.entity_id,
                "area_id": thing.area_id,
            }
        )
    await client.call(
        {
            "type": "homeassistant/expose_entity",
            "assistants": ["conversation"],
            "entity_ids": [t.entity_id for t in things()],
            "should_expose": True,
        }
    )


async def settle(client: HaClient) -> None:
    """Start states: optimistic template entities begin `unknown`; every third light and
    every fourth cover on or open, the rest off or closed, the doors locked but the patio's."""
    calls: list[tuple[str, str, list[str]]] = []
    made = [t for t in things() if not t.demo and t.entity_id not in ONE_OFFS]
    for domain, on, off in (
        ("light", "turn_on", "turn_off"),
        ("switch", "turn_on", "turn_off"),
        ("fan", "turn_on", "turn_off"),
        ("cover", "open_cover", "close_cover"),
    ):
        ids = [t.entity_id for t in made if t.domain == domain]
        every = 4 if domain == "cover" else 3
        calls.append((domain, on, ids[::every]))
        calls.append((domain, off, [e for i, e in enumerate(ids) if i % every]))
    locks = [t.entity_id for t in things() if t.domain == "lock"]
    calls.append(("lock", "lock", [e for e in locks if e != "lock.patio_door"]))
    calls.append(("lock", "unlock", ["lock.patio_door"]))
    for domain, service, ids in calls:
        if ids:
            await client.call(
                {
                    "type": "call_service",
                    "domain": domain,
                    "service": service,
                    "target": {"entity_id": ids},
                }
            )


async def rename(client: HaClient, pass_name: str) -> None:
    """Every entity, room and floor of the home renamed for one pass; aliases cleared (they
    would keep other names reachable). An entity keeps the `null` alias: HA's marker for
    "the name itself is an alias", without which Assist does not know it by its name."""
    index = PASSES.index(pass_name)
    for floor_id, (_level, names) in FLOORS.items():
        await client.call(
            {
                "type": "config/floor_registry/update",
                "floor_id": floor_id,
                "name": names[index],
                "aliases": [],
            }
        )
    for area_id, room in ROOMS.items():
        await client.call(
            {
                "type": "config/area_registry/update",
                "area_id": area_id,
                "name": room.names[index],
                "aliases": [],
            }
        )
    for thing in things():
        await client.call(
            {
                "type": "config/entity_registry/update",
                "entity_id": thing.entity_id,
                "name": thing.names[index],
                "aliases": [None],
            }
        )


async def _wait_for(client: HaClient, entity_ids: list[str]) -> None:
    for _ in range(300):
        states = await client.call({"type": "get_states"})
        missing = set(entity_ids) - {s["entity_id"] for s in states}
        if not missing:
            return
        await asyncio.sleep(0.1)
    raise RuntimeError(f"HA did not create {', '.join(sorted(missing))}")


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.casefold()).strip("_")


def summary() -> dict[str, Any]:
    counts: dict[str, int] = {}
    for thing in things():
        counts[thing.domain] = counts.get(thing.domain, 0) + 1
    return {"entities": len(things()), "rooms": len(ROOMS), "floors": len(FLOORS), **counts}
