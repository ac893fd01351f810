from django.apps import AppConfig


class SkillsConfig(AppConfig):
    """Owns the built-in local calendar store and the skill registry."""

    name = "skills"
    verbose_name = "Calendars and skills"

    def ready(self) -> None:
        # Importing the skill modules registers them in the catalog.
        from skills import catalog  # noqa: F401
