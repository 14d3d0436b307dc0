"""Phrasings HA's default agent answered and the fast path did not in the dev part of the
coverage bench (`make bench ARGS=--fast-path`, bench/results/fast-path-2026-12-03.md; issue
29): each now becomes the call it means on the real HA test home, and the questions are
answered from the states read. The held-out part's misses are not here: no word list is
tuned on them."""

from __future__ import annotations

from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
import pytest

from botpsy_agent.agent.protocol import Path, Status
from botpsy_agent.words.recognizer import FastPath
from tests.agent.support import admin, ask, make_agent
from tests.ha_bridge import HaBridge, wait_until

WALKMAN = "media_player.walkman"
HEATPUMP = "climate.heatpump"
ROBOT = "vacuum.demo_vacuum_0_ground_floor"
SAMS_FAN = "fan.percentage_full_fan"
CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("power on the fairy lights", "turn_on", {"entity_id": ["switch.decorative_lights"]}),
    ("power off the bedside lamp", "turn_off", {"entity_id": ["light.bed_light"]}),
    ("next song on the Walkman", "control_media", {"entity_id": [WALKMAN], "action": "next"}),
    (
        "turn up the volume on the Walkman",
        "set_media",
        {"entity_id": [WALKMAN], "volume_step_pct": 10},
    ),
    (
        "turn Sam's fan down to 25%",
        "set_fan",
        {"entity_id": ["fan.percentage_full_fan"], "percentage": 25},
    ),
    (
        "what temperature is the fridge temperature showing",
        "get_state",
        {"entity_id": ["sensor.fridge_temperature"]},
    ),
    (
        "what is the fridge temperature reading",
        "get_state",
        {"entity_id": ["sensor.fridge_temperature"]},
    ),
    ("what's the Heatpump set to", "get_state", {"entity_id": ["climate.heatpump"]}),
    ("what temperature is the Ecobee set to", "get_state", {"entity_id": ["climate.ecobee"]}),
    ("is the Walkman playing", "get_state", {"entity_id": [WALKMAN]}),
    ("could you check if the back door is locked", "get_state", {"entity_id": ["lock.back_door"]}),
    (
        "check whether the kitchen window is open",
        "get_state",
        {"entity_id": ["cover.kitchen_window"]},
    ),
    (
        "what is switched on upstairs",
        "get_state",
        {"floor_id": ["upstairs"], "domain": ["light", "switch", "fan"]},
    ),
    ("what day is it today", "current_time", {"what": "date"}),
    ("how's the weather outside", "get_state", {"domain": ["weather"]}),
    # The dev part's new templates (bench/results/fast-path-2026-12-06-98cc711.md)
    (
        "can you speed Sam's fan up to 70%",
        "set_fan",
        {"entity_id": ["fan.percentage_full_fan"], "percentage": 70},
    ),
    ("tell me which doors are unlocked", "get_state", {"domain": ["lock"]}),
    ("can you give me the weather forecast", "get_state", {"domain": ["weather"]}),
    # The dev part's templates of e61d077 (bench/results/fast-path-2026-12-06-09ef8e8.md;
    # "make sure the front door is locked" stays HA's: no template of ours reaches a lock)
    ("flip the AC on for me", "turn_on", {"entity_id": ["switch.ac"]}),
    ("can you get the kitchen lights on", "turn_on", {"area_id": ["kitchen"], "domain": ["light"]}),
    (
        "Ecobee to 21 degrees please",
        "set_climate",
        {"entity_id": ["climate.ecobee"], "temperature": 21.0},
    ),
    (
        "get the Robot vacuum going",
        "control_vacuum",
        {"entity_id": ["vacuum.demo_vacuum_0_ground_floor"], "action": "start"},
    ),
    # The dev part of the bench's second round (bench/results/fast-path-2026-12-06-c18e747-added.md)
    ("would you put the Walkman on", "turn_on", {"entity_id": [WALKMAN]}),
    ("put Movie night on", "activate_scene", {"entity_id": ["scene.movie_night"]}),
    ("switch to Movie night", "activate_scene", {"entity_id": ["scene.movie_night"]}),
    ("set the Movie night scene", "activate_scene", {"entity_id": ["scene.movie_night"]}),
    ("trigger the Good night script please", "run_script", {"entity_id": ["script.good_night"]}),
    ("could you execute Good night", "run_script", {"entity_id": ["script.good_night"]}),
    ("cut the Bed Light", "turn_off", {"entity_id": ["light.bed_light"]}),
    ("kill all the lights", "turn_off", {"domain": ["light"]}),
    (
        "could you make the Walkman louder",
        "set_media",
        {"entity_id": [WALKMAN], "volume_step_pct": 10},
    ),
    (
        "turn Sam's fan all the way up to 100%",
        "set_fan",
        {"entity_id": ["fan.percentage_full_fan"], "percentage": 100},
    ),
    (
        "what does the fridge temperature say",
        "get_state",
        {"entity_id": ["sensor.fridge_temperature"]},
    ),
    (
        "how many degrees is it in the office",
        "get_state",
        {"area_id": ["office"], "domain": ["climate"]},
    ),
    ("what is the HeatPump at right now", "get_state", {"entity_id": [HEATPUMP]}),
    ("make the HeatPump 22 degrees", "set_climate", {"entity_id": [HEATPUMP], "temperature": 22.0}),
    (
        "turn the HeatPump up to 24 degrees",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 24.0},
    ),
    (
        "lower the HeatPump to 18 degrees",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 18.0},
    ),
    (
        "can you warm the living room up to 23 degrees",
        "set_climate",
        {"area_id": ["living_room"], "domain": ["climate"], "temperature": 23.0},
    ),
    (
        "I'd like it 20.5 degrees in the living room",
        "set_climate",
        {"area_id": ["living_room"], "domain": ["climate"], "temperature": 20.5},
    ),
    ("run the Robot vacuum", "control_vacuum", {"entity_id": [ROBOT], "action": "start"}),
    ("have the Robot vacuum clean up", "control_vacuum", {"entity_id": [ROBOT], "action": "start"}),
    ("start vacuuming", "control_vacuum", {"domain": ["vacuum"], "action": "start"}),
    ("can you vacuum the house", "control_vacuum", {"domain": ["vacuum"], "action": "start"}),
    ("please clean the floors", "control_vacuum", {"domain": ["vacuum"], "action": "start"}),
    ("what date is it", "current_time", {"what": "date"}),
    ("what day of the week is it", "current_time", {"what": "date"}),
    ("do you know what time it is", "current_time", {"what": "time"}),
    ("current time please", "current_time", {"what": "time"}),
    ("what's the forecast for today", "get_state", {"domain": ["weather"]}),
    ("is it going to rain today", "get_state", {"domain": ["weather"]}),
    ("will it be cold tomorrow", "get_state", {"domain": ["weather"]}),
    (
        "can you put the Bed Light at 10 percent",
        "set_light",
        {"entity_id": ["light.bed_light"], "brightness_pct": 10},
    ),
    (
        "bring the Bed Light up to 90 percent",
        "set_light",
        {"entity_id": ["light.bed_light"], "brightness_pct": 90},
    ),
    (
        "office lights to 50%",
        "set_light",
        {"area_id": ["office"], "domain": ["light"], "brightness_pct": 50},
    ),
    ("is the AC on or off", "get_state", {"entity_id": ["switch.ac"]}),
    ("is the kitchen window open or closed", "get_state", {"entity_id": ["cover.kitchen_window"]}),
    ("can you check the Garage Door for me", "get_state", {"entity_id": ["cover.garage_door"]}),
    (
        "are the windows closed in the kitchen",
        "get_state",
        {"area_id": ["kitchen"], "domain": ["cover", "binary_sensor"], "device_class": ["window"]},
    ),
    (
        "are any leak sensors triggered",
        "get_state",
        {"domain": ["binary_sensor"], "device_class": ["moisture"]},
    ),
    ("is the house all locked up", "get_state", {"domain": ["lock"]}),
    (
        "how much electricity is the office using right now",
        "get_state",
        {"area_id": ["office"], "domain": ["sensor"], "device_class": ["power"]},
    ),
    (
        "how bright is it in the office right now",
        "get_state",
        {"area_id": ["office"], "domain": ["sensor"], "device_class": ["illuminance"]},
    ),
    (
        "how much moisture is in the air in the office",
        "get_state",
        {"area_id": ["office"], "domain": ["sensor"], "device_class": ["humidity"]},
    ),
    (
        "start the music again in the living room",
        "control_media",
        {"area_id": ["living_room"], "domain": ["media_player"], "action": "play"},
    ),
    (
        "mark milk as done on my shopping list",
        "complete_todo_item",
        {"list_id": "todo.shopping_list", "item": "milk"},
    ),
    (
        "tick off apples on the shopping list",
        "complete_todo_item",
        {"list_id": "todo.shopping_list", "item": "apples"},
    ),
    (
        "take bread off the shopping list",
        "remove_todo_item",
        {"list_id": "todo.shopping_list", "item": "bread"},
    ),
    ("I need a timer for 15 minutes", "device_timer", {"intent": "HassStartTimer", "minutes": 15}),
    ("can you time 8 minutes for me", "device_timer", {"intent": "HassStartTimer", "minutes": 8}),
    ("set a countdown for 10 minutes", "device_timer", {"intent": "HassStartTimer", "minutes": 10}),
    ("check on my timer", "device_timer", {"intent": "HassTimerStatus"}),
    (
        "give me 4 more minutes on the timer",
        "device_timer",
        {"intent": "HassIncreaseTimer", "minutes": 4},
    ),
    (
        "send a message to all the speakers that the pizza's here",
        "broadcast",
        {"message": "the pizza's here"},
    ),
    (
        "send a broadcast saying the laundry is done",
        "broadcast",
        {"message": "the laundry is done"},
    ),
    # the evaluation's fifth wording, dev (reworded bedroom-dimmer-hall~r5: the 0.5B read the
    # light's state)
    (
        "can I have some light in the bedroom",
        "turn_on",
        {"area_id": ["bedroom"], "domain": ["light"]},
    ),
    # the third round's dev part (6de8184)
    ("shut the fairy lights off please", "turn_off", {"entity_id": ["switch.decorative_lights"]}),
    ("put all the lights on in the house", "turn_on", {"domain": ["light"]}),
    ("shut off every upstairs light", "turn_off", {"floor_id": ["upstairs"], "domain": ["light"]}),
    (
        "turn the Bed Light down to 15%",
        "set_light",
        {"entity_id": ["light.bed_light"], "brightness_pct": 15},
    ),
    (
        "the office lights are too bright, drop them to 35%",
        "set_light",
        {"area_id": ["office"], "domain": ["light"], "brightness_pct": 35},
    ),
    (
        "put the HeatPump on 21.5 degrees",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 21.5},
    ),
    (
        "drop the HeatPump to 17 degrees",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 17.0},
    ),
    ("what temperature is the Ecobee set at", "get_state", {"entity_id": ["climate.ecobee"]}),
    (
        "put Sam's fan on 40%",
        "set_fan",
        {"entity_id": ["fan.percentage_full_fan"], "percentage": 40},
    ),
    (
        "could you run Sam's fan at 90%",
        "set_fan",
        {"entity_id": ["fan.percentage_full_fan"], "percentage": 90},
    ),
    (
        "bump Sam's fan up to 75 percent please",
        "set_fan",
        {"entity_id": ["fan.percentage_full_fan"], "percentage": 75},
    ),
    ("put the Walkman on mute", "set_media", {"entity_id": [WALKMAN], "mute": True}),
    ("is the Garage Door up or down", "get_state", {"entity_id": ["cover.garage_door"]}),
    ("is the Walkman still on", "get_state", {"entity_id": [WALKMAN]}),
    ("are there any lights left on", "get_state", {"domain": ["light"]}),
    (
        "has any smoke alarm gone off",
        "get_state",
        {"domain": ["binary_sensor"], "device_class": ["smoke"]},
    ),
    (
        "how many watts is the office using",
        "get_state",
        {"area_id": ["office"], "domain": ["sensor"], "device_class": ["power"]},
    ),
    (
        "the floors are dirty, can you run the vacuum",
        "control_vacuum",
        {"domain": ["vacuum"], "action": "start"},
    ),
    (
        "start a cleaning run with the Robot vacuum",
        "control_vacuum",
        {"entity_id": [ROBOT], "action": "start"},
    ),
    ("put my timer on hold", "device_timer", {"intent": "HassPauseTimer"}),
    (
        "extend the timer by 6 minutes",
        "device_timer",
        {"intent": "HassIncreaseTimer", "minutes": 6},
    ),
    (
        "announce to the whole house that dinner is ready",
        "broadcast",
        {"message": "dinner is ready"},
    ),
    ("do I need an umbrella today", "get_state", {"domain": ["weather"]}),
    ("what's it like out there today", "get_state", {"domain": ["weather"]}),
    # the fourth round's dev part (51eee2c)
    ("can I get the Bed Light on, please", "turn_on", {"entity_id": ["light.bed_light"]}),
    (
        "you can turn the Kitchen Lights off now",
        "turn_off",
        {"entity_id": ["light.kitchen_lights"]},
    ),
    ("I'm heading out, switch off all the lights", "turn_off", {"domain": ["light"]}),
    ("get all the upstairs lights on", "turn_on", {"floor_id": ["upstairs"], "domain": ["light"]}),
    (
        "brighten the Bed Light to 80%",
        "set_light",
        {"entity_id": ["light.bed_light"], "brightness_pct": 80},
    ),
    (
        "could you change the Living Room RGBWW Lights colour to orange",
        "set_light",
        {"entity_id": ["light.living_room_rgbww_lights"], "color_name": "orange"},
    ),
    (
        "set the heating in the office to 22",
        "set_climate",
        {"area_id": ["office"], "domain": ["climate"], "temperature": 22.0},
    ),
    (
        "turn the heating down to 19 in the living room",
        "set_climate",
        {"area_id": ["living_room"], "domain": ["climate"], "temperature": 19.0},
    ),
    ("read me the fridge temperature", "get_state", {"entity_id": ["sensor.fridge_temperature"]}),
    ("what's the target temperature on the Ecobee", "get_state", {"entity_id": ["climate.ecobee"]}),
    (
        "crank Sam's fan up to 85%",
        "set_fan",
        {"entity_id": ["fan.percentage_full_fan"], "percentage": 85},
    ),
    (
        "lower Sam's fan speed to 15 percent",
        "set_fan",
        {"entity_id": ["fan.percentage_full_fan"], "percentage": 15},
    ),
    (
        "play the next track on the Walkman",
        "control_media",
        {"entity_id": [WALKMAN], "action": "next"},
    ),
    ("what state is the Garage Door in", "get_state", {"entity_id": ["cover.garage_door"]}),
    ("tell me whether the AC is on", "get_state", {"entity_id": ["switch.ac"]}),
    (
        "is there a leak anywhere",
        "get_state",
        {"domain": ["binary_sensor"], "device_class": ["moisture"]},
    ),
    (
        "are any upstairs smoke detectors going off",
        "get_state",
        {"floor_id": ["upstairs"], "domain": ["binary_sensor"], "device_class": ["smoke"]},
    ),
    (
        "how much light is there in the office",
        "get_state",
        {"area_id": ["office"], "domain": ["sensor"], "device_class": ["illuminance"]},
    ),
    ("launch the Good night routine", "run_script", {"entity_id": ["script.good_night"]}),
    (
        "stick yoghurt on the shopping list",
        "add_todo_item",
        {"list_id": "todo.shopping_list", "item": "yoghurt"},
    ),
    (
        "please get rid of cheese from the shopping list",
        "remove_todo_item",
        {"list_id": "todo.shopping_list", "item": "cheese"},
    ),
    (
        "tell the Robot vacuum to start cleaning",
        "control_vacuum",
        {"entity_id": [ROBOT], "action": "start"},
    ),
    ("time to vacuum the floors", "control_vacuum", {"domain": ["vacuum"], "action": "start"}),
    ("clear all timers", "device_timer", {"intent": "HassCancelAllTimers"}),
    (
        "make the timer 3 minutes longer",
        "device_timer",
        {"intent": "HassIncreaseTimer", "minutes": 3},
    ),
    ("what time do you have", "current_time", {"what": "time"}),
    ("make an announcement: the bath is ready", "broadcast", {"message": "the bath is ready"}),
    (
        "put out an announcement that we're eating in ten minutes",
        "broadcast",
        {"message": "we're eating in ten minutes"},
    ),
    ("how hot will it get today", "get_state", {"domain": ["weather"]}),
    ("any rain in the forecast", "get_state", {"domain": ["weather"]}),
    # The dev part of the fifth round (953bb66); a reason said first is read apart. Its
    # locks stay HA's ("could you lock up the Front door"): no template of ours reaches one.
    ("it's stuffy in here, can you turn on Sam's fan", "turn_on", {"entity_id": [SAMS_FAN]}),
    ("I'm done with the Walkman, turn it off", "turn_off", {"entity_id": [WALKMAN]}),
    ("we're going to bed, turn off all the lights in the house", "turn_off", {"domain": ["light"]}),
    (
        "I'm too warm, turn the HeatPump down to 19",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 19.0},
    ),
    (
        "the Living Room Fan is too loud, drop it to 10%",
        "set_fan",
        {"entity_id": ["fan.living_room_fan"], "percentage": 10},
    ),
    (
        "it's a bit bright, take the Bed Light down to 25%",
        "set_light",
        {"entity_id": ["light.bed_light"], "brightness_pct": 25},
    ),
    ("HeatPump at 23", "set_climate", {"entity_id": [HEATPUMP], "temperature": 23.0}),
    (
        "could you heat the office to 21 degrees",
        "set_climate",
        {"area_id": ["office"], "domain": ["climate"], "temperature": 21.0},
    ),
    ("what temperature have I got the Ecobee on", "get_state", {"entity_id": ["climate.ecobee"]}),
    ("Fridge temperature?", "get_state", {"entity_id": ["sensor.fridge_temperature"]}),
    ("what's the Walkman doing", "get_state", {"entity_id": [WALKMAN]}),
    (
        "how many watts is the Power consumption showing",
        "get_state",
        {"entity_id": ["sensor.power_consumption"]},
    ),
    ("mute the Walkman for a sec", "set_media", {"entity_id": [WALKMAN], "mute": True}),
    (
        "cross carrots off the shopping list",
        "complete_todo_item",
        {"list_id": "todo.shopping_list", "item": "carrots"},
    ),
    (
        "begin cleaning with the Robot vacuum",
        "control_vacuum",
        {"entity_id": [ROBOT], "action": "start"},
    ),
    ("go ahead and vacuum", "control_vacuum", {"domain": ["vacuum"], "action": "start"}),
    ("what's the time right now", "current_time", {"what": "time"}),
    (
        "send an announcement to every room: come downstairs",
        "broadcast",
        {"message": "come downstairs"},
    ),
    ("what's the weather going to be like this weekend", "get_state", {"domain": ["weather"]}),
    # ... and those HA's fallback reader guessed, a guess the agent did not keep (90cb1f7)
    ("Bed Light to half", "set_light", {"entity_id": ["light.bed_light"], "brightness_pct": 50}),
    ("Sam's fan at 45%", "set_fan", {"entity_id": [SAMS_FAN], "percentage": 45}),
    ("weather please", "get_state", {"domain": ["weather"]}),
    # The dev part of the sixth round (27c00b0, bench/results/fast-path-2026-12-07-27c00b0-
    # added6.md). Its covers and locks stay HA's; "I need bananas, put them on the shopping
    # list" points back into its reason (the model's).
    ("the AC can go off now, thanks", "turn_off", {"entity_id": ["switch.ac"]}),
    (
        "nobody's in the kitchen, you can turn the lights off",
        "turn_off",
        {"area_id": ["kitchen"], "domain": ["light"]},
    ),
    (
        "light up the whole upstairs please",
        "turn_on",
        {"floor_id": ["upstairs"], "domain": ["light"]},
    ),
    (
        "put the Bed Light on 60 percent brightness",
        "set_light",
        {"entity_id": ["light.bed_light"], "brightness_pct": 60},
    ),
    (
        "switch the Bed Light to purple",
        "set_light",
        {"entity_id": ["light.bed_light"], "color_name": "purple"},
    ),
    (
        "the office is a bit dark, turn the lights up to 85%",
        "set_light",
        {"area_id": ["office"], "domain": ["light"], "brightness_pct": 85},
    ),
    (
        "I'm cold, bump the HeatPump up to 23",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 23.0},
    ),
    (
        "make it 21 degrees in the living room",
        "set_climate",
        {"area_id": ["living_room"], "domain": ["climate"], "temperature": 21.0},
    ),
    (
        "can you knock the HeatPump down to 18",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 18.0},
    ),
    ("what's the setpoint on the Ecobee", "get_state", {"entity_id": ["climate.ecobee"]}),
    (
        "how hot is it according to the fridge temperature",
        "get_state",
        {"entity_id": ["sensor.fridge_temperature"]},
    ),
    ("increase Sam's fan to 65 percent", "set_fan", {"entity_id": [SAMS_FAN], "percentage": 65}),
    (
        "I'm getting cold, reduce Sam's fan to 20%",
        "set_fan",
        {"entity_id": [SAMS_FAN], "percentage": 20},
    ),
    (
        "can you have Sam's fan running at 40 percent",
        "set_fan",
        {"entity_id": [SAMS_FAN], "percentage": 40},
    ),
    ("is the kitchen window down", "get_state", {"entity_id": ["cover.kitchen_window"]}),
    ("did I close the Garage Door", "get_state", {"entity_id": ["cover.garage_door"]}),
    (
        "what's the current power draw in the office",
        "get_state",
        {"area_id": ["office"], "domain": ["sensor"], "device_class": ["power"]},
    ),
    ("go ahead and run Good night", "run_script", {"entity_id": ["script.good_night"]}),
    (
        "could you get the floors vacuumed",
        "control_vacuum",
        {"domain": ["vacuum"], "action": "start"},
    ),
    (
        "there are crumbs everywhere, can you run the hoover",
        "control_vacuum",
        {"domain": ["vacuum"], "action": "start"},
    ),
    (
        "can you set me a timer for 30 minutes",
        "device_timer",
        {"intent": "HassStartTimer", "minutes": 30},
    ),
    ("pause the countdown", "device_timer", {"intent": "HassPauseTimer"}),
    ("hey, what's today's date", "current_time", {"what": "date"}),
    ("what's the weather doing tomorrow", "get_state", {"domain": ["weather"]}),
    ("will it be windy this afternoon", "get_state", {"domain": ["weather"]}),
    # The dev part of the seventh round (c4049d9, bench/results/fast-path-2026-12-07-c4049d9-
    # added7.md). Its covers and locks stay HA's; "remind me to buy flour, add it to the
    # shopping list" points back into its reason, and "shout up to everyone …" may as well be
    # a notification (the model's).
    ("hey, could you pop the Bed Light on", "turn_on", {"entity_id": ["light.bed_light"]}),
    ("would you mind turning on the AC", "turn_on", {"entity_id": ["switch.ac"]}),
    ("would you mind switching the AC off", "turn_off", {"entity_id": ["switch.ac"]}),
    ("all the lights off, please", "turn_off", {"domain": ["light"]}),
    (
        "could you dim the Bed Light a bit, to about 30 percent",
        "set_light",
        {"entity_id": ["light.bed_light"], "brightness_pct": 30},
    ),
    (
        "lower the kitchen lighting to 40 percent",
        "set_light",
        {"area_id": ["kitchen"], "domain": ["light"], "brightness_pct": 40},
    ),
    (
        "could you set the HeatPump at 19 for the night",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 19.0},
    ),
    ("remind me what the Ecobee is set to", "get_state", {"entity_id": ["climate.ecobee"]}),
    (
        "I'm curious what the temperature's like in the living room",
        "get_state",
        {"area_id": ["living_room"], "domain": ["climate"]},
    ),
    (
        "I'd like Sam's fan on 70 percent please",
        "set_fan",
        {"entity_id": [SAMS_FAN], "percentage": 70},
    ),
    ("can you silence the Walkman", "set_media", {"entity_id": [WALKMAN], "mute": True}),
    (
        "carry on playing on the Walkman",
        "control_media",
        {"entity_id": [WALKMAN], "action": "play"},
    ),
    ("is the AC switched on", "get_state", {"entity_id": ["switch.ac"]}),
    ("what lights have I left on", "get_state", {"domain": ["light"]}),
    (
        "what's the lux in the office",
        "get_state",
        {"area_id": ["office"], "domain": ["sensor"], "device_class": ["illuminance"]},
    ),
    ("can we have Movie night now please", "activate_scene", {"entity_id": ["scene.movie_night"]}),
    (
        "chuck some biscuits on the shopping list",
        "add_todo_item",
        {"list_id": "todo.shopping_list", "item": "biscuits"},
    ),
    (
        "kick off a clean with the Robot vacuum",
        "control_vacuum",
        {"entity_id": [ROBOT], "action": "start"},
    ),
    (
        "the pasta needs 11 minutes, set a timer",
        "device_timer",
        {"intent": "HassStartTimer", "minutes": 11, "timer_name": "pasta"},
    ),
    ("get rid of every timer", "device_timer", {"intent": "HassCancelAllTimers"}),
    (
        "the cake needs longer, stick 5 more minutes on the timer",
        "device_timer",
        {"intent": "HassIncreaseTimer", "minutes": 5},
    ),
    ("will I need sunglasses today", "get_state", {"domain": ["weather"]}),
    # round 8, dev part (bench/results/fast-path-2026-12-07-added8.md)
    (
        "could you get Sam's fan going, it's warm in here",
        "turn_on",
        {"entity_id": [SAMS_FAN]},
    ),
    (
        "it's pitch black on the upstairs, lights on please",
        "turn_on",
        {"floor_id": ["upstairs"], "domain": ["light"]},
    ),
    (
        "we've got guests coming, switch on all the lights in the whole house",
        "turn_on",
        {"domain": ["light"]},
    ),
    ("could you set up Movie night for us", "activate_scene", {"entity_id": ["scene.movie_night"]}),
    ("kick off the Good night routine for me", "run_script", {"entity_id": ["script.good_night"]}),
    (
        "no need for Sam's fan any more, turn it off please",
        "turn_off",
        {"entity_id": [SAMS_FAN]},
    ),
    (
        "we're done in the kitchen, switch the lights off in there",
        "turn_off",
        {"area_id": ["kitchen"], "domain": ["light"]},
    ),
    (
        "could you put Sam's fan up to 55 percent",
        "set_fan",
        {"entity_id": [SAMS_FAN], "percentage": 55},
    ),
    (
        "run Sam's fan on a gentle 20 percent",
        "set_fan",
        {"entity_id": [SAMS_FAN], "percentage": 20},
    ),
    (
        "I'd like Sam's fan spinning at 45 percent",
        "set_fan",
        {"entity_id": [SAMS_FAN], "percentage": 45},
    ),
    (
        "give me the current reading from the fridge temperature",
        "get_state",
        {"entity_id": ["sensor.fridge_temperature"]},
    ),
    (
        "it's chilly in here, could you put the HeatPump up to 22 degrees",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 22.0},
    ),
    (
        "I'd like the HeatPump on 18.5 tonight",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 18.5},
    ),
    (
        "the HeatPump is too high, set it to 20 instead",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 20.0},
    ),
    (
        "can you do a quick hoover of the house",
        "control_vacuum",
        {"domain": ["vacuum"], "action": "start"},
    ),
    (
        "I'm heading out, you can start the Robot vacuum now",
        "control_vacuum",
        {"entity_id": [ROBOT], "action": "start"},
    ),
    ("can you tell me what month it is", "current_time", {"what": "date"}),
    ("will it stay dry for the rest of the day", "get_state", {"domain": ["weather"]}),
    (
        "set the Bed Light colour to white for me",
        "set_light",
        {"entity_id": ["light.bed_light"], "color_name": "white"},
    ),
    (
        "can you tell me if the kitchen window is shut",
        "get_state",
        {"entity_id": ["cover.kitchen_window"]},
    ),
    (
        "can you check if any smoke detectors have been triggered",
        "get_state",
        {"domain": ["binary_sensor"], "device_class": ["smoke"]},
    ),
    (
        "what's the Power consumption saying right now",
        "get_state",
        {"entity_id": ["sensor.power_consumption"]},
    ),
    (
        "how much energy are we using in the office at the moment",
        "get_state",
        {"area_id": ["office"], "domain": ["sensor"], "device_class": ["power"]},
    ),
    (
        "can you hit play on the Walkman again",
        "control_media",
        {"entity_id": [WALKMAN], "action": "play"},
    ),
    (
        "hold on, pause the Walkman a moment",
        "control_media",
        {"entity_id": [WALKMAN], "action": "pause"},
    ),
    (
        "I missed that, play the previous song on the Walkman",
        "control_media",
        {"entity_id": [WALKMAN], "action": "previous"},
    ),
    (
        "mark garlic as bought on the shopping list",
        "complete_todo_item",
        {"list_id": "todo.shopping_list", "item": "garlic"},
    ),
    (
        "the eggs need 9 minutes, time them for me",
        "device_timer",
        {"intent": "HassStartTimer", "minutes": 9, "timer_name": "eggs"},
    ),
    ("hold the timer a moment", "device_timer", {"intent": "HassPauseTimer"}),
    (
        "tell the kids over the speakers that it's time to tidy up",
        "broadcast",
        {"message": "it's time to tidy up"},
    ),
    # round 9, dev part (bench/results/fast-path-2026-12-07-added9.md)
    (
        "I can barely see a thing in here, mind putting the bedside lamp on?",
        "turn_on",
        {"entity_id": ["light.bed_light"]},
    ),
    (
        "can you fire up Sam's fan for a bit, it's muggy",
        "turn_on",
        {"entity_id": [SAMS_FAN]},
    ),
    (
        "we're heading out, so Sam's fan can be switched off",
        "turn_off",
        {"entity_id": [SAMS_FAN]},
    ),
    (
        "could you pop the lights on in the kitchen, I'm just going in there",
        "turn_on",
        {"area_id": ["kitchen"], "domain": ["light"]},
    ),
    ("every light in the place off please, I'm off to work", "turn_off", {"domain": ["light"]}),
    (
        "could you knock the Bed Light down to 35 percent, it's a bit harsh",
        "set_light",
        {"entity_id": ["light.bed_light"], "brightness_pct": 35},
    ),
    (
        "I fancy the Bed Light in blue tonight",
        "set_light",
        {"entity_id": ["light.bed_light"], "color_name": "blue"},
    ),
    (
        "I'd like the heating in the living room at 21.5",
        "set_climate",
        {"area_id": ["living_room"], "domain": ["climate"], "temperature": 21.5},
    ),
    (
        "how warm is it in the office at the moment",
        "get_state",
        {"area_id": ["office"], "domain": ["climate"]},
    ),
    (
        "can you tell me what the HeatPump's target is",
        "get_state",
        {"entity_id": [HEATPUMP]},
    ),
    (
        "what temperature's the fridge temperature picking up",
        "get_state",
        {"entity_id": ["sensor.fridge_temperature"]},
    ),
    (
        "the Living Room Fan is a bit much, can you bring it down to 30 percent",
        "set_fan",
        {"entity_id": ["fan.living_room_fan"], "percentage": 30},
    ),
    (
        "set Sam's fan going at 55% please",
        "set_fan",
        {"entity_id": [SAMS_FAN], "percentage": 55},
    ),
    (
        "I just want a light breeze, put Sam's fan on 15%",
        "set_fan",
        {"entity_id": [SAMS_FAN], "percentage": 15},
    ),
    (
        "I can't hear the Walkman, bump the volume up a bit",
        "set_media",
        {"entity_id": [WALKMAN], "volume_step_pct": 10},
    ),
    (
        "go back one song on the Walkman, I want to hear it again",
        "control_media",
        {"entity_id": [WALKMAN], "action": "previous"},
    ),
    (
        "is the kitchen window up or down at the moment",
        "get_state",
        {"entity_id": ["cover.kitchen_window"]},
    ),
    ("is there a light on anywhere in the house", "get_state", {"domain": ["light"]}),
    (
        "can you check the kitchen lights are all off",
        "get_state",
        {"area_id": ["kitchen"], "domain": ["light"]},
    ),
    (
        "is it humid in the office right now",
        "get_state",
        {"area_id": ["office"], "domain": ["sensor"], "device_class": ["humidity"]},
    ),
    (
        "it's stuffy in here, what's the temperature in the office",
        "get_state",
        {"area_id": ["office"], "domain": ["climate"]},
    ),
    ("let's do Movie night", "activate_scene", {"entity_id": ["scene.movie_night"]}),
    (
        "switch the house over to Movie night",
        "activate_scene",
        {"entity_id": ["scene.movie_night"]},
    ),
    (
        "can you put cereal on my shopping list, we've finished the box",
        "add_todo_item",
        {"list_id": "todo.shopping_list", "item": "cereal"},
    ),
    (
        "actually, scrap the crisps from the shopping list",
        "remove_todo_item",
        {"list_id": "todo.shopping_list", "item": "crisps"},
    ),
    (
        "the dog's been shedding everywhere, can you send the Robot vacuum out",
        "control_vacuum",
        {"entity_id": [ROBOT], "action": "start"},
    ),
    (
        "let's get the house hoovered while I'm at the shops",
        "control_vacuum",
        {"domain": ["vacuum"], "action": "start"},
    ),
    (
        "the carpets are a mess, please do a vacuum",
        "control_vacuum",
        {"domain": ["vacuum"], "action": "start"},
    ),
    (
        "I'm making a brew, give me a 4 minute timer",
        "device_timer",
        {"intent": "HassStartTimer", "minutes": 4},
    ),
    (
        "freeze my timer for a second, the doorbell's going",
        "device_timer",
        {"intent": "HassPauseTimer"},
    ),
    (
        "cancel every timer I've got running, we're eating out instead",
        "device_timer",
        {"intent": "HassCancelAllTimers"},
    ),
    ("sorry, what's the date", "current_time", {"what": "date"}),
    ("remind me what day it is", "current_time", {"what": "date"}),
    ("how late is it now", "current_time", {"what": "time"}),
    (
        "put a message out on all the speakers that it's time to wake up",
        "broadcast",
        {"message": "it's time to wake up"},
    ),
    (
        "how warm's it going to get outside this afternoon",
        "get_state",
        {"domain": ["weather"]},
    ),
    ("what's tomorrow looking like, weather-wise", "get_state", {"domain": ["weather"]}),
    # round 10, dev part
    (
        "actually, kill Sam's fan, it's getting a bit chilly",
        "turn_off",
        {"entity_id": [SAMS_FAN]},
    ),
    (
        "nobody's watching the Walkman, you can shut it off",
        "turn_off",
        {"entity_id": [WALKMAN]},
    ),
    (
        "I'm reading in the hall, can you put the lights on in there",
        "turn_on",
        {"area_id": ["hall"], "domain": ["light"]},
    ),
    ("um, can you switch on the lights everywhere", "turn_on", {"domain": ["light"]}),
    (
        "could you kill the living room lights",
        "turn_off",
        {"area_id": ["living_room"], "domain": ["light"]},
    ),
    (
        "I'm about to do some reading, bring the office lights up to 100 percent",
        "set_light",
        {"area_id": ["office"], "domain": ["light"], "brightness_pct": 100},
    ),
    (
        "the Bed Light should be purple tonight",
        "set_light",
        {"entity_id": ["light.bed_light"], "color_name": "purple"},
    ),
    (
        "can you whack the HeatPump up to twenty-four",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 24.0},
    ),
    (
        "going to bed now, so turn the Ecobee down to 16 degrees",
        "set_climate",
        {"entity_id": ["climate.ecobee"], "temperature": 16.0},
    ),
    (
        "could you change the temperature on the HeatPump to 20.5",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 20.5},
    ),
    ("what temperature is the Ecobee aiming for", "get_state", {"entity_id": ["climate.ecobee"]}),
    (
        "what temperature has the fridge temperature got",
        "get_state",
        {"entity_id": ["sensor.fridge_temperature"]},
    ),
    (
        "the Living Room Fan's way too strong, knock it down to 25 percent",
        "set_fan",
        {"entity_id": ["fan.living_room_fan"], "percentage": 25},
    ),
    ("run Sam's fan at full speed", "set_fan", {"entity_id": [SAMS_FAN], "percentage": 100}),
    (
        "play that last song again on the Walkman",
        "control_media",
        {"entity_id": [WALKMAN], "action": "previous"},
    ),
    (
        "someone's at the door, can you pause the living room music for a minute",
        "control_media",
        {"area_id": ["living_room"], "domain": ["media_player"], "action": "pause"},
    ),
    ("louder on the Walkman, please", "set_media", {"entity_id": [WALKMAN], "volume_step_pct": 10}),
    ("has the back door been left unlocked", "get_state", {"entity_id": ["lock.back_door"]}),
    (
        "can you see if the Garage Door is still open",
        "get_state",
        {"entity_id": ["cover.garage_door"]},
    ),
    (
        "are there lights on anywhere on the upstairs",
        "get_state",
        {"floor_id": ["upstairs"], "domain": ["light"]},
    ),
    (
        "has any water been detected anywhere in the house",
        "get_state",
        {"domain": ["binary_sensor"], "device_class": ["moisture"]},
    ),
    (
        "how many of the living room lights are still on",
        "get_state",
        {"area_id": ["living_room"], "domain": ["light"]},
    ),
    (
        "is the air okay in the office? what's the carbon dioxide at",
        "get_state",
        {"area_id": ["office"], "domain": ["sensor"], "device_class": ["carbon_dioxide"]},
    ),
    (
        "what's the illuminance reading in the office",
        "get_state",
        {"area_id": ["office"], "domain": ["sensor"], "device_class": ["illuminance"]},
    ),
    (
        "I'm ready to relax, can you set Movie night",
        "activate_scene",
        {"entity_id": ["scene.movie_night"]},
    ),
    (
        "we need more toilet roll, stick it on the shopping list",
        "add_todo_item",
        {"list_id": "todo.shopping_list", "item": "toilet roll"},
    ),
    (
        "could you take oranges off my shopping list, we don't need them",
        "remove_todo_item",
        {"list_id": "todo.shopping_list", "item": "oranges"},
    ),
    (
        "I've picked up the soap, cross it off my shopping list",
        "complete_todo_item",
        {"list_id": "todo.shopping_list", "item": "soap"},
    ),
    (
        "let the Robot vacuum loose on the floors",
        "control_vacuum",
        {"entity_id": [ROBOT], "action": "start"},
    ),
    ("fire up the Robot vacuum", "control_vacuum", {"entity_id": [ROBOT], "action": "start"}),
    (
        "time for the Robot vacuum to do its thing",
        "control_vacuum",
        {"entity_id": [ROBOT], "action": "start"},
    ),
    (
        "can you count down forty-five minutes for me",
        "device_timer",
        {"intent": "HassStartTimer", "minutes": 45},
    ),
    (
        "put another ten minutes on the timer",
        "device_timer",
        {"intent": "HassIncreaseTimer", "minutes": 10},
    ),
    ("um, can you put the countdown on pause", "device_timer", {"intent": "HassPauseTimer"}),
    ("is it past midnight yet", "current_time", {"what": "time"}),
    ("what's the clock say", "current_time", {"what": "time"}),
    (
        "ping every speaker in the house saying the Wi-Fi is back",
        "broadcast",
        {"message": "the Wi-Fi is back"},
    ),
    ("call the kids down for dinner over the speakers", "broadcast", {"message": "dinner"}),
    (
        "say on all the speakers that the match is about to kick off",
        "broadcast",
        {"message": "the match is about to kick off"},
    ),
    ("is it a good day to hang the washing out", "get_state", {"domain": ["weather"]}),
    # round 11, dev part
    (
        "um, could you switch the Walkman off, I'm going to bed",
        "turn_off",
        {"entity_id": [WALKMAN]},
    ),
    (
        "please turn the Bed Light off, I'm heading out",
        "turn_off",
        {"entity_id": ["light.bed_light"]},
    ),
    (
        "dinner's over, can you shut off the lights in the kitchen",
        "turn_off",
        {"area_id": ["kitchen"], "domain": ["light"]},
    ),
    (
        "right, I'm off to bed, can you make sure every light in the house is turned off",
        "turn_off",
        {"domain": ["light"]},
    ),
    (
        "nobody's using the upstairs, turn all the lights off on it",
        "turn_off",
        {"floor_id": ["upstairs"], "domain": ["light"]},
    ),
    (
        "could you bring the Bed Light down to twenty percent, I've got a headache",
        "set_light",
        {"entity_id": ["light.bed_light"], "brightness_pct": 20},
    ),
    (
        "could the Living Room RGBWW Lights be red for the party tonight",
        "set_light",
        {"entity_id": ["light.living_room_rgbww_lights"], "color_name": "red"},
    ),
    (
        "give the Bed Light a nice orange glow",
        "set_light",
        {"entity_id": ["light.bed_light"], "color_name": "orange"},
    ),
    (
        "it's like a sauna in here, bring the HeatPump down to 19 degrees",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 19.0},
    ),
    (
        "I'm shivering, can you raise the Ecobee to 23.5",
        "set_climate",
        {"entity_id": ["climate.ecobee"], "temperature": 23.5},
    ),
    (
        "change the target on the HeatPump to eighteen",
        "set_climate",
        {"entity_id": [HEATPUMP], "temperature": 18.0},
    ),
    (
        "I'm about to go into the office, what temperature is it in there",
        "get_state",
        {"area_id": ["office"], "domain": ["climate"]},
    ),
    (
        "what number is the Ecobee on at the moment",
        "get_state",
        {"entity_id": ["climate.ecobee"]},
    ),
    (
        "I can hardly feel the Living Room Fan, raise it to 70%",
        "set_fan",
        {"entity_id": ["fan.living_room_fan"], "percentage": 70},
    ),
    (
        "um, put the music back on in the living room",
        "control_media",
        {"area_id": ["living_room"], "domain": ["media_player"], "action": "play"},
    ),
    (
        "is the Living Room Fan running at the moment",
        "get_state",
        {"entity_id": ["fan.living_room_fan"]},
    ),
    (
        "can you tell me whether the back door is secured",
        "get_state",
        {"entity_id": ["lock.back_door"]},
    ),
    (
        "what position is the kitchen window in",
        "get_state",
        {"entity_id": ["cover.kitchen_window"]},
    ),
    (
        "have any of the water sensors picked up a leak",
        "get_state",
        {"domain": ["binary_sensor"], "device_class": ["moisture"]},
    ),
    (
        "are there still lights burning on the upstairs",
        "get_state",
        {"floor_id": ["upstairs"], "domain": ["light"]},
    ),
    (
        "can you check whether the windows in the kitchen are shut",
        "get_state",
        {"area_id": ["kitchen"], "domain": ["cover", "binary_sensor"], "device_class": ["window"]},
    ),
    (
        "how humid is the office at the moment",
        "get_state",
        {"area_id": ["office"], "domain": ["sensor"], "device_class": ["humidity"]},
    ),
    (
        "what carbon dioxide level is the office at right now",
        "get_state",
        {"area_id": ["office"], "domain": ["sensor"], "device_class": ["carbon_dioxide"]},
    ),
    ("right, time for Movie night", "activate_scene", {"entity_id": ["scene.movie_night"]}),
    ("get Good night going for me", "run_script", {"entity_id": ["script.good_night"]}),
    (
        "could you jot down bin bags on my shopping list",
        "add_todo_item",
        {"list_id": "todo.shopping_list", "item": "bin bags"},
    ),
    (
        "um, we don't need the chicken after all, take it off the shopping list",
        "remove_todo_item",
        {"list_id": "todo.shopping_list", "item": "chicken"},
    ),
    (
        "I've got the honey, you can mark it complete on the shopping list",
        "complete_todo_item",
        {"list_id": "todo.shopping_list", "item": "honey"},
    ),
    (
        "can you set the Robot vacuum off on a clean",
        "control_vacuum",
        {"entity_id": [ROBOT], "action": "start"},
    ),
    (
        "send the Robot vacuum round the house please",
        "control_vacuum",
        {"entity_id": [ROBOT], "action": "start"},
    ),
    (
        "I'm off to work, have the Robot vacuum do the floors while I'm out",
        "control_vacuum",
        {"entity_id": [ROBOT], "action": "start"},
    ),
    (
        "um, could I have a timer for three minutes",
        "device_timer",
        {"intent": "HassStartTimer", "minutes": 3},
    ),
    (
        "can you tack another eight minutes onto the timer",
        "device_timer",
        {"intent": "HassIncreaseTimer", "minutes": 8},
    ),
    ("sorry to bother you, what time have we got", "current_time", {"what": "time"}),
    ("my phone's dead, could you give me the time", "current_time", {"what": "time"}),
    ("quick one, have you got the time", "current_time", {"what": "time"}),
    (
        "put it out on the speakers that the bathroom's free",
        "broadcast",
        {"message": "the bathroom's free"},
    ),
    (
        "send a message round the whole house: grandma's on the phone",
        "broadcast",
        {"message": "grandma's on the phone"},
    ),
    ("should I take a coat when I go out later", "get_state", {"domain": ["weather"]}),
    ("what's the outlook for the next few days", "get_state", {"domain": ["weather"]}),
    ("how cold is it going to be overnight", "get_state", {"domain": ["weather"]}),
]


@pytest.fixture
async def with_weather(hass: HomeAssistant, ha_bridge: HaBridge) -> HaBridge:
    """The test home and a weather entity (the demo's platforms in it have none)."""
    registry = er.async_get(hass)
    registry.async_get_or_create(
        "weather", "botpsy_test", "home", suggested_object_id="home", original_name="Home"
    )
    hass.states.async_set("weather.home", "sunny", {"friendly_name": "Home", "temperature": 16})
    await wait_until(lambda: "weather.home" in ha_bridge.index.home.entities, 5)
    return ha_bridge


@pytest.mark.parametrize(("text", "tool", "arguments"), CALLS)
def test_the_dev_misses_become_their_calls(
    with_weather: HaBridge, text: str, tool: str, arguments: dict[str, Any]
) -> None:
    recognized = FastPath().recognize(text, "en", with_weather.index.home)
    assert recognized is not None and not recognized.guessed, text
    calls = [(c.name, c.model_dump(exclude_none=True, mode="json")) for c in recognized.calls]
    assert calls == [(tool, arguments)]


@pytest.mark.parametrize(
    "text",
    [
        "forget it",
        "oh, ignore that",
        "actually, don't bother",
        "oh, don't worry about it",
        "I changed my mind",  # round 4, dev part
        "no, cancel that",  # round 5, dev part
        "sorry, I didn't mean to say that",  # round 6, dev part
        "ah, leave it, it's fine",  # round 8, dev part
        "hold on, don't do anything",  # round 10, dev part
        "whoops, that was a mistake, ignore me",  # round 11, dev part
        "actually, it doesn't matter",  # round 11, dev part
    ],
)
def test_forget_it_is_never_mind(ha_bridge: HaBridge, text: str) -> None:
    recognized = FastPath().recognize(text, "en", ha_bridge.index.home)
    assert recognized is not None and recognized.nevermind and not recognized.calls
    assert recognized.reply is None


@pytest.mark.parametrize(
    "text",
    [
        "good evening",
        "morning!",  # round 7, dev part
        "hello, are you there?",  # round 7, dev part
        "hiya, you alright?",  # round 8, dev part
        "hey there, how's it going",  # round 9, dev part
        "hi, good afternoon",  # round 9, dev part
        "hey, what's up",  # round 10, dev part
    ],
)
def test_a_greeting_gets_has_own_hello(ha_bridge: HaBridge, text: str) -> None:
    recognized = FastPath().recognize(text, "en", ha_bridge.index.home)
    assert recognized is not None and not recognized.calls
    assert recognized.reply == "Hello from Home Assistant."


@pytest.mark.parametrize(
    "text",
    [
        # a notification to everyone is as likely meant: the model, which has that tool
        "let everyone know with a notification: plumber arriving at 3 o'clock",
        "tell everyone it's time for bed",
        "let the whole house know dessert is ready",  # round 3, dev part: the same
        "tell the whole house the taxi is outside",  # round 4, dev part: the same
        # round 3, dev part: lights already on are to be brightened, which the model does
        # (dev too-dark-hall), not switched on again
        "it's too dark in the Kitchen",
        # a device of another kind than the template's
        "run the Walkman",
        "cut the Walkman",
        # round 5: a reason is a statement, and names nothing the request leaves alone; a
        # command before the comma is not a reason
        "the Bed Light is too bright, turn on the AC",
        "turn everything off, switch on the AC",
        "I'm done with the Walkman and the AC, turn it off",
        # round 6: "everyone" and "the house" may as well be a notification (as in round 3)
        "can you let the house know the film's about to start",
        "give everyone a shout that tea's ready",
        # round 7: the same; "it" points back into the reason
        "shout up to everyone that the food's ready",
        "remind me to buy flour, add it to the shopping list",
        # round 8: the same ("them" points back into the reason; "everybody", "the house")
        "we've got loads of peppers, remove them from the shopping list",
        "let everybody know the car's leaving in two minutes",
        "give the house a heads up that the guests have arrived",
        # round 9: the same; and a question after a reason that names another device is
        # not read past it
        "I picked up the mushrooms, mark them done on my shopping list",
        "let everyone know I'm back home",
        "can you shout to the house that the kettle's boiled",
        "the Walkman is too loud, what's the temperature in the office",
        # round 11: "all the rooms" may as well be a notification (as in round 3)
        "let all the rooms know the ice cream van is outside",
    ],
)
def test_what_the_second_round_leaves_to_the_model(ha_bridge: HaBridge, text: str) -> None:
    assert FastPath().recognize(text, "en", ha_bridge.index.home) is None


async def test_a_thermostat_lowered_to_a_number_is_set_in_ha(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    agent = make_agent(ha_bridge, planner=None)
    response = await agent.handle(ask("lower the HeatPump to 18 degrees", admin(ha_bridge)))
    assert (response.path, response.status) == (Path.FAST_PATH, Status.DONE), response
    await hass.async_block_till_done()
    heatpump = hass.states.get(HEATPUMP)
    assert heatpump is not None and heatpump.attributes["temperature"] == 18.0, heatpump


async def test_is_it_playing_is_answered_yes_or_no(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    walkman = hass.states.get(WALKMAN)
    assert walkman is not None and walkman.state == "playing"
    agent = make_agent(ha_bridge, planner=None)
    response = await agent.handle(ask("is the Walkman playing", admin(ha_bridge)))
    assert (response.path, response.status) == (Path.FAST_PATH, Status.DONE), response
    assert response.speech.startswith("Yes"), response.speech


async def test_a_sensor_reading_is_said_with_its_unit(ha_bridge: HaBridge) -> None:
    agent = make_agent(ha_bridge, planner=None)
    response = await agent.handle(
        ask("what temperature is the fridge temperature showing", admin(ha_bridge))
    )
    assert (response.path, response.status) == (Path.FAST_PATH, Status.DONE), response
    assert response.speech == "Fridge temperature: 4.5 °C."


@pytest.mark.parametrize(
    ("text", "speech"),
    [
        # HA's demo thermostats: the Heatpump reads 25 °C and is set to 20 °C; the Ecobee
        # heats and cools between 21 and 24 °C.
        ("what's the Heatpump set to", "HeatPump is set to 20.0 °C."),
        ("what's the Ecobee set to", "Ecobee is set to 21 to 24 °C."),
        ("what's the Heatpump temperature", "HeatPump: 25.0 °C."),
    ],
)
async def test_a_thermostat_is_asked_what_it_is_set_to_or_what_it_reads(
    hass: HomeAssistant, ha_bridge: HaBridge, text: str, speech: str
) -> None:
    """ "What's the … thermostat set to" (a dev miss) is its setpoint, not the room's
    temperature, which "what's the … temperature" still says."""
    agent = make_agent(ha_bridge, planner=None)
    response = await agent.handle(ask(text, admin(ha_bridge)))
    assert (response.path, response.status) == (Path.FAST_PATH, Status.DONE), response
    assert response.speech == speech


async def test_check_if_and_what_is_on_are_answered_from_the_states(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """Dev misses of the model path's evaluation (back-door-question, whats-on-upstairs)
    that are HA's own state questions in other words: answered by the fast path."""
    agent = make_agent(ha_bridge, planner=None)
    locked = await agent.handle(ask("could you check if the back door is locked", admin(ha_bridge)))
    assert (locked.path, locked.status) == (Path.FAST_PATH, Status.DONE), locked
    lock = hass.states.get("lock.back_door")
    assert lock is not None
    assert locked.speech.startswith("Yes" if lock.state == "locked" else "No"), locked.speech
    upstairs = await agent.handle(ask("what is switched on upstairs", admin(ha_bridge)))
    assert (upstairs.path, upstairs.status) == (Path.FAST_PATH, Status.DONE), upstairs
    on = [
        s.name
        for s in hass.states.async_all(("light", "switch", "fan"))
        if s.state == "on" and ha_bridge.index.home.entities[s.entity_id].floor_id == "upstairs"
    ]
    assert on and all(name in upstairs.speech for name in on), (on, upstairs.speech)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("switch off the fairy lights and then turn on the porch light", "en"),
        ("switch off the fairy lights, then turn on the porch light", "en"),
        ("switch off the fairy lights; turn on the porch light", "en"),
        ("matikan fairy lights lalu nyalakan porch light", "id"),
    ],
)
async def test_commands_said_one_after_the_other_are_carried_out_in_turn(
    hass: HomeAssistant, ha_bridge: HaBridge, text: str, language: str
) -> None:
    """Dev multi-blinds-and-lamp: "close the … blinds and then switch on the reading lamp"
    went to the model, which did the first only. Each part is a command the fast path knows:
    both run, in HA."""
    await hass.services.async_call(
        "light", "turn_off", {"entity_id": "light.entrance_color_white_lights"}, blocking=True
    )
    await hass.services.async_call(
        "switch", "turn_on", {"entity_id": "switch.decorative_lights"}, blocking=True
    )
    agent = make_agent(ha_bridge, planner=None)
    response = await agent.handle(ask(text, admin(ha_bridge), language=language))
    assert (response.path, response.status) == (Path.FAST_PATH, Status.DONE), response
    await hass.async_block_till_done()
    fairy = hass.states.get("switch.decorative_lights")
    porch = hass.states.get("light.entrance_color_white_lights")
    assert fairy is not None and fairy.state == "off", fairy
    assert porch is not None and porch.state == "on", porch
    said = [a.entity_ids for a in response.actions]
    assert said == [["switch.decorative_lights"], ["light.entrance_color_white_lights"]], said
    assert "Decorative Lights" in response.speech and "Entrance" in response.speech


@pytest.mark.parametrize(
    "text",
    [
        # a part the fast path does not know: the model has the whole request
        "switch off the fairy lights and then tell Anna dinner is ready",
        # "and" alone joins names within one command, not commands
        "turn on the porch light and the fairy lights and then dance",
    ],
)
def test_a_compound_with_a_part_it_does_not_know_goes_to_the_model(
    ha_bridge: HaBridge, text: str
) -> None:
    assert FastPath().recognize(text, "en", ha_bridge.index.home) is None


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        # a question in a compound is no command of the templates'; HA's fallback reader
        # reads both parts (D96)
        (
            "switch off the fairy lights and then is the back door locked",
            [
                ("turn_off", {"entity_id": ["switch.decorative_lights"]}),
                ("get_state", {"entity_id": ["lock.back_door"]}),
            ],
        ),
        # a name alone is "turn it on" to HA's templates; the reader carries the way over
        (
            "turn off the porch light and then the fairy lights",
            [
                ("turn_off", {"entity_id": ["light.entrance_color_white_lights"]}),
                ("turn_off", {"entity_id": ["switch.decorative_lights"]}),
            ],
        ),
    ],
)
def test_a_compound_the_templates_do_not_read_is_read_whole_or_not_at_all(
    ha_bridge: HaBridge, text: str, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    recognized = FastPath().recognize(text, "en", ha_bridge.index.home)
    assert recognized is not None and recognized.guessed, text
    said = [(c.name, c.model_dump(exclude_none=True, mode="json")) for c in recognized.calls]
    assert said == calls
