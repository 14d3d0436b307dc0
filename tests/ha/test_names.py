"""Resolving what people say to entities, areas and floors."""

from __future__ import annotations

import pytest

from botpsy_agent.ha.names import (
    Kind,
    normalize,
    resolve,
    resolve_area,
    resolve_entity,
    resolve_floor,
    similarity,
)
from devkit.homes import family_home
from tests.ha_bridge import HaBridge

E, A, F = Kind.ENTITY, Kind.AREA, Kind.FLOOR
AMBIGUOUS = "ambiguous"
NOTHING = "nothing"

# phrase: (kind, id, domain) when found; (AMBIGUOUS, {ids}) or NOTHING otherwise.
SPOKEN: dict[str, object] = {
    # names and aliases of entities, whatever the case, articles, possessives, plurals
    "the kitchen lights": (E, "light.kitchen_lights", None),
    "Kitchen Lights": (E, "light.kitchen_lights", None),
    "kitchen lamp": (E, "light.kitchen_lights", None),
    "bedside lamp": (E, "light.bed_light", None),
    "the desk lamp": (E, "light.office_rgbw_lights", None),
    "the porch light": (E, "light.entrance_color_white_lights", None),
    "fairy lights": (E, "switch.decorative_lights", None),
    "decorative light": (E, "switch.decorative_lights", None),
    "Min-ji's phone": (E, "notify.mobile_app_min_ji_s_phone", None),
    "Minji's phone": (E, "notify.mobile_app_min_ji_s_phone", None),
    "Daniels phone": (E, "notify.mobile_app_daniel_s_phone", None),
    "Sam's fan": (E, "fan.percentage_full_fan", None),
    "the ceiling fan": (E, "fan.ceiling_fan", None),
    "ceiling light": (E, "light.ceiling_lights", None),
    "kitchen window": (E, "cover.kitchen_window", None),
    "the garage door": (E, "cover.garage_door", None),
    "the back door": (E, "lock.back_door", None),
    "robot vacuum": (E, "vacuum.demo_vacuum_0_ground_floor", None),
    "movie night": (E, "scene.movie_night", None),
    "good night": (E, "script.good_night", None),
    "guest mode": (E, "input_boolean.guest_mode", None),
    "the laundry timer": (E, "timer.laundry", None),
    "my shopping list": (E, "todo.shopping_list", None),
    "lounge room": (E, "media_player.lounge_room", None),
    "the AC": (E, "switch.ac", None),
    "fridge temperature": (E, "sensor.fridge_temperature", None),
    "outside temperature": (E, "sensor.outside_temperature", None),
    "temperature outside": (E, "sensor.outside_temperature", None),
    "kitchen display": (E, "notify.notifier", None),
    # small typos
    "kichen light": (E, "light.kitchen_lights", None),
    "the bedsde lamp": (E, "light.bed_light", None),
    "movie nite": (E, "scene.movie_night", None),
    "dehumidifer": (E, "humidifier.dehumidifier", None),
    # a name plus a word for its kind
    "the family calendar": (E, "calendar.family", None),
    "the heatpump thermostat": (E, "climate.heatpump", None),
    "the kitchen speaker": (E, "media_player.kitchen", None),
    # areas and floors, by name or alias
    "the lounge": (A, "living_room", None),
    "the study": (A, "office", None),
    "hallway": (A, "hall", None),
    "Sam's room": (A, "kids_room", None),
    "master bedroom": (A, "bedroom", None),
    "the garage": (A, "garage", None),
    "upstairs": (F, "upstairs", None),
    "downstairs": (F, "ground_floor", None),
    "the first floor": (F, "upstairs", None),
    "ground floor": (F, "ground_floor", None),
    # a place plus a kind of device: that kind of device there
    "the lights upstairs": (F, "upstairs", "light"),
    "upstairs lights": (F, "upstairs", "light"),
    "downstairs fans": (F, "ground_floor", "fan"),
    "the bedroom light": (A, "bedroom", "light"),
    "lights in the living room": (A, "living_room", "light"),
    "the living room lights": (A, "living_room", "light"),
    "the fan in Sam's room": (A, "kids_room", "fan"),
    "the lights in the office": (A, "office", "light"),
    # ambiguous: reported with every candidate, never guessed
    "kitchen": (AMBIGUOUS, {"kitchen", "media_player.kitchen"}),
    "the kichen": (AMBIGUOUS, {"kitchen", "media_player.kitchen"}),
    "living room": (AMBIGUOUS, {"living_room", "media_player.living_room"}),
    "bedroom": (AMBIGUOUS, {"bedroom", "media_player.bedroom"}),
    "the window": (
        AMBIGUOUS,
        {"cover.kitchen_window", "cover.hall_window", "cover.living_room_window"},
    ),
    "total energy": (AMBIGUOUS, {"sensor.total_energy_kwh", "sensor.total_energy_mwh"}),
    "the vacuum": (
        AMBIGUOUS,
        {
            "vacuum.demo_vacuum_0_ground_floor",
            "vacuum.demo_vacuum_1_first_floor",
            "vacuum.demo_vacuum_2_second_floor",
            "vacuum.demo_vacuum_3_third_floor",
            "vacuum.demo_vacuum_4_fourth_floor",
        },
    ),
    # nothing fits
    "xyzzy": NOTHING,
    "the blinds": NOTHING,
    "the thing": NOTHING,
}


async def test_spoken_references_on_the_real_home(ha_bridge: HaBridge) -> None:
    assert len(SPOKEN) >= 40
    home = ha_bridge.index.home
    wrong = []
    for phrase, expected in SPOKEN.items():
        result = resolve(home, phrase)
        if expected == NOTHING:
            got: object = NOTHING if not result.candidates else result.ids
        elif isinstance(expected, tuple) and expected[0] == AMBIGUOUS:
            got = (AMBIGUOUS, set(result.ids)) if result.ambiguous else result.ids
        else:
            best = result.best
            got = (best.kind, best.id, best.domain) if best else result.ids
        if got != expected:
            wrong.append(f"{phrase!r}: expected {expected}, got {got}")
    assert wrong == []


async def test_kind_and_domain_filters_narrow_the_choice(ha_bridge: HaBridge) -> None:
    home = ha_bridge.index.home
    assert resolve_entity(home, "kitchen").ids == ("media_player.kitchen",)
    assert resolve_area(home, "kitchen").ids == ("kitchen",)
    assert resolve_floor(home, "first floor").ids == ("upstairs",)
    assert resolve_entity(home, "kitchen", domains={"light"}).ids == ("light.kitchen_lights",)
    assert resolve_entity(home, "the window", domains={"cover"}).ambiguous


def test_normalize_drops_case_articles_possessives_and_plurals() -> None:
    assert normalize("The Kitchen LIGHTS") == "kitchen light"
    assert normalize("Min-ji's phone") == normalize("min ji s phone") == "min ji phone"
    assert normalize("Min-ji\u2019s phone") == "min ji phone"
    assert normalize("all my batteries") == "battery"
    assert normalize("Café  switches!") == "cafe switch"
    assert normalize("the") == ""


@pytest.mark.parametrize(
    ("said", "name", "at_least"),
    [
        ("kichen light", "kitchen light", 0.9),
        ("light kitchen", "kitchen light", 0.9),
        ("minji phone", "min ji phone", 0.99),
        ("window", "kitchen window", 0.8),
    ],
)
def test_similarity_tolerates_typos_order_spacing_and_partial_names(
    said: str, name: str, at_least: float
) -> None:
    assert similarity(said, name) >= at_least
    assert similarity(said, name) < 1.0


def test_resolution_on_a_model_home_without_ha() -> None:
    home = family_home()
    assert resolve(home, "Anna's phone").ids == ("notify.mobile_app_anna",)
    assert resolve(home, "the plumber").ids == ("notify.plumber",)
    assert resolve(home, "the hallway").ids == ("hall",)
    lights_upstairs = resolve(home, "lights upstairs").best
    assert lights_upstairs is not None
    assert (lights_upstairs.kind, lights_upstairs.id, lights_upstairs.domain) == (
        F,
        "upstairs",
        "light",
    )
    assert resolve(home, "").candidates == ()
    assert resolve(home, "kids room").ids == ("kids_room",)  # the room beats "Kids room light"
