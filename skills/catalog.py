"""Imports every skill module so that their ``@skill`` decorators fill the registry.

Adding a skill module means adding it here; ``skills.apps.SkillsConfig.ready`` imports this once.
"""

from __future__ import annotations

from skills import (  # noqa: F401 - imported for their registrations
    calendar_skills,
    change_skills,
    data_skills,
    interaction_skills,
    llm_skills,
    preference_skills,
    reply_skills,
    sync_skills,
)
from skills.registry import REGISTRY

__all__ = ["REGISTRY"]
