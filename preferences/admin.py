from django.contrib import admin

from preferences.models import Preference


@admin.register(Preference)
class PreferenceAdmin(admin.ModelAdmin):
    list_display = ("user", "key", "value", "updated_at")
    list_filter = ("key",)
    search_fields = ("user__username", "user__email", "key")
