"""Neither baseline passes an action case, in the dev set or the held-out set (every
paraphrase), judged from the home's real starting states: the demo home's devices in a real
HA, reset and set up as the evaluation does before each case. No model runs."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util
import pytest

from tests.eval.baselines import action_cases_passed, starting_readings
from tests.eval.cases import ACTION, load_cases
from tests.eval.demo_ha import set_up_demo_home, start_case, states
from tests.eval.heldout import heldout_cases


async def test_neither_baseline_passes_an_action_case_from_its_starting_state(
    hass: HomeAssistant, monkeypatch: pytest.MonkeyPatch
) -> None:
    await hass.config.async_update(time_zone="Europe/Berlin")
    await set_up_demo_home(hass, monkeypatch)
    dev = load_cases()
    cases = [c for c in [*dev, *heldout_cases(dev, every=True)] if c.kind == ACTION]
    assert len(cases) > 200  # 61 dev, 3 x 61 held-out
    readings = {}
    for case in cases:
        await start_case(hass, case)
        readings[case.id] = starting_readings(case, states(hass), dt_util.now())
    assert action_cases_passed(cases, readings) == {"refuse_all": [], "do_nothing": []}
