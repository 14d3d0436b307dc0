"""The live entity index against a real HA with the test home."""

from __future__ import annotations

from functools import cached_property

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, device_registry as dr, entity_registry as er

from botpsy_agent.ha.client import ConnectionState, HaClient, HaEndpoint
from botpsy_agent.ha.index import EntityIndex
from botpsy_agent.home.listing import render_listing
from botpsy_agent.home.model import LISTING_CACHES, Home
from tests.ha_bridge import TEST_BACKOFF, HaBridge, index_matches_ha, wait_until
from tests.ha_home import HaHome, PhoneAppStandIn
from tests.ha_server import HomeAssistantApiServer


async def test_index_matches_ha_registries(hass: HomeAssistant, ha_bridge: HaBridge) -> None:
    assert index_matches_ha(hass, ha_bridge.index, ha_bridge.home)
    home = ha_bridge.index.home
    assert len(home.entities) >= 30 and len(home.areas) >= 5 and len(home.floors) == 2
    assert home.floors["upstairs"].aliases == ("first floor",)
    assert home.areas["living_room"].aliases == ("lounge",)
    assert home.areas["kids_room"].floor_id == "upstairs"
    # Area from the device when the entity has none of its own.
    ceiling = home.entities["light.ceiling_lights"]
    assert (ceiling.area_id, ceiling.floor_id) == ("living_room", "ground_floor")
    assert home.entities["light.kitchen_lights"].aliases == ("kitchen lamp",)
    assert home.entities["fan.percentage_full_fan"].name == "Sam's fan"
    assert home.entities["light.office_rgbw_lights"].labels == {"grown_ups"}
    assert home.entities["sensor.fridge_temperature"].device_class == "temperature"
    assert home.entities["light.bed_light"].supported_features > 0
    # Exposure to Assist: explicit settings and HA's defaults.
    assert home.entities["light.bed_light"].exposed
    assert home.entities["sensor.carbon_dioxide"].exposed  # a default-exposed device class
    assert not home.entities["sensor.total_energy_kwh"].exposed  # energy is not
    assert not home.entities["sensor.power_consumption"].exposed  # hidden explicitly
    assert not home.entities["lock.back_door"].exposed  # locks are not exposed by default
    # Legacy notify services are recipients named after the phone's device.
    phone = home.entities["notify.mobile_app_min_ji_s_phone"]
    assert (phone.name, phone.is_service) == ("Min-ji's phone", True)
    assert "notify.send_message" not in home.entities
    users = {u.name: u for u in ha_bridge.index.users}
    assert users["Daniel"].is_admin and not users["Min-ji"].is_admin
    assert users["Min-ji"].user_id == ha_bridge.home.users["Min-ji"]
    assert ha_bridge.index.labels == {"night": "Night", "grown_ups": "Grown-ups"}


async def test_registry_edits_show_within_one_second(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    index = ha_bridge.index
    versions: list[str] = []
    index.add_listing_listener(versions.append)
    entities, devices, areas = er.async_get(hass), dr.async_get(hass), ar.async_get(hass)

    def entity(entity_id: str):  # type: ignore[no-untyped-def]
        return index.home.entities.get(entity_id)

    entities.async_update_entity("light.kitchen_lights", name="Counter lights")
    await wait_until(lambda: entity("light.kitchen_lights").name == "Counter lights")

    entities.async_update_entity(
        "light.bed_light", aliases=[er.COMPUTED_NAME, "bedside lamp", "reading light"]
    )
    await wait_until(lambda: entity("light.bed_light").aliases == ("bedside lamp", "reading light"))

    entities.async_update_entity("sensor.fridge_temperature", area_id="garage")
    await wait_until(lambda: entity("sensor.fridge_temperature").area_id == "garage")

    device_id = entities.async_get("light.bed_light").device_id  # type: ignore[union-attr]
    devices.async_update_device(device_id, area_id="office")  # type: ignore[arg-type]
    await wait_until(lambda: entity("light.bed_light").floor_id == "upstairs")
    await wait_until(lambda: entity("light.bed_light").area_id == "office")

    pantry = areas.async_create("Pantry", floor_id="ground_floor", aliases={"larder"})
    await wait_until(lambda: "pantry" in index.home.areas)
    assert index.home.areas[pantry.id].aliases == ("larder",)
    areas.async_update(pantry.id, floor_id="upstairs")
    await wait_until(lambda: index.home.areas["pantry"].floor_id == "upstairs")

    new = entities.async_get_or_create(
        "switch", "botpsy_test", "kettle", suggested_object_id="kettle", original_name="Kettle"
    )
    await wait_until(lambda: entity(new.entity_id) is not None)
    hass.states.async_set(new.entity_id, "off", {"friendly_name": "Kettle"})
    await wait_until(lambda: index.home.state_of(new.entity_id).state == "off")
    entities.async_update_entity(new.entity_id, area_id="kitchen")
    await wait_until(lambda: entity(new.entity_id).area_id == "kitchen")
    assert new.entity_id in index.home.by_area["kitchen"]  # groupings follow the listing

    async_expose_entity(hass, "conversation", "light.bed_light", False)
    await wait_until(lambda: not entity("light.bed_light").exposed)

    entities.async_remove(new.entity_id)
    hass.states.async_remove(new.entity_id)
    await wait_until(lambda: entity(new.entity_id) is None)

    assert len(versions) >= 9 and len(set(versions)) == len(versions)
    assert versions[-1] == index.listing_version


async def test_state_changes_leave_the_listing_alone(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    index = ha_bridge.index
    version, listing = index.listing_version, render_listing(index.home, index.home.entities)
    first = index.home
    changed: list[str] = []
    index.add_listing_listener(changed.append)
    await hass.services.async_call("light", "toggle", {"entity_id": "light.bed_light"}, True)
    await hass.services.async_call(
        "light", "turn_on", {"entity_id": "light.kitchen_lights", "brightness": 12}, True
    )
    before = hass.states.get("light.bed_light").state  # type: ignore[union-attr]
    await wait_until(lambda: index.home.state_of("light.bed_light").state == before)
    await wait_until(
        lambda: index.home.state_of("light.kitchen_lights").attributes.get("brightness") == 12
    )
    assert index.listing_version == version
    assert render_listing(index.home, index.home.entities) == listing
    assert changed == []
    # A new snapshot with the new states, sharing what was derived from the names.
    assert index.home is not first and index.home.names_key == version
    assert all(getattr(index.home, name) is getattr(first, name) for name in LISTING_CACHES)


def test_every_cached_part_of_a_home_comes_from_its_listing() -> None:
    """`Home.with_states` carries `LISTING_CACHES` over to other states: a cached property
    that read states would carry stale ones, so each must be named there (and read none)."""
    cached = {name for name, v in vars(Home).items() if isinstance(v, cached_property)}
    assert cached == set(LISTING_CACHES)


async def test_listing_is_compact_sorted_and_stable(ha_bridge: HaBridge) -> None:
    index = ha_bridge.index
    ids = ["light.kitchen_lights", "light.bed_light", "lock.back_door", "light.nope"]
    listing = render_listing(index.home, ids)
    assert listing == render_listing(index.home, reversed(ids))
    assert listing == (  # the prompt's listing, from the live index's home
        "areas by floor:\n"
        "- ground_floor [downstairs]: kitchen\n"
        "- upstairs [first floor]: bedroom [master bedroom]\n"
        "entities by area:\n"
        "- bedroom: light.bed_light [bedside lamp]\n"
        "- kitchen: light.kitchen_lights [kitchen lamp], lock.back_door"
    )
    assert "on" not in listing.split() and "off" not in listing.split()


async def test_catches_up_after_ha_restarts(
    hass: HomeAssistant, ha_api: HomeAssistantApiServer, ha_bridge: HaBridge
) -> None:
    client, index = ha_bridge.client, ha_bridge.index
    hass.states.async_set("sensor.snow", "0", {"friendly_name": "Snow today"})
    await wait_until(lambda: "sensor.snow" in index.home.entities)
    await ha_api.stop()
    await wait_until(lambda: client.state is ConnectionState.RECONNECTING)
    assert not index.synced
    # While the app cannot see HA: states change, entities come and go, registries change.
    await hass.services.async_call("light", "turn_off", {"entity_id": "light.bed_light"}, True)
    await hass.services.async_call("switch", "turn_off", {"entity_id": "switch.ac"}, True)
    hass.states.async_set("sensor.rain", "3", {"friendly_name": "Rain today"})
    hass.states.async_remove("sensor.snow")
    er.async_get(hass).async_update_entity("switch.ac", name="Garage heater")
    await hass.async_block_till_done()
    await ha_api.start()
    await client.wait_connected(5)
    await index.wait_synced(5)
    home = index.home
    assert home.state_of("light.bed_light").state == "off"
    assert home.state_of("switch.ac").state == "off"
    assert home.entities["switch.ac"].name == "Garage heater"
    assert home.state_of("sensor.rain").state == "3"
    assert "sensor.snow" not in home.entities
    # Recipients learned before the restart are still there, whether or not HA can list its
    # services in this environment.
    assert "notify.mobile_app_min_ji_s_phone" in home.entities
    assert index_matches_ha(hass, index, ha_bridge.home)


async def test_notify_recipients_follow_service_events(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    index = ha_bridge.index
    grandma = PhoneAppStandIn(hass, "Grandma's tablet")
    grandma.register()
    await wait_until(lambda: grandma.recipient in index.home.entities)
    # The service event may come before the index has re-read the phone's new device: the
    # name follows the device as soon as it has.
    await wait_until(
        lambda: index.home.entities[grandma.recipient].name == "Grandma's tablet", timeout_s=5
    )
    hass.services.async_remove("notify", grandma.service)
    await wait_until(lambda: grandma.recipient not in index.home.entities)


async def test_a_full_load_lists_existing_notify_services(
    hass: HomeAssistant, ha_bridge: HaBridge, ha_api: HomeAssistantApiServer
) -> None:
    await ha_api.stop()
    await wait_until(lambda: ha_bridge.client.state is ConnectionState.RECONNECTING)
    tablet = PhoneAppStandIn(hass, "Hall tablet")
    tablet.register()  # while the app cannot see HA: only a full load can find it
    await ha_api.start()
    await ha_bridge.index.wait_synced(5)
    assert tablet.recipient in ha_bridge.index.home.entities


async def test_a_non_admin_token_still_gives_the_home(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    hass_read_only_access_token: str,
) -> None:
    client = HaClient(
        HaEndpoint.from_base_url(ha_api.url, hass_read_only_access_token), backoff=TEST_BACKOFF
    )
    index = EntityIndex(client)
    await index.start()
    await client.start()
    try:
        await index.wait_synced(5)
        home = index.home
        assert home.entities["light.kitchen_lights"].area_id == "kitchen"
        assert home.entities["light.kitchen_lights"].exposed  # HA's default for lights
        assert index.users == ()  # listing users needs an admin
        # HA refuses user events to this token: the client goes on without them.
        assert client.state is ConnectionState.CONNECTED and client.attempts == 1
    finally:
        await index.stop()
        await client.stop()


async def test_the_test_home_meets_its_description(hass: HomeAssistant, ha_home: HaHome) -> None:
    entities = er.async_get(hass)
    areas = {e.area_id for e in entities.entities.values() if e.area_id} | {
        d.area_id for d in dr.async_get(hass).devices if d.area_id
    }
    assert len(ha_home.entity_ids) >= 30
    assert len(areas) >= 5 and set(ha_home.floors) == {"ground_floor", "upstairs"}
    assert any(isinstance(a, str) for e in entities.entities.values() for a in e.aliases)
    assert any(e.labels for e in entities.entities.values())
    for phone in ha_home.phones.values():
        assert hass.services.has_service("notify", phone.service)
    assert {"calendar.family", "todo.shopping_list", "notify.notifier"} <= set(ha_home.entity_ids)
