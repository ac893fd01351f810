"""The scenario runner: the product's acceptance conversations, run through the real chat path."""

from __future__ import annotations

from assistant.scenarios.runner import ScenarioResult, run_scenario, scenario_files
from assistant.scenarios.spec import Scenario, load_scenario

__all__ = ["Scenario", "ScenarioResult", "load_scenario", "run_scenario", "scenario_files"]
